import { Link } from 'react-router';
import { formatDay, formatMoney, formatPercent, pnlClass } from '../../format';
import { FloorsChart } from './FloorsChart';
import { barPercent, resultText, ruleNames, type Plan, type Status } from './propfirm';

type Limit = NonNullable<Status['dailyLoss']>;

/** LimitBar shows how far the balance is above a loss limit's floor: the bar is the room left. */
function LimitBar({ name, limit, currency, note }: { name: string; limit: Limit; currency: string; note?: string }) {
  const left = barPercent(limit.distancePercent);
  return (
    <div className="propfirm-limit">
      <div className="row">
        <strong>{name}</strong>
        <span className={pnlClass(limit.distance.startsWith('-') ? limit.distance : null)}>
          {formatMoney(limit.distance, currency)} left ({formatPercent(limit.distancePercent)} of {formatMoney(limit.amount, currency)})
        </span>
      </div>
      <div
        className={`propfirm-bar ${left <= 20 ? 'propfirm-bar-danger' : ''}`}
        role="meter"
        aria-label={`${name}: room left`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={left}
      >
        <span style={{ width: `${left}%` }} />
      </div>
      <p className="hint">
        Floor {formatMoney(limit.floor, currency)}
        {limit.locked ? ' (locked: it trails no more)' : ''}
        {note ? ` · ${note}` : ''}
      </p>
    </div>
  );
}

/** StatusCard is a prop-firm plan's standing at a glance: the result, the distance to each limit, the objectives. */
export function StatusCard({ status: s, plan, currency }: { status: Status; plan: Plan; currency: string }) {
  const result = resultText(s, plan.phase);
  return (
    <section className="card" aria-label="Prop firm status">
      <h3>
        Status: <span className={s.result === 'failed' ? 'chip chip-warn' : 'chip'}>{result}</span>
      </h3>
      {s.breach && (
        <p role="alert" className="note note-warn">
          {ruleNames[s.breach.rule]} broken on {formatDay(s.breach.date)} by <Link to={`/positions/${s.breach.positionId}`}>this position</Link>:{' '}
          {s.breach.message}.
        </p>
      )}
      {s.result === 'passed' && s.passedOn && <p role="status">Every objective was met on {formatDay(s.passedOn)}.</p>}
      <p>
        Balance {formatMoney(s.balance, currency)} · profit <span className={pnlClass(s.profit)}>{formatMoney(s.profit, currency)}</span>
      </p>
      {s.profitTarget && (
        <div className="propfirm-limit">
          <div className="row">
            <strong>Profit target</strong>
            <span>
              {s.profitTarget.reached ? 'Reached' : `${formatMoney(s.profitTarget.remaining, currency)} to go`} ({formatPercent(s.profitTarget.progressPercent)} of{' '}
              {formatMoney(s.profitTarget.amount, currency)})
            </span>
          </div>
          <div className="propfirm-bar" role="meter" aria-label="Profit target: progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={barPercent(s.profitTarget.progressPercent)}>
            <span style={{ width: `${barPercent(s.profitTarget.progressPercent)}%` }} />
          </div>
        </div>
      )}
      {s.dailyLoss && (
        <LimitBar
          name="Daily loss limit"
          limit={s.dailyLoss}
          currency={currency}
          note={`today's loss ${formatMoney(s.dailyLoss.used, currency)}, ${formatPercent(s.dailyLoss.usedPercent)} of the limit; resets at ${plan.dayStart} ${plan.timezone}`}
        />
      )}
      {s.maxDrawdown && <LimitBar name="Maximum drawdown" limit={s.maxDrawdown} currency={currency} />}
      <ul className="plain-list">
        <li>
          Trading days: {s.tradingDays.count}
          {s.tradingDays.minimum > 0 ? ` of at least ${s.tradingDays.minimum}` : ''}
          {s.tradingDays.minimum > 0 && (s.tradingDays.met ? ' (met)' : ' (not yet)')}
        </li>
        {s.consistency && (
          <li>
            Consistency: best day {s.consistency.percent ? `${formatPercent(s.consistency.percent)} of the profit` : '— (no profit yet)'}, at most{' '}
            {formatPercent(s.consistency.limitPercent)} {s.consistency.met ? '(met)' : '(not met yet)'}
          </li>
        )}
        {s.maxContracts && (
          <li>
            Most contracts open at once: {s.maxContracts.largest} of {s.maxContracts.limit} allowed
          </li>
        )}
      </ul>
      {s.violations.length > 0 && (
        <details>
          <summary>Every rule broken ({s.violations.length})</summary>
          <ul>
            {s.violations.map((v, i) => (
              <li key={i}>
                {formatDay(v.date)}: {ruleNames[v.rule]} — <Link to={`/positions/${v.positionId}`}>position</Link>: {v.message}
                {v.fails ? '' : ' (ends the day only)'}
              </li>
            ))}
          </ul>
        </details>
      )}
      <FloorsChart days={s.days} currency={currency} />
      {s.days.length > 0 && (
        <details>
          <summary>Each day's floors</summary>
          <table className="table">
            <caption>Balance and floors by trading day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">
                  Balance at the close
                </th>
                <th scope="col" className="num">
                  Lowest known equity
                </th>
                <th scope="col" className="num">
                  Drawdown floor
                </th>
                <th scope="col" className="num">
                  Daily loss floor
                </th>
              </tr>
            </thead>
            <tbody>
              {s.days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{formatDay(d.date)}</th>
                  <td className="num">{formatMoney(d.endBalance, currency)}</td>
                  <td className="num">{formatMoney(d.low, currency)}</td>
                  <td className="num">{d.drawdownFloor ? formatMoney(d.drawdownFloor, currency) : '—'}</td>
                  <td className="num">{d.dailyLossFloor ? formatMoney(d.dailyLossFloor, currency) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      <p className="hint">
        The journal knows your closes and the MAE and MFE you record on positions, not every tick: open profit it was never told of does not
        raise a trailing floor here, and a dip never recorded does not count. Your firm's dashboard is the authority.
      </p>
    </section>
  );
}
