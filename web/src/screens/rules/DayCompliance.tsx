import { Link } from 'react-router';
import { errorText } from '../../api/client';
import { formatDay } from '../../format';
import { brokenRuleText, brokenRules, ruleTypes, useDayCompliance, useRules } from './rules';

/**
 * DayCompliance is one trading day's compliance with the user's rules: its
 * score, each rule it broke on one line with its count, and the trades
 * that broke it under that line, in words.
 */
export function DayCompliance({ date }: { date: string }) {
  const { day, query } = useDayCompliance(date);
  const rules = useRules();
  const title = `Rules on ${formatDay(date)}`;
  if (query.isPending && rules.data?.length !== 0) {
    return (
      <p className="loading" role="status">
        Checking the rules of {formatDay(date)}…
      </p>
    );
  }
  if (query.isError) {
    return (
      <p className="note note-error" role="alert">
        {errorText(query.error)}
      </p>
    );
  }
  if (rules.data?.length === 0) {
    return (
      <section className="card" aria-label={title}>
        <h2>{title}</h2>
        <p className="muted">
          You have no trading rules yet. <Link to="/rules">Set your rules</Link> to see how each day keeps them.
        </p>
      </section>
    );
  }
  return (
    <section className="card day-compliance" aria-label={title}>
      <h2>{title}</h2>
      {!day ? (
        <p className="muted">No trades on this day.</p>
      ) : day.score === null ? (
        <p className="muted">None of your enabled rules applies to this day.</p>
      ) : (
        <>
          <p data-testid="day-score">
            Score <strong>{day.score}%</strong>: kept {day.kept} of {day.kept + day.broken} rule{day.kept + day.broken === 1 ? '' : 's'}.
          </p>
          {day.violations.length > 0 && (
            <ul className="violations" aria-label="Rules broken">
              {brokenRules(day.violations).map((g) => (
                <li key={g.ruleId}>
                  <strong>{brokenRuleText(g)}</strong>
                  <ul aria-label={`Trades that broke ${ruleTypes[g.type].label}`}>
                    {g.trades.map((v, i) => (
                      <li key={`${v.strategyId ?? v.positionIds.join()}-${i}`}>
                        {v.message}
                        {v.strategyId ? (
                          <>
                            {' '}
                            <Link to={`/strategies/${v.strategyId}`}>Open the strategy</Link>
                          </>
                        ) : (
                          v.positionIds.length === 1 && (
                            <>
                              {' '}
                              <Link to={`/positions/${v.positionIds[0]}`}>Open the trade</Link>
                            </>
                          )
                        )}
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
          {day.rules
            .filter((r) => r.status === 'skipped')
            .map((r) => (
              <p key={r.ruleId} className="muted">
                {ruleTypes[r.type].label} was not checked: {r.reason}
              </p>
            ))}
        </>
      )}
    </section>
  );
}
