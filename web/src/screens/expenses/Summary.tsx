// The expenses of the chosen range in the display currency, by category and
// by month (GET /api/expenses/summary), with the missing exchange rates named.
import { useQuery } from '@tanstack/react-query';
import { client, unwrap, type Schemas } from '../../api/client';
import { DataTable, numeric, QueryView } from '../../components/QueryView';
import { MissingRates } from '../../components/MissingRates';
import { formatDay, formatMoney } from '../../format';
import { monthLabel } from '../dashboard/calendar';
import { amountsText, categoryName } from './expenses';

type Amounts = Schemas['ExpenseAmounts'];

/** amountText is a sum in the display currency, else in each currency it holds. */
export function amountText(a: Amounts, currency: string | null): string {
  return a.converted !== null && currency ? formatMoney(a.converted, currency) : amountsText(a.amounts);
}

/** rangeText names the summary's range in words: "from Jan 1, 2025 to Mar 31, 2025", "all time". */
export function rangeText(from: string | null, to: string | null): string {
  if (from && to) return `from ${formatDay(from)} to ${formatDay(to)}`;
  if (from) return `from ${formatDay(from)} on`;
  if (to) return `up to ${formatDay(to)}`;
  return 'all time';
}

export function ExpenseSummary({ from, to }: { from: string; to: string }) {
  const summary = useQuery({
    queryKey: ['expenses', 'summary', from, to],
    queryFn: () => unwrap(client.GET('/api/expenses/summary', { params: { query: { ...(from ? { from } : {}), ...(to ? { to } : {}) } } })),
  });
  return (
    <section className="card" aria-labelledby="expense-summary-title">
      <h2 id="expense-summary-title">Summary</h2>
      <QueryView query={summary}>
        {(s) => {
          const c = s.displayCurrency;
          return (
            <>
              <MissingRates subject="expense total" pairs={s.missing.map((m) => m.pair)} currency={c} />
              <p>
                Charged {rangeText(s.from, s.to)}: <strong data-testid="expense-total">{amountText(s.total, c)}</strong>
                {c && s.total.converted !== null && <span className="muted"> (at the rates of {formatDay(s.rateDay)})</span>}
              </p>
              {s.byCategory.length === 0 ? (
                <p className="muted">No charges in this range.</p>
              ) : (
                <div className="grid-2">
                  <section aria-label="Expenses by category">
                    <h3>By category</h3>
                    <DataTable caption="Expenses by category" columns={['Category', numeric('Charged')]}>
                      {s.byCategory.map((b) => (
                        <tr key={b.category}>
                          <th scope="row">{categoryName(b.category, b.name)}</th>
                          <td className="num">{amountText(b, c)}</td>
                        </tr>
                      ))}
                    </DataTable>
                  </section>
                  <section aria-label="Expenses by month">
                    <h3>By month</h3>
                    <DataTable caption="Expenses by month" columns={['Month', numeric('Charged')]}>
                      {s.byMonth.map((b) => (
                        <tr key={b.month}>
                          <th scope="row">{monthLabel(b.month)}</th>
                          <td className="num">{amountText(b, c)}</td>
                        </tr>
                      ))}
                    </DataTable>
                  </section>
                </div>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
