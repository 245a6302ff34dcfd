import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { formatDay, formatMoney, formatPercent } from '../../format';
import { ruleNames } from './propfirm';
import { propFirmKeys } from './PropFirmPanel';

/** phaseWords name the phase an account is in. */
const phaseWords = { evaluation: 'evaluation', funded: 'funded account' } as const;

/**
 * PropFirmWarnings warns on the dashboard when a prop-firm account's loss
 * today reaches the plan's share of its daily limit, or a rule failed the
 * account. Nothing shows without a plan, or while the statuses load or fail.
 */
export function PropFirmWarnings() {
  const q = useQuery({ queryKey: [...propFirmKeys.all, 'all'], queryFn: () => unwrap(client.GET('/api/prop-firm/status')) });
  const items = q.data?.items.filter((i) => i.dailyLoss?.warn || i.result === 'failed') ?? [];
  if (items.length === 0) return null;
  return (
    <div role="alert" className="note note-warn" aria-label="Prop firm warnings">
      {items.map((s) => (
        <p key={s.accountId}>
          {s.result === 'failed' && s.breach ? (
            <>
              <strong>{s.name}</strong> ({phaseWords[s.phase]}): {ruleNames[s.breach.rule].toLowerCase()} broken on {formatDay(s.breach.date)}.{' '}
            </>
          ) : null}
          {s.dailyLoss?.warn && (
            <>
              <strong>{s.name}</strong> ({phaseWords[s.phase]}): today's loss {formatMoney(s.dailyLoss.used, s.currency)} is {formatPercent(s.dailyLoss.usedPercent)} of the{' '}
              {formatMoney(s.dailyLoss.amount, s.currency)} daily limit (you warned at {s.warnAtPercent}%); {formatMoney(s.dailyLoss.distance, s.currency)} is
              left before {formatMoney(s.dailyLoss.floor, s.currency)}.{' '}
            </>
          )}
          <Link to={`/accounts?propFirm=${s.accountId}`}>See the plan</Link>
        </p>
      ))}
    </div>
  );
}
