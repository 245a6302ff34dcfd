import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { formatDateTime, formatMoney } from '../../format';

type Summary = Schemas['PositionSummary'];

/** usePositionsOn lists the account's positions on an underlying (its options and its shares), newest first. */
export function usePositionsOn(accountId: string, underlying: string) {
  const symbol = underlying.trim().toUpperCase();
  return useQuery({
    queryKey: ['positions', 'list', { accountId, symbols: symbol, limit: 200 }],
    enabled: accountId !== '' && symbol !== '',
    queryFn: () => unwrap(client.GET('/api/positions', { params: { query: { accountId: [accountId], symbols: [symbol], limit: 200 } } })),
  });
}

/** LegPicker lists positions to tick as a strategy's legs. */
export function LegPicker({ positions, chosen, onChange, currency }: { positions: Summary[]; chosen: string[]; onChange: (ids: string[]) => void; currency: string | undefined }) {
  if (positions.length === 0) return <p className="muted">No positions on this underlying in the account yet: record the legs first, then group them here.</p>;
  return (
    <fieldset className="leg-picker">
      <legend>Legs</legend>
      {positions.map((p) => (
        <label key={p.id} className="check">
          <input type="checkbox" checked={chosen.includes(p.id)} onChange={(e) => onChange(e.target.checked ? [...chosen, p.id] : chosen.filter((id) => id !== p.id))} />
          {p.side} {p.symbol} · {p.status} · opened {formatDateTime(p.openedAt)} · {formatMoney(p.netPnl, currency)}
        </label>
      ))}
    </fieldset>
  );
}
