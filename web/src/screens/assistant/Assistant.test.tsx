import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router';
import Assistant from './Assistant';
import { AppLayout } from '../../components/Layout';
import { mockApi, renderScreen, route, type Call } from '../../test/render';
import { forgetSession, rememberSession } from '../../session';

afterEach(() => vi.unstubAllGlobals());

const config = (assistant: boolean, billing = false) => ({ quoteLookup: false, billing, proPlan: false, email: false, imageStorage: false, assistant, registrationOpen: true });
const conv = (id: string, title: string) => ({ id, title, createdAt: '2024-01-02T10:00:00Z', updatedAt: '2024-01-02T10:00:00Z' });
const msg = (id: string, role: 'user' | 'assistant', content: string, turnId: string, complete = true) => ({ id, role, content, complete, turnId, createdAt: '2024-01-02T10:00:00Z' });
const path = '/assistant/:conversationId?';

/** Keyed remounts the screen when its address changes, as AppLayout's error boundary does. */
function Keyed() {
  const { pathname } = useLocation();
  return <Assistant key={pathname} />;
}

/** A streamed answer the test writes piece by piece; aborting the request errors it, as a browser's fetch does. */
function sseStream() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  const enc = new TextEncoder();
  return {
    response: () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    send: (event: string, data: unknown) => ctrl.enqueue(enc.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    raw: (text: string) => ctrl.enqueue(enc.encode(text)),
    close: () => ctrl.close(),
    abortWith: (signal: AbortSignal) => signal.addEventListener('abort', () => ctrl.error(new DOMException('The operation was aborted.', 'AbortError'))),
  };
}

interface StreamCall {
  path: string;
  body: { content: string; idempotencyKey: string };
  signal: AbortSignal;
}

/** mockAssistant answers the JSON routes through mockApi and each stream POST with the next of answers. */
function mockAssistant(answers: Array<(call: StreamCall) => Response>, ...routes: Parameters<typeof mockApi>) {
  const api = mockApi(...routes);
  const streams: StreamCall[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.endsWith('/messages/stream')) return api.fetchMock(input, init);
    const call = { path: url.pathname, body: JSON.parse(String(init?.body)) as StreamCall['body'], signal: init?.signal as AbortSignal };
    streams.push(call);
    const answer = answers.shift();
    if (!answer) throw new Error('no answer prepared');
    return answer(call);
  });
  return { calls: api.calls, streams };
}

const json = (status: number, body: unknown) => () => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
const emptyList = route('GET', '/api/assistant/conversations', () => ({ body: { items: [], nextCursor: null } }));

