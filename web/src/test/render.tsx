// Test helpers: render a screen with the app's providers and answer its
// requests from a table of fake API responses.
import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';
import { makeQueryClient } from '../queryClient';

export interface Call {
  method: string;
  path: string;
  search: string;
  body: unknown;
}

type Handler = (call: Call) => { status?: number; body?: unknown } | undefined;

/** mockApi replaces fetch: each request is recorded and answered by the first handler that answers. */
export function mockApi(...handlers: Handler[]) {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const url = new URL(req.url);
    const text = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* multipart or text */
    }
    const call = { method: req.method, path: url.pathname, search: url.search, body };
    calls.push(call);
    for (const h of handlers) {
      const res = h(call);
      if (res) {
        const status = res.status ?? 200;
        return new Response(status === 204 ? null : JSON.stringify(res.body ?? {}), { status, headers: { 'Content-Type': 'application/json' } });
      }
    }
    return new Response(JSON.stringify({ error: { message: 'not found' } }), { status: 404, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/** route answers one method and path. */
export function route(method: string, path: string, respond: (call: Call) => { status?: number; body?: unknown }): Handler {
  return (call) => (call.method === method && call.path === path ? respond(call) : undefined);
}

/** renderScreen renders element at path inside the app's query client and a memory router. */
export function renderScreen(element: ReactElement, { path = '/', at = path }: { path?: string; at?: string } = {}) {
  const onUnauthenticated = vi.fn();
  const queryClient = makeQueryClient(onUnauthenticated);
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '/signin', element: <p>sign-in screen</p> },
      { path: '*', element: <p>elsewhere</p> },
    ],
    { initialEntries: [at] },
  );
  const result = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...result, router, queryClient, onUnauthenticated };
}
