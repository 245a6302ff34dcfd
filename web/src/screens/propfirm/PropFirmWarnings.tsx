import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { formatDay, formatMoney, formatPercent } from '../../format';
import { ruleNames } from './propfirm';
import { propFirmKeys } from './PropFirmPanel';

/**
 * PropFirmWarnings warns on the dashboard when a prop-firm account's loss
 * today reaches the plan's share of its daily limit, or a rule failed the
 * account. Nothing shows without a plan, or while the statuses load or fail.
 */
export function PropFirmWarnings() {
  const q = useQuery({ queryKey: [...propFirmKeys.all, 'all'], queryFn: () => unwrap(client.GET('/api/prop-firm/status')) });
  const items = q.data?.items.filter((i) => i.status.dailyLoss?.warn || i.status.result === 'failed') ?? [];
  if (items.length === 0) return null;
  return (
    <div role="alert" className="note note-warn" aria-label="Prop firm warnings">
      {items.map(({ accountId, name, currency, plan, status: s }) => (
        <p key={accountId}>
          {s.result === 'failed' && s.breach ? (
            <>
              <strong>{name}</strong>: {ruleNames[s.breach.rule].toLowerCase()} broken on {formatDay(s.breach.date)}.{' '}
            </>
          ) : null}
          {s.dailyLoss?.warn && (
            <>
              <strong>{name}</strong>: today's loss {formatMoney(s.dailyLoss.used, currency)} is {formatPercent(s.dailyLoss.usedPercent)} of the{' '}
              {formatMoney(s.dailyLoss.amount, currency)} daily limit (you warned at {plan.warnAtPercent}%); {formatMoney(s.dailyLoss.distance, currency)} is
              left before {formatMoney(s.dailyLoss.floor, currency)}.{' '}
            </>
          )}
          <Link to={`/accounts?propFirm=${accountId}`}>See the plan</Link>
        </p>
      ))}
    </div>
  );
}
