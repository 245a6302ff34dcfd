// The typed API client (types generated from api/openapi.yaml by
// `npm run gen:api`) and the one error type every screen handles.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';
import { detailSentence, errorSentences, type MessageOptions } from './messages';

export type Schemas = components['schemas'];

export const client = createClient<paths>({
  // Same origin as the page (the web container proxies /api/).
  baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
  credentials: 'same-origin',
  // Looked up per call, so tests can replace fetch.
  fetch: (request: Request) => globalThis.fetch(request),
});

export interface FieldError {
  field: string;
  message: string;
}

/** ApiError is a non-2xx answer in the API's error shape. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly details: FieldError[];

  constructor(status: number, body: unknown) {
    const err = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    super(typeof err?.message === 'string' && err.message !== '' ? err.message : `Request failed (${status})`);
    this.name = 'ApiError';
    this.status = status;
    this.code = typeof err?.code === 'string' ? err.code : undefined;
    this.details = Array.isArray(err?.details)
      ? err.details.filter(
          (d): d is FieldError => typeof d === 'object' && d !== null && typeof d.field === 'string' && typeof d.message === 'string',
        )
      : [];
  }

  /**
   * fieldError is the sentence for the first detail naming field (or a
   * nested field under it), with the field named as the form labels it.
   */
  fieldError(field: string, options?: MessageOptions): string | undefined {
    const d = this.details.find((d) => d.field === field || d.field.startsWith(field + '.') || d.field.startsWith(field + '['));
    return d && detailSentence(d, options);
  }

  /** sentences are what a person reads for this error: one per invalid field, or one for the answer. */
  sentences(options?: MessageOptions): string[] {
    return errorSentences(this, options);
  }
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** unwrap turns an openapi-fetch result into its data or a thrown ApiError. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, error);
  return data as T;
}

/** sendForm posts multipart form data (image upload, CSV import). */
export async function sendForm<T>(path: string, form: FormData): Promise<T> {
  const response = await fetch(new URL(path, window.location.origin), { method: 'POST', body: form, credentials: 'same-origin' });
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, body);
  return body as T;
}

export function isUnauthenticated(err: unknown): boolean {
  return err instanceof ApiError && err.status === 401;
}

/** errorText is what a screen shows for a failed request, in sentences (api/messages.ts). */
export function errorText(err: unknown, options?: MessageOptions): string {
  if (err instanceof ApiError) return err.sentences(options).join(' ');
  // Chromium, Firefox and Safari word a failed fetch differently.
  if (err instanceof Error && /^(Failed to fetch|NetworkError|Load failed)/.test(err.message)) {
    return 'The server could not be reached. Check your connection and try again.';
  }
  if (err instanceof Error) return err.message;
  return 'Something went wrong. Try again.';
}