describe('Assistant', () => {
  it('pages the conversation list and shows a conversation as plain text, marking an incomplete answer', async () => {
    const { calls } = mockAssistant(
      [],
      route('GET', '/api/config', () => ({ body: config(true) })),
      route('GET', '/api/assistant/conversations', (c: Call) =>
        c.search.includes('cursor=k2') ? { body: { items: [conv('c2', 'Older talk')], nextCursor: null } } : { body: { items: [conv('c1', 'Why do Mondays lose?')], nextCursor: 'k2' } },
      ),
      route('GET', '/api/assistant/conversations/c1', () => ({
        body: {
          conversation: conv('c1', 'Why do Mondays lose?'),
          messages: [msg('m1', 'user', 'Why do Mondays lose?', 't1'), msg('m2', 'assistant', 'Because <img src=x onerror="alert(1)"> you chase.', 't1', false)],
        },
      })),
    );
    const { container } = renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    expect(await screen.findByText('Because <img src=x onerror="alert(1)"> you chase.')).toBeInTheDocument();
    expect(container.querySelector('img')).toBeNull();
    expect(screen.getByText('This answer is incomplete.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Why do Mondays lose?' })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByRole('link', { name: 'Older talk' })).toHaveAttribute('href', '/assistant/c2');
    expect(calls.filter((c) => c.path === '/api/assistant/conversations').map((c) => new URLSearchParams(c.search).get('cursor'))).toEqual([null, 'k2']);
  });

  it('streams a new question: deltas show as they arrive, then the charge, at the new conversation address', async () => {
    const s = sseStream();
    let stored = false;
    const { streams } = mockAssistant(
      [() => s.response()],
      route('GET', '/api/config', () => ({ body: config(true) })),
      route('GET', '/api/assistant/conversations', () => ({ body: { items: stored ? [conv('c9', 'Review my losers')] : [], nextCursor: null } })),
      route('GET', '/api/assistant/conversations/c9', () => ({
        body: {
          conversation: conv('c9', 'Review my losers'),
          messages: stored ? [msg('m1', 'user', 'Review my losers', 't9'), msg('m2', 'assistant', 'Your losers share wide stops.', 't9')] : [msg('m1', 'user', 'Review my losers', 't9')],
        },
      })),
    );
    const { router } = renderScreen(<Keyed />, { path, at: '/assistant' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'Review my losers');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    await waitFor(() => expect(streams).toHaveLength(1));
    expect(streams[0]?.path).toBe('/api/assistant/conversations/new/messages/stream');
    expect(streams[0]?.body.content).toBe('Review my losers');
    expect(streams[0]?.body.idempotencyKey).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);

    s.send('start', { conversationId: 'c9', turnId: 't9' });
    s.raw(': keep-alive\n\nevent: delta\ndata: {"content":"Your losers "}\n');
    s.raw('\n');
    // The new conversation's address remounts the screen; the answer keeps streaming into it.
    await waitFor(() => expect(router.state.location.pathname).toBe('/assistant/c9'));
    expect(await screen.findByText('Your losers')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Ask' })).toBeDisabled();

    s.send('delta', { content: 'share wide stops.' });
    expect(await screen.findByText('Your losers share wide stops.')).toBeInTheDocument();
    stored = true;
    s.send('done', { conversationId: 'c9', turnId: 't9', messageId: 'm2', status: 'complete', reason: 'complete', usage: { promptTokens: 10, completionTokens: 5 }, creditsCharged: 324 });
    s.close();
    // The stored conversation replaces the streamed copy: the answer once, the list refreshed.
    expect(await screen.findByRole('link', { name: 'Review my losers' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByText('Your losers share wide stops.')).toHaveLength(1));
    expect(screen.getByText('324 credits charged.')).toBeInTheDocument();

    // A new conversation starts empty.
    await user.click(screen.getByRole('link', { name: 'New conversation' }));
    await screen.findByRole('heading', { name: 'New conversation' });
    expect(within(screen.getByRole('list', { name: 'Messages' })).queryAllByRole('listitem')).toHaveLength(0);
    expect(screen.queryByText('324 credits charged.')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
  });

  it('shows the credits charged and an incomplete marker from the done event', async () => {
    const s = sseStream();
    mockAssistant(
      [() => s.response()],
      route('GET', '/api/config', () => ({ body: config(true) })),
      emptyList,
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Q'), messages: [] } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'And Fridays?');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    s.send('start', { conversationId: 'c1', turnId: 't2' });
    s.send('delta', { content: 'Fridays are' });
    // The last event without its blank line still counts.
    s.raw('event: done\ndata: {"conversationId":"c1","turnId":"t2","status":"incomplete","reason":"budget","usage":{"promptTokens":1,"completionTokens":1},"creditsCharged":12}');
    s.close();
    expect(await screen.findByText(/The answer is incomplete: it reached the time limit for one answer\. 12 credits charged\./)).toBeInTheDocument();
    expect(screen.getByText('Fridays are')).toBeInTheDocument();
  });

  it('explains credits that ran out before a further tool round, with a link to billing', async () => {
    const s = sseStream();
    mockAssistant(
      [() => s.response()],
      route('GET', '/api/config', () => ({ body: config(true, true) })),
      emptyList,
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Q'), messages: [] } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'Size it');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    s.send('start', { conversationId: 'c1', turnId: 't2' });
    s.send('delta', { content: 'Let me look.' });
    s.send('done', { conversationId: 'c1', turnId: 't2', status: 'incomplete', reason: 'insufficient_credits', code: 'INSUFFICIENT_CREDITS', usage: { promptTokens: 5000, completionTokens: 500 }, creditsCharged: 1260 });
    s.close();
    expect(await screen.findByText(/The answer is incomplete: your credits ran out before the assistant could look further\. 1260 credits charged\./)).toBeInTheDocument();
    const note = screen.getByText(/To let it look further, add credits and ask again\./);
    expect(within(note).getByRole('link', { name: 'Buy credits' })).toHaveAttribute('href', '/billing');
  });

  it('explains missing credits with a link to billing, and a retry reuses the idempotency key', async () => {
    const noCredits = json(402, { error: { code: 'INSUFFICIENT_CREDITS', message: 'not enough credits' } });
    const s = sseStream();
    const { streams } = mockAssistant(
      [noCredits, () => s.response()],
      route('GET', '/api/config', () => ({ body: config(true, true) })),
      emptyList,
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'Any edge?');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    const alert = await screen.findByText(/You do not have enough credits/);
    expect(within(alert).getByRole('link', { name: 'Buy credits' })).toHaveAttribute('href', '/billing');
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(streams[1]?.body).toEqual(streams[0]?.body);
    s.send('start', { conversationId: 'c3', turnId: 't3' });
    s.send('done', { conversationId: 'c3', turnId: 't3', status: 'complete', reason: 'complete', usage: null, creditsCharged: 0, replay: true });
    s.close();
    expect(await screen.findByText(/nothing charged again/)).toBeInTheDocument();
  });

  it('gives a new submit a new key, and explains billing not available and a turn in progress', async () => {
    const { streams } = mockAssistant(
      [json(402, { error: { code: 'BILLING_NOT_AVAILABLE', message: 'x' } }), json(409, { error: { code: 'TURN_IN_PROGRESS', message: 'x' } })],
      route('GET', '/api/config', () => ({ body: config(true, false) })),
      emptyList,
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'One');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    expect(await screen.findByText(/this server cannot sell them/)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Buy credits' })).toBeNull();
    await user.type(screen.getByLabelText('Your question'), 'Two');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    expect(await screen.findByText(/Another answer is still being written/)).toBeInTheDocument();
    expect(streams[1]?.body.content).toBe('Two');
    expect(streams[1]?.body.idempotencyKey).not.toBe(streams[0]?.body.idempotencyKey);
  });

  it('stops a streaming answer by aborting the request', async () => {
    const s = sseStream();
    const { streams } = mockAssistant(
      [
        (call) => {
          s.abortWith(call.signal);
          return s.response();
        },
      ],
      route('GET', '/api/config', () => ({ body: config(true) })),
      emptyList,
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Q'), messages: [] } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'Long one');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    s.send('start', { conversationId: 'c1', turnId: 't1' });
    s.send('delta', { content: 'Partial' });
    expect(await screen.findByText('Partial')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await screen.findByText(/Stopped\./)).toBeInTheDocument();
    expect(streams[0]?.signal.aborted).toBe(true);
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('offers a retry when the stream ends without a done event', async () => {
    const s = sseStream();
    mockAssistant([() => s.response()], route('GET', '/api/config', () => ({ body: config(true) })), emptyList);
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'Cut me');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    s.send('delta', { content: 'Half' });
    s.close();
    expect(await screen.findByText(/The connection ended before the answer was finished/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('renames and deletes a conversation', async () => {
    const { calls } = mockAssistant(
      [],
      route('GET', '/api/config', () => ({ body: config(true) })),
      emptyList,
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Old title'), messages: [] } })),
      route('PATCH', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'New title') } })),
      route('DELETE', '/api/assistant/conversations/c1', () => ({ status: 204 })),
    );
    const { router } = renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Rename' }));
    const title = screen.getByLabelText('Title');
    await user.clear(title);
    await user.type(title, '  New title ');
    await user.click(screen.getByRole('button', { name: 'Save title' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')?.body).toEqual({ title: 'New title' }));
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const ask = screen.getByRole('alertdialog', { name: 'Delete?' });
    expect(ask).toHaveAccessibleDescription(/^Delete the conversation “.+ title”\?$/);
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/assistant'));
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/api/assistant/conversations/c1')).toBe(true);
  });

  it('explains a delete refused while an answer streams', async () => {
    mockAssistant(
      [],
      route('GET', '/api/config', () => ({ body: config(true) })),
      emptyList,
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: conv('c1', 'Busy'), messages: [] } })),
      route('DELETE', '/api/assistant/conversations/c1', () => ({ status: 409, body: { error: { code: 'TURN_IN_PROGRESS', message: 'x' } } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    await user.click(within(screen.getByRole('alertdialog', { name: 'Delete?' })).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText(/An answer is still being written in this conversation/)).toBeInTheDocument();
  });

  it('calls no assistant route when the assistant is off', async () => {
    const { calls } = mockAssistant([], route('GET', '/api/config', () => ({ body: config(false) })));
    renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    expect(await screen.findByText(/not enabled on this server/)).toBeInTheDocument();
    expect(calls.some((c) => c.path.startsWith('/api/assistant'))).toBe(false);
  });
});

describe('AppLayout navigation', () => {
  beforeEach(rememberSession);
  afterEach(forgetSession);
  const me = route('GET', '/api/auth/me', () => ({
    body: { user: { id: 'u', email: 'a@example.com', emailVerified: false, isAdmin: false, timezone: 'UTC', displayCurrency: 'USD', createdAt: '2024-01-01T00:00:00Z' } },
  }));

  it('links the assistant only when the config turns it on', async () => {
    mockApi(me, route('GET', '/api/config', () => ({ body: config(true) })));
    renderScreen(<AppLayout />);
    expect(await screen.findByRole('link', { name: 'Assistant' })).toHaveAttribute('href', '/assistant');
  });

  it('leaves the assistant out when it is off', async () => {
    mockApi(me, route('GET', '/api/config', () => ({ body: config(false) })));
    renderScreen(<AppLayout />);
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    await waitFor(() => expect(nav).toHaveTextContent('Settings'));
    expect(screen.queryByRole('link', { name: 'Assistant' })).toBeNull();
  });
});
