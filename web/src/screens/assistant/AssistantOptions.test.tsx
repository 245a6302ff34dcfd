import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import Assistant from './Assistant';
import { mockApi, renderScreen, route, type Call } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

const config = { quoteLookup: false, billing: true, proPlan: false, email: false, imageStorage: false, assistant: true, registrationOpen: true };
const path = '/assistant/:conversationId?';
const models = {
  items: [
    { id: 'gpt-small', name: 'gpt-small', provider: 'openai', images: false, inputPricePerMtok: 150000, outputPricePerMtok: 600000, ownKey: false },
    { id: 'claude-x', name: 'claude-x', provider: 'anthropic', images: true, inputPricePerMtok: 3000000, outputPricePerMtok: 15000000, ownKey: false },
    { id: 'key:k1', name: 'gpt-mine', provider: 'openai', images: false, inputPricePerMtok: 0, outputPricePerMtok: 0, ownKey: true },
  ],
  ownKeys: true,
};

function sse(events: Array<[string, unknown]>) {
  return new Response(events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join(''), { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

/** mock answers the JSON routes and each stream POST with the next answer, recording the bodies. */
function mock(answers: Array<() => Response>, ...routes: Parameters<typeof mockApi>) {
  const api = mockApi(
    route('GET', '/api/config', () => ({ body: config })),
    route('GET', '/api/assistant/conversations', () => ({ body: { items: [], nextCursor: null } })),
    route('GET', '/api/assistant/models', () => ({ body: models })),
    ...routes,
  );
  const bodies: Array<Record<string, unknown>> = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!url.pathname.endsWith('/messages/stream')) return api.fetchMock(input, init);
    bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    const answer = answers.shift();
    if (!answer) throw new Error('no answer prepared');
    return answer();
  });
  return { calls: api.calls, bodies };
}

