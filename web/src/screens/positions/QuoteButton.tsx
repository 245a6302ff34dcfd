import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { client, unwrap } from '../../api/client';
import { useAppConfig } from '../../api/queries';
import { formatDateTime, formatMoney } from '../../format';
import { ErrorNote } from '../../components/ui';

/**
 * QuoteButton fetches the delayed quote of a symbol. It renders only when
 * the instance has a quote provider (config quoteLookup).
 */
export function QuoteButton({ symbol, onUse }: { symbol: string; onUse?: (price: string) => void }) {
  const config = useAppConfig();
  const [asked, setAsked] = useState<string | null>(null);
  const quote = useQuery({
    queryKey: ['quote', asked],
    queryFn: () => unwrap(client.GET('/api/symbols/{symbol}/quote', { params: { path: { symbol: asked ?? '' } } })),
    enabled: asked !== null,
    staleTime: 60_000,
    retry: false,
  });
  if (!config.data?.quoteLookup) return null;
  const sym = symbol.trim();
  return (
    <div className="quote">
      <button type="button" className="ghost" disabled={!sym} onClick={() => setAsked(sym)}>
        Get delayed quote
      </button>
      {asked && quote.isPending && <span className="muted"> Loading quote…</span>}
      {quote.data && (
        <span role="status">
          {' '}
          {quote.data.symbol} last {formatMoney(quote.data.price, quote.data.currency)} (delayed, as of {formatDateTime(quote.data.asOf)}){' '}
          {onUse && (
            <button type="button" className="link" onClick={() => onUse(quote.data.price)}>
              Use as entry price
            </button>
          )}
        </span>
      )}
      {quote.isError && <ErrorNote error={quote.error} />}
    </div>
  );
}
