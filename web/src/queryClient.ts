import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError, isUnauthenticated } from './api/client';

/**
 * makeQueryClient builds the client every screen shares. A 401 from any
 * query (or from a mutation of a signed-in screen) calls onUnauthenticated,
 * which sends the browser to sign in. Client errors are not retried.
 */
export function makeQueryClient(onUnauthenticated: () => void): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (err) => {
        if (isUnauthenticated(err)) onUnauthenticated();
      },
    }),
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
        if (isUnauthenticated(err) && !mutation.meta?.public) onUnauthenticated();
      },
    }),
    defaultOptions: {
      queries: {
        retry: (failures, err) => !(err instanceof ApiError && err.status < 500) && failures < 2,
        refetchOnWindowFocus: false,
        staleTime: 10_000,
      },
    },
  });
}

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: { public?: boolean };
  }
}
