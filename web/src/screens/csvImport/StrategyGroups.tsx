// The import preview's strategies: the legs each multi-leg order opened
// together, which the trader splits (a leg taken out, a strategy ungrouped)
// or merges (ticked legs grouped as one) before the commit.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { calculatorLegs, candidates, merge, mergeProblem, proposedLabel, sameGrouping, takeOut, underlyingOf, ungroup, type Grouping } from './grouping';

type Preview = Schemas['CsvImportPreview'];

/** legText names a leg as the trader knows it: side, symbol, and what it opened with. */
function legText(p: Schemas['CsvImportProposedPosition']): string {
  const at = p.avgEntryPrice === null ? '' : ` @ ${p.avgEntryPrice}`;
  return `${p.side} ${p.symbol.replace(/\s+/g, ' ')} · ${p.entryQuantity}${at}`;
}

/**
 * GroupLabel names a strategy: the preview's label for a group it proposed as it is, else what the options strategy
 * calculator (the same engine, server-side) calls the legs; "Custom strategy" when it cannot say.
 */
function GroupLabel({ preview, group }: { preview: Preview; group: number[] }) {
  const proposed = proposedLabel(preview, group);
  const legs = proposed === null ? calculatorLegs(preview, group) : null;
  const named = useQuery({
    queryKey: ['csv-import-strategy-label', legs],
    enabled: legs !== null,
    queryFn: () => unwrap(client.POST('/api/calculator/strategy', { body: { legs: legs ?? [] } })),
    retry: false,
    staleTime: Infinity,
  });
  if (proposed !== null) return <>{proposed || 'Custom strategy'}</>;
  if (legs === null || named.isError) return <>Custom strategy</>;
  return <>{named.data?.label ?? 'Naming the legs…'}</>;
}

/**
 * StrategyGroups shows the strategies the import will make and lets the trader change them: take a leg out, ungroup a
 * strategy, or tick new positions on one underlying and group them as one. Nothing when the file opens nothing to group.
 */
export function StrategyGroups({ preview, groups, proposed, onChange }: { preview: Preview; groups: Grouping; proposed: Grouping; onChange: (g: Grouping) => void }) {
  const [ticked, setTicked] = useState<number[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const choices = candidates(preview);
  if (choices.length === 0 && groups.length === 0) return null;
  const groupOf = new Map(groups.flatMap((g, n) => g.map((i) => [i, n] as const)));
  const change = (next: Grouping) => {
    setProblem(null);
    onChange(next);
  };
  const groupTicked = () => {
    const why = mergeProblem(preview, ticked);
    setProblem(why);
    if (why) return;
    onChange(merge(groups, ticked));
    setTicked([]);
  };
  const changed = !sameGrouping(groups, proposed);
  return (
    <section className="note" aria-labelledby="strategies-title" data-testid="proposed-strategies">
      <h3 id="strategies-title">Strategies</h3>
      <p>
        {proposed.length > 0
          ? 'Legs opened together as one order are grouped as one strategy. Take a leg out, or ungroup a strategy, to keep legs as positions of their own.'
          : 'No legs of this file were opened together as one order.'}{' '}
        You can also group, split or roll legs later under Strategies.
      </p>
      {groups.length === 0 ? (
        <p className="muted">No strategies: every leg stays a position of its own.</p>
      ) : (
        groups.map((g, n) => {
          const first = preview.positions[g[0] ?? -1];
          return (
            <div key={g.join(',')} role="group" aria-label={`Strategy ${n + 1}`}>
              <p>
                <strong>
                  <GroupLabel preview={preview} group={g} />
                </strong>{' '}
                on {first ? underlyingOf(first) : ''}, {g.length} legs{' '}
                <button type="button" className="link" onClick={() => change(ungroup(groups, n))}>
                  Ungroup
                </button>
              </p>
              <ul>
                {g.map((i) => {
                  const p = preview.positions[i];
                  if (!p) return null;
                  return (
                    <li key={i}>
                      {legText(p)}{' '}
                      <button type="button" className="link" aria-label={`Take ${legText(p)} out of this strategy`} onClick={() => change(takeOut(groups, i))}>
                        Take out
                      </button>
                    </li>
                  );
                })}
              </ul>
            </div>
          );
        })
      )}
      {choices.length > 0 && (
        <details open={choices.length <= 20}>
          <summary>Group legs yourself ({choices.length} new positions)</summary>
          <fieldset>
            <legend>Legs to group</legend>
            <p className="hint">Tick new positions on one underlying, then group them as one strategy; a ticked leg leaves the strategy it was in.</p>
            {choices.map((i) => {
              const p = preview.positions[i];
              if (!p) return null;
              const n = groupOf.get(i);
              return (
                <label key={i} className="check">
                  <input
                    type="checkbox"
                    checked={ticked.includes(i)}
                    onChange={(e) => setTicked(e.target.checked ? [...ticked, i] : ticked.filter((t) => t !== i))}
                  />
                  {legText(p)}
                  {n !== undefined && ` (in strategy ${n + 1})`}
                </label>
              );
            })}
            {problem && (
              <p className="note note-error" role="alert">
                {problem}
              </p>
            )}
            <button type="button" onClick={groupTicked}>
              Group as one strategy
            </button>
          </fieldset>
        </details>
      )}
      {(changed || groups.length > 1) && (
        <p>
          {groups.length > 1 && (
            <button type="button" className="link" onClick={() => change([])}>
              Ungroup all
            </button>
          )}
          {changed && groups.length > 1 && ' · '}
          {changed && (
            <button type="button" className="link" onClick={() => change(proposed)}>
              Back to the proposed strategies
            </button>
          )}
        </p>
      )}
    </section>
  );
}
