import { useEffect, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';

/** useDebounced returns value once it has stopped changing for ms milliseconds. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

/**
 * useSettledQuery asks the server about a form once typing pauses: the request is debounced on its JSON text (300 ms),
 * nothing is asked while it is null, and the last answer stays shown meanwhile. stale is true while what is shown is
 * not the answer to what the form says now (the screens dim it).
 */
export function useSettledQuery<Req, Res>(key: string, request: Req | null, ask: (body: Req) => Promise<Res>) {
  const requestText = JSON.stringify(request);
  const settledText = useDebounced(requestText, 300);
  const query = useQuery({
    queryKey: [key, settledText],
    queryFn: () => ask(JSON.parse(settledText) as Req),
    enabled: settledText !== 'null',
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Infinity,
  });
  return { query, stale: query.isPlaceholderData || settledText !== requestText };
}
