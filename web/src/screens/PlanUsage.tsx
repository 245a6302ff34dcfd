// The user's plan: which (free or Pro), and each limit of the free plan
// with what they use of it, in Settings and on the Billing page.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { client, unwrap, type Schemas } from '../api/client';
import { useAppConfig } from '../api/queries';
import { DataTable, numeric, QueryView } from '../components/QueryView';
import { formatBytes } from '../format';

type Limit = Schemas['Plan']['limits'][number];

/** What each limit counts, as the page names it. */
export const limitNames: Record<Limit['name'], string> = {
  accounts: 'Active accounts (archived ones do not count)',
  positions: 'Positions',
  storageBytes: 'Screenshot storage',
  importsPerDay: 'CSV imports in 24 hours',
};

/** amount writes a limit's figure: bytes as a size, counts in the user's number format. */
export function amount(name: Limit['name'], n: number): string {
  return name === 'storageBytes' ? formatBytes(n) : new Intl.NumberFormat().format(n);
}

export const planKey = ['plan'] as const;

export function PlanUsage() {
  const plan = useQuery({ queryKey: planKey, queryFn: () => unwrap(client.GET('/api/users/me/plan')) });
  const config = useAppConfig();
  return (
    <section className="card" aria-labelledby="plan-title">
      <h2 id="plan-title">Your plan</h2>
      <QueryView query={plan}>
        {(p) => {
          const limited = p.limits.some((l) => l.freeLimit !== null);
          const over = p.limits.filter((l) => l.limit !== null && l.used >= l.limit);
          return (
            <>
              <p>
                {p.plan === 'pro'
                  ? 'You have Pro: no limits.'
                  : limited
                    ? 'You are on the free plan.'
                    : 'You are on the free plan. This journal sets no limits on it.'}
              </p>
              <DataTable columns={['Limit', numeric('You use'), numeric('Free plan allows'), numeric('Pro allows')]} caption="Your usage and the plans' limits">
                {p.limits.map((l) => (
                  <tr key={l.name}>
                    <th scope="row">{limitNames[l.name]}</th>
                    <td className="num">{amount(l.name, l.used)}</td>
                    <td className="num">{l.freeLimit === null ? 'no limit' : amount(l.name, l.freeLimit)}</td>
                    <td className="num">no limit</td>
                  </tr>
                ))}
              </DataTable>
              {over.length > 0 && (
                <p className="note" role="status">
                  You have reached the free plan's limit of {over.map((l) => limitNames[l.name].replace(/ \(.*\)$/, '').toLowerCase()).join(' and ')}. Everything you have stays readable and
                  editable; to add more, archive or delete something
                  {p.proPlanAvailable ? (
                    <>
                      , or upgrade to Pro on the {config.data?.billing ? <Link to="/billing">Billing page</Link> : 'Billing page'}.
                    </>
                  ) : (
                    ', or ask the administrator of this journal for a higher limit.'
                  )}
                </p>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
