import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { formatDateTime, formatMoney } from '../../format';
import { legName, occText, onUnderlying, sortLegs } from './legs';

type Summary = Schemas['PositionSummary'];

/**
 * usePositionsOn lists the account's options on an underlying and its shares (futures are never legs), newest first;
 * with openOnly, only the open ones. The API narrows the list; the positions of another account or underlying are
 * also kept out here, should any come back.
 */
export function usePositionsOn(accountId: string, underlying: string, { openOnly = false }: { openOnly?: boolean } = {}) {
  const symbol = underlying.trim().toUpperCase();
  const query = {
    accountId: [accountId],
    symbol: [symbol],
    assetType: ['option', 'stock'] as Array<'option' | 'stock'>,
    ...(openOnly ? { status: 'open' as const } : {}),
    limit: 200,
  };
  return useQuery({
    queryKey: ['positions', 'list', query],
    enabled: accountId !== '' && symbol !== '',
    // A chooser: always the account's positions as they are now (some may have come from an import or the API).
    staleTime: 0,
    queryFn: () => unwrap(client.GET('/api/positions', { params: { query } })),
    select: (page) => ({ ...page, items: page.items.filter((p) => onUnderlying(p, accountId, symbol) && (!openOnly || p.status === 'open')) }),
  });
}

/** LegPicker lists positions to tick as a strategy's legs, in the legs' order and words. */
export function LegPicker({ positions, chosen, onChange, currency }: { positions: Summary[]; chosen: string[]; onChange: (ids: string[]) => void; currency: string | undefined }) {
  if (positions.length === 0) return <p className="muted">No positions on this underlying in the account yet: record the legs first, then group them here.</p>;
  return (
    <fieldset className="leg-picker">
      <legend>Legs</legend>
      {sortLegs(positions).map((p) => (
        <label key={p.id} className="check">
          <input type="checkbox" checked={chosen.includes(p.id)} onChange={(e) => onChange(e.target.checked ? [...chosen, p.id] : chosen.filter((id) => id !== p.id))} />
          <span>
            {p.side} {legName(p)}
            {p.assetType === 'option' && legName(p) !== occText(p) && <span className="muted"> ({occText(p)})</span>}
            {` · ${p.status} · opened ${formatDateTime(p.openedAt)} · ${formatMoney(p.netPnl, currency)}`}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
