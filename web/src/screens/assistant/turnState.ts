// The assistant screen's running turn: what was asked, what has streamed,
// and how it ended. Kept apart from the view so the rules are testable.
import { ApiError, type Schemas } from '../../api/client';
import type { DoneEvent, ToolStep } from './stream';

export interface Turn {
  /** The path segment the question was sent to: a conversation id or "new". */
  conversation: string;
  content: string;
  /** Reused by a retry of this submit. */
  idempotencyKey: string;
  /** A new conversation's persona and review, sent again by a retry. */
  personaId?: string;
  context?: Schemas['AssistantReview'];
  /** From the start event. */
  conversationId?: string;
  turnId?: string;
  answer: string;
  /** The model picked for this turn (reused by a retry). */
  model?: string | undefined;
  images?: Array<{ data: string }> | undefined;
  /** The tools the model called so far, in order. */
  tools?: ToolStep[];
  state: 'streaming' | 'done' | 'stopped' | 'cut' | 'failed';
  /** Stop aborts the turn's request through it. */
  controller: AbortController;
  done?: DoneEvent;
  error?: unknown;
}

/** canRetry: a retry with the same key is useful after a cut stream or a refusal that may pass later. */
export function canRetry(t: Turn): boolean {
  if (t.state === 'cut') return true;
  if (t.state !== 'failed') return false;
  if (!(t.error instanceof ApiError)) return true; // the network
  return t.error.status !== 400 && t.error.status !== 404 && t.error.code !== 'CONFLICT';
}

const endReasons: Record<string, string> = {
  budget: 'it reached the time limit for one answer',
  disconnect: 'it was stopped',
  provider_error: "the assistant's model provider failed",
  insufficient_credits: 'your credits ran out before the assistant could look further',
  error: 'of an error on the server',
};

/** incompleteText explains an answer cut short, from the done event's reason. */
export function incompleteText(reason: string): string {
  return `The answer is incomplete: ${endReasons[reason] ?? 'it was cut short'}.`;
}

const problems: Record<string, string> = {
  key_invalid: 'The model provider refused the API key (wrong, revoked, or without access to this model). Check the key, or pick another model.',
  rate_limited: "The model provider's rate limit is reached. Wait a minute, then retry.",
  overloaded: 'The model provider is overloaded right now. Retry in a moment, or pick another model.',
  context_too_long: 'This conversation is too long for the model. Start a new conversation, or pick a model with a longer context.',
  unavailable: 'The model provider stopped answering. Retry in a moment.',
};

/** problemText words a provider failure named by the done event, or undefined for none. */
export function problemText(problem: string | undefined): string | undefined {
  return problem ? (problems[problem] ?? problems.unavailable) : undefined;
}