describe('Assistant options', () => {
  it('sends the picked model and the attached image, and shows each tool call with its result', async () => {
    const { bodies } = mock(
      [
        () =>
          sse([
            ['start', { conversationId: 'c1', turnId: 't1', model: 'claude-x' }],
            ['tool_call', { id: 'call_1', name: 'statistics', arguments: { symbol: 'AAPL' } }],
            ['tool_result', { id: 'call_1', name: 'statistics', result: 'Statistics over closed positions in USD: trades 3' }],
            ['delta', { content: 'AAPL lost on Mondays.' }],
            ['done', { conversationId: 'c1', turnId: 't1', status: 'complete', reason: 'complete', usage: { promptTokens: 1, completionTokens: 1 }, creditsCharged: 7 }],
          ]),
      ],
      route('GET', '/api/assistant/settings', () => ({ body: { journalAccess: true } })),
      route('GET', '/api/assistant/keys', () => ({ body: { items: [] } })),
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: { id: 'c1', title: 'AAPL', createdAt: '2024-01-02T10:00:00Z', updatedAt: '2024-01-02T10:00:00Z' }, messages: [], toolCalls: [] } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    const picker = await screen.findByLabelText('Model');
    expect(within(picker).getByRole('option', { name: /gpt-small \(\$0\.15 in \/ \$0\.60 out per million tokens\)/ })).toBeInTheDocument();
    expect(within(picker).getByRole('option', { name: 'gpt-mine (your OpenAI key: no credits)' })).toBeInTheDocument();

    // An image for a model that does not take images is flagged in words before anything is sent.
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2])], 'chart.png', { type: 'image/png' });
    await user.upload(screen.getByLabelText(/Attach a chart or screenshot/), png);
    expect(await screen.findByText('gpt-small does not accept images: pick a model that does, or remove them.')).toBeInTheDocument();
    await user.selectOptions(picker, 'claude-x');
    expect(screen.queryByText(/does not accept images/)).toBeNull();

    await user.type(screen.getByLabelText('Your question'), 'How is AAPL?');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toMatchObject({ content: 'How is AAPL?', model: 'claude-x', images: [{ data: btoa(String.fromCharCode(0x89, 0x50, 0x4e, 0x47, 1, 2)) }] });

    const step = await screen.findByText('Read your statistics');
    expect(screen.getByText('Statistics over closed positions in USD: trades 3')).not.toBeVisible();
    await user.click(step);
    expect(screen.getByText('Statistics over closed positions in USD: trades 3')).toBeVisible();
    expect(screen.getByText('Asked with: {"symbol":"AAPL"}')).toBeInTheDocument();
    expect(await screen.findByText('7 credits charged.')).toBeInTheDocument();
  });

  it('refuses a file that is not an image in words', async () => {
    mock([], route('GET', '/api/assistant/settings', () => ({ body: { journalAccess: false } })), route('GET', '/api/assistant/keys', () => ({ body: { items: [] } })));
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(await screen.findByLabelText(/Attach a chart or screenshot/), new File(['a,b'], 'trades.csv', { type: 'text/csv' }));
    expect(await screen.findByText('trades.csv is not a PNG, JPEG or WebP image.')).toBeInTheDocument();
  });

  it('turns journal access on and off explicitly', async () => {
    let access = false;
    const { calls } = mock(
      [],
      route('GET', '/api/assistant/settings', () => ({ body: { journalAccess: access } })),
      route('PUT', '/api/assistant/settings', (c: Call) => {
        access = (c.body as { journalAccess: boolean }).journalAccess;
        return { body: { journalAccess: access } };
      }),
      route('GET', '/api/assistant/keys', () => ({ body: { items: [] } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    const box = await screen.findByRole('checkbox', { name: 'Let the assistant read my journal' });
    expect(box).not.toBeChecked();
    expect(screen.getByText(/Off: nothing from your journal is sent/)).toBeInTheDocument();
    await user.click(box);
    await waitFor(() => expect(box).toBeChecked());
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([expect.objectContaining({ path: '/api/assistant/settings', body: { journalAccess: true } })]);
    expect(screen.getByText(/Your statistics, positions, notes and day journal are sent/)).toBeInTheDocument();
  });

  it('lists own keys masked, adds one, and explains a server that cannot seal keys', async () => {
    let items = [{ id: 'k1', provider: 'openai', model: 'gpt-mine', images: false, masked: '…wxyz', createdAt: '2024-01-02T10:00:00Z' }];
    let sealed = false;
    const { calls } = mock(
      [],
      route('GET', '/api/assistant/settings', () => ({ body: { journalAccess: false } })),
      route('GET', '/api/assistant/keys', () => ({ body: { items } })),
      route('POST', '/api/assistant/keys', () => {
        if (!sealed) return { status: 409, body: { error: { code: 'ENCRYPTION_REQUIRED', message: 'no key' } } };
        items = [...items, { id: 'k2', provider: 'anthropic', model: 'claude-mine', images: true, masked: '…1234', createdAt: '2024-01-03T10:00:00Z' }];
        return { status: 201, body: { key: items[1] } };
      }),
    );
    renderScreen(<Assistant />, { path, at: '/assistant' });
    const user = userEvent.setup();
    await user.click(await screen.findByText('Your own provider keys'));
    expect(await screen.findByText(/OpenAI · gpt-mine · key …wxyz/)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Provider'), 'anthropic');
    await user.type(screen.getByLabelText('Model name'), 'claude-mine');
    await user.type(screen.getByLabelText('API key'), 'sk-ant-secret-1234');
    await user.click(screen.getByRole('checkbox', { name: 'This model accepts images' }));
    await user.click(screen.getByRole('button', { name: 'Add key' }));
    expect(await screen.findByText(/This server cannot store keys safely/)).toBeInTheDocument();
    sealed = true;
    await user.click(screen.getByRole('button', { name: 'Add key' }));
    expect(await screen.findByText(/Anthropic · claude-mine · key …1234/)).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({ provider: 'anthropic', model: 'claude-mine', apiKey: 'sk-ant-secret-1234', images: true });
    expect(screen.getByLabelText('API key')).toHaveValue('');
  });

  it('words a provider failure from the done event and from a 502', async () => {
    mock(
      [
        () =>
          sse([
            ['start', { conversationId: 'c1', turnId: 't1' }],
            ['done', { conversationId: 'c1', turnId: 't1', status: 'incomplete', reason: 'provider_error', problem: 'rate_limited', usage: null, creditsCharged: 0 }],
          ]),
        () => new Response(JSON.stringify({ error: { message: 'The model provider refused your key for gpt-mine (wrong, revoked or without access to the model).' } }), { status: 502 }),
      ],
      route('GET', '/api/assistant/settings', () => ({ body: { journalAccess: false } })),
      route('GET', '/api/assistant/keys', () => ({ body: { items: [] } })),
      route('GET', '/api/assistant/conversations/c1', () => ({ body: { conversation: { id: 'c1', title: 'Q', createdAt: '2024-01-02T10:00:00Z', updatedAt: '2024-01-02T10:00:00Z' }, messages: [], toolCalls: [] } })),
    );
    renderScreen(<Assistant />, { path, at: '/assistant/c1' });
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('Your question'), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    expect(await screen.findByText(/The model provider's rate limit is reached\. Wait a minute, then retry\./)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Your question'), 'Again');
    await user.click(screen.getByRole('button', { name: 'Ask' }));
    expect(await screen.findByText('The model provider refused your key for gpt-mine (wrong, revoked or without access to the model).')).toBeInTheDocument();
  });
});
