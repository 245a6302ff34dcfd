// One assistant turn: POST .../messages/stream and the server-sent events of
// its answer, read from the fetch body as they arrive.
import { ApiError, type Schemas } from '../../api/client';
import { readEvents } from './sse';

export type StartEvent = Schemas['AssistantStartEvent'];
export type DoneEvent = Schemas['AssistantDoneEvent'];

/** ToolStep is a tool the model called, and its result once it has one. */
export interface ToolStep {
  id: string;
  name: string;
  arguments: unknown;
  result?: string;
}

export interface TurnRequest {
  /** A conversation id, or "new" to start one. */
  conversation: string;
  content: string;
  /** The same key for a retry of the same submit, so it is not charged twice. */
  idempotencyKey: string;
  /** A model id of GET /api/assistant/models; left out, the server's default. */
  model?: string | undefined;
  /** Attached images, base64. */
  images?: Array<{ data: string }> | undefined;
  /** Only with "new": the conversation's persona, and what it reviews. */
  personaId?: string;
  context?: Schemas['AssistantReview'];
}

export interface TurnListener {
  onStart(e: StartEvent): void;
  onDelta(text: string): void;
  onToolCall?(step: ToolStep): void;
  onToolResult?(id: string, result: string): void;
}

/**
 * streamTurn asks the question and reports the answer as it streams. It
 * resolves with the done event, or null when the stream ended without one
 * (the connection was cut: a retry with the same key replays the stored
 * answer). A refusal before the stream (402, 409, 400, ...) throws an
 * ApiError; aborting signal throws the fetch's AbortError.
 */
export async function streamTurn(req: TurnRequest, listener: TurnListener, signal: AbortSignal): Promise<DoneEvent | null> {
  const url = new URL(`/api/assistant/conversations/${encodeURIComponent(req.conversation)}/messages/stream`, window.location.origin);
  const response = await globalThis.fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ content: req.content, idempotencyKey: req.idempotencyKey, model: req.model, images: req.images?.length ? req.images : undefined, personaId: req.personaId, context: req.context }),
    signal,
  });
  if (!response.ok || !response.body) {
    const body: unknown = await response.json().catch(() => undefined);
    throw new ApiError(response.status, body);
  }
  for await (const e of readEvents(response.body)) {
    const data = parseJson(e.data);
    if (data === undefined) continue;
    switch (e.event) {
      case 'start':
        listener.onStart(data as StartEvent);
        break;
      case 'delta': {
        const content = (data as { content?: unknown }).content;
        if (typeof content === 'string') listener.onDelta(content);
        break;
      }
      case 'tool_call': {
        const c = data as { id?: unknown; name?: unknown; arguments?: unknown };
        if (typeof c.id === 'string' && typeof c.name === 'string') listener.onToolCall?.({ id: c.id, name: c.name, arguments: c.arguments });
        break;
      }
      case 'tool_result': {
        const r = data as { id?: unknown; result?: unknown };
        if (typeof r.id === 'string' && typeof r.result === 'string') listener.onToolResult?.(r.id, r.result);
        break;
      }
      case 'done':
        return data as DoneEvent;
      default: // an event this client does not know: newer servers may add some
    }
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
