import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router';
import Assistant from './Assistant';
import { ReviewButton } from './ReviewButton';
import { makeQueryClient } from '../../queryClient';
import { mockApi, renderScreen, route, type Call } from '../../test/render';
import { forgetSession, rememberSession } from '../../session';

beforeEach(rememberSession);
afterEach(() => {
  forgetSession();
  vi.unstubAllGlobals();
});

const config = (assistant: boolean) => ({ quoteLookup: false, billing: false, proPlan: false, email: false, imageStorage: false, assistant, registrationOpen: true });
const conv = (id: string, title: string, personaId = 'default') => ({ id, title, personaId, review: null, createdAt: '2024-01-02T10:00:00Z', updatedAt: '2024-01-02T10:00:00Z' });
const builtIn = { id: 'default', name: 'Default', instructions: '', builtIn: true, createdAt: null as string | null, updatedAt: null as string | null };
const coach = { id: 'p1', name: 'Coach', instructions: 'Be blunt.', builtIn: false, createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z' };
const path = '/assistant/:conversationId?';

interface Stream {
  path: string;
  body: Record<string, unknown>;
}

/** api answers the JSON routes from handlers and records each stream POST, answering it with a short finished stream. */
function api(...handlers: Parameters<typeof mockApi>) {
  const json = mockApi(...handlers);
  const streams: Stream[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.endsWith('/messages/stream')) return json.fetchMock(input, init);
    streams.push({ path: url.pathname, body: JSON.parse(String(init?.body)) as Record<string, unknown> });
    const events =
      'event: start\ndata: {"conversationId":"c9","turnId":"t9"}\n\nevent: delta\ndata: {"content":"Looking at it."}\n\n' +
      'event: done\ndata: {"conversationId":"c9","turnId":"t9","messageId":"m2","status":"complete","reason":"complete","usage":{"promptTokens":1,"completionTokens":1},"creditsCharged":3}\n\n';
    return new Response(events, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
  });
  return { calls: json.calls, streams };
}

const base = [
  route('GET', '/api/config', () => ({ body: config(true) })),
  route('GET', '/api/assistant/conversations/c9', () => ({ body: { conversation: conv('c9', 'Review'), messages: [] } })),
];

