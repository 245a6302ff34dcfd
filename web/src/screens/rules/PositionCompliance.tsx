import { Link } from 'react-router';
import { QueryView } from '../../components/QueryView';
import { ruleText, ruleTypes, usePositionCompliance, useRules } from './rules';

const statusText = { kept: 'Kept', broken: 'Broke', skipped: 'Not checked' } as const;

/**
 * PositionCompliance is the position page's breakdown of its trade (its
 * strategy's, for a leg) against the trading rules: its score, and each
 * rule in its scope kept, broken (with what happened) or not checked (why).
 */
export function PositionCompliance({ positionId }: { positionId: string }) {
  const rules = useRules();
  const query = usePositionCompliance(positionId);
  if (!rules.data?.length) return null; // no rules (or not read yet): nothing to show
  return (
    <section className="card" aria-labelledby="position-rules-title">
      <h2 id="position-rules-title">Trading rules</h2>
      <QueryView query={query}>
        {({ trade }) => {
          if (!trade) return <p className="muted">No fills yet: the rules check a trade once it has an entry.</p>;
          if (trade.rules.length === 0) return <p className="muted">None of your rules that are on applies to this trade.</p>;
          return (
            <>
              <p data-testid="trade-score">
                {trade.score === null ? (
                  'No rule could be checked yet.'
                ) : (
                  <>
                    Score <strong>{trade.score}%</strong>: kept {trade.kept} of {trade.kept + trade.broken} rule{trade.kept + trade.broken === 1 ? '' : 's'}
                    {trade.strategyId ? ' (the strategy is one trade)' : ''}.
                  </>
                )}
              </p>
              {trade.note && <p className="muted">{trade.note}</p>}
              <ul className="violations" aria-label="Rules of this trade">
                {trade.rules.map((r) => {
                  const rule = rules.data?.find((x) => x.id === r.ruleId);
                  return (
                    <li key={r.ruleId} data-status={r.status}>
                      <strong>{statusText[r.status]}:</strong> {rule ? ruleText(rule, '') : ruleTypes[r.type].label}
                      {r.message && <> — {r.message}</>}
                    </li>
                  );
                })}
              </ul>
              <p className="muted">
                <Link to="/rules">Your rules</Link>
              </p>
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