describe('Personas', () => {
  it('adds a persona, explains a taken name in words, and edits one', async () => {
    let personas: Array<typeof coach | typeof builtIn> = [builtIn];
    const { calls } = api(
      ...base,
      route('GET', '/api/assistant/conversations', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/assistant/personas', () => ({ body: { items: personas } })),
      route('POST', '/api/assistant/personas', (c: Call) => {
        if ((c.body as { name: string }).name === 'coach') return { status: 409, body: { error: { code: 'CONFLICT', message: 'you already have a persona with this name' } } };
        personas = [builtIn, coach];
        return { status: 201, body: { persona: coach } };
      }),
      route('PATCH', '/api/assistant/personas/p1', () => ({ body: { persona: { ...coach, instructions: 'Be kind.' } } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    const panel = await screen.findByRole('region', { name: 'Personas' });
    await user.click(within(panel).getByRole('button', { name: 'New persona' }));
    await user.type(within(panel).getByLabelText('Name'), 'coach');
    await user.type(within(panel).getByLabelText('Instructions'), 'Be blunt.');
    await user.click(within(panel).getByRole('button', { name: 'Add persona' }));
    expect(await within(panel).findByText('You already have a persona named “coach” (names ignore capitals). Choose another name.')).toBeInTheDocument();
    await user.clear(within(panel).getByLabelText('Name'));
    await user.type(within(panel).getByLabelText('Name'), 'Coach');
    await user.click(within(panel).getByRole('button', { name: 'Add persona' }));
    expect(await within(panel).findByText('Be blunt.')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([
      { name: 'coach', instructions: 'Be blunt.' },
      { name: 'Coach', instructions: 'Be blunt.' },
    ]);
    await user.click(within(panel).getByRole('button', { name: 'Edit' }));
    const form = within(panel).getByRole('form', { name: 'Edit persona Coach' });
    await user.clear(within(form).getByLabelText('Instructions'));
    await user.type(within(form).getByLabelText('Instructions'), 'Be kind.');
    await user.click(within(form).getByRole('button', { name: 'Save persona' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH' && c.path === '/api/assistant/personas/p1')).toBe(true));
    expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ name: 'Coach', instructions: 'Be kind.' });
  });

  it('starts a new conversation with the picked persona, and changes an existing one’s', async () => {
    const { calls, streams } = api(
      ...base,
      route('GET', '/api/assistant/conversations', () => ({ body: { items: [conv('c1', 'Old talk')], nextCursor: null } })),
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Old talk'), messages: [] } })),
      route('PATCH', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Old talk', 'p1') } })),
      route('GET', '/api/assistant/personas', () => ({ body: { items: [builtIn, coach] } })),
    );
    const { router } = renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    const talk = await screen.findByRole('region', { name: 'New conversation' });
    await waitFor(() => expect(within(talk).getByLabelText('Persona')).toBeEnabled());
    await user.selectOptions(within(talk).getByLabelText('Persona'), 'Coach');
    await user.type(within(talk).getByLabelText('Your question'), 'How was my month?');
    await user.click(within(talk).getByRole('button', { name: 'Ask' }));
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(streams[0]?.path).toBe('/api/assistant/conversations/new/messages/stream');
    expect(streams[0]?.body).toMatchObject({ content: 'How was my month?', personaId: 'p1' });

    await router.navigate('/assistant/c1');
    const old = await screen.findByRole('region', { name: 'Old talk' });
    await waitFor(() => expect(within(old).getByLabelText('Persona')).toBeEnabled());
    await user.selectOptions(within(old).getByLabelText('Persona'), 'Coach');
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ personaId: 'p1' }));
  });

  it('searches the conversations by title', async () => {
    const { calls } = api(
      ...base,
      route('GET', '/api/assistant/personas', () => ({ body: { items: [builtIn] } })),
      route('GET', '/api/assistant/conversations', (c: Call) => {
        const q = new URLSearchParams(c.search).get('q');
        if (q === 'aapl') return { body: { items: [conv('c2', 'AAPL breakout')], nextCursor: null } };
        if (q) return { body: { items: [], nextCursor: null } };
        return { body: { items: [conv('c1', 'Mondays'), conv('c2', 'AAPL breakout')], nextCursor: null } };
      }),
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    const list = await screen.findByRole('navigation', { name: 'Conversations' });
    expect(await within(list).findByRole('link', { name: 'Mondays' })).toBeInTheDocument();
    await user.type(within(list).getByLabelText('Search conversations'), 'aapl');
    await waitFor(() => expect(within(list).queryByRole('link', { name: 'Mondays' })).toBeNull());
    expect(within(list).getByRole('link', { name: 'AAPL breakout' })).toBeInTheDocument();
    await user.type(within(list).getByLabelText('Search conversations'), 'zz');
    expect(await within(list).findByText('No conversation’s title holds “aaplzz”.')).toBeInTheDocument();
    // Typing is settled before asking: no request per keystroke.
    expect(calls.filter((c) => c.path === '/api/assistant/conversations').map((c) => new URLSearchParams(c.search).get('q'))).toEqual([null, 'aapl', 'aaplzz']);
  });
});

describe('ReviewButton', () => {
  function Where() {
    return <p>at {useLocation().pathname}</p>;
  }
  function renderAt() {
    const router = createMemoryRouter(
      [
        { path: '/positions/:id', element: <ReviewButton review={{ kind: 'position', positionId: 'pos-1' }}>Review this trade</ReviewButton> },
        { path, element: <><Assistant /><Where /></> },
      ],
      { initialEntries: ['/positions/pos-1'] },
    );
    render(
      <QueryClientProvider client={makeQueryClient(vi.fn())}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    return router;
  }

  it('opens the assistant on a new conversation whose first turn carries the review, once', async () => {
    const { streams } = api(
      ...base,
      route('GET', '/api/assistant/conversations', () => ({ body: { items: [], nextCursor: null } })),
      route('GET', '/api/assistant/personas', () => ({ body: { items: [builtIn] } })),
    );
    renderAt();
    await userEvent.setup().click(await screen.findByRole('button', { name: 'Review this trade' }));
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(streams[0]?.path).toBe('/api/assistant/conversations/new/messages/stream');
    expect(streams[0]?.body).toMatchObject({ context: { kind: 'position', positionId: 'pos-1' }, personaId: 'default' });
    expect(String(streams[0]?.body.content)).toMatch(/^Review this trade/);
    expect(await screen.findByText('at /assistant/c9')).toBeInTheDocument();
    expect(await screen.findByText('Looking at it.')).toBeInTheDocument();
    expect(streams).toHaveLength(1);
  });

  it('is hidden when the assistant is off', async () => {
    const { calls } = api(route('GET', '/api/config', () => ({ body: config(false) })));
    renderAt();
    await waitFor(() => expect(calls.some((c) => c.path === '/api/config')).toBe(true));
    expect(screen.queryByRole('button', { name: 'Review this trade' })).toBeNull();
  });
});
