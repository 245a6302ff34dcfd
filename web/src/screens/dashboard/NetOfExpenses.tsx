// The dashboard's P&L net of expenses: with "Subtract expenses" on, the
// statistics carry the period's expense charges and the net P&L after them
// (GET /api/performance?netOfExpenses=true). Trade figures stay the trades'.
import { Link } from 'react-router';
import type { Schemas } from '../../api/client';
import { DataTable, numeric } from '../../components/QueryView';
import { MissingRates } from '../../components/MissingRates';
import { formatMoney, pnlClass } from '../../format';
import { amountsText } from '../expenses/expenses';
import { monthLabel } from './calendar';
import { Tile } from './Tile';

type Report = Schemas['PerformanceReport'];

/** NetSwitch turns the expenses on and off; off by default. */
export function NetSwitch({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <label className="check">
      <input type="checkbox" role="switch" checked={on} onChange={(e) => onChange(e.target.checked)} /> Subtract expenses
    </label>
  );
}

/** expensesWhy says why the expenses' total does not exist. */
export function expensesWhy(report: Pick<Report, 'displayCurrency'>, expenses: Pick<Schemas['PerformanceExpenses'], 'missingPairs'>): string {
  if (!report.displayCurrency) return 'No display currency';
  return expenses.missingPairs.length ? 'An exchange rate is missing' : 'No total';
}

/** NetOfExpenses is the card beside the statistics: net P&L, the period's expenses, and the P&L after them, month by month. */
export function NetOfExpenses({ report, accountFiltered }: { report: Report; accountFiltered: boolean }) {
  const e = report.expenses;
  if (!e) return null;
  const c = report.displayCurrency ?? '';
  const net = report.total?.summary.netPnl ?? null;
  return (
    <section className="card" aria-labelledby="net-expenses-title">
      <h2 id="net-expenses-title">Net after expenses</h2>
      <p className="muted">
        The <Link to="/expenses">expenses</Link> charged in the filter’s dates{accountFiltered ? ', of the chosen accounts (an expense of all accounts counts only without an account filter)' : ''}, in {c || 'your display currency'}. Win rate, R and the other trade
        figures stay the trades’ own.
      </p>
      <MissingRates subject="expense total" pairs={e.missingPairs} currency={report.displayCurrency} />
      <div className="tiles" aria-label="Net after expenses">
        <Tile label="Net P&L" value={net === null ? null : formatMoney(net, c)} className={pnlClass(net)} why={report.missingPairs.length ? 'An exchange rate is missing' : 'No closed trades'} note="Trades, after fees" />
        <Tile label="Expenses" value={e.total === null ? null : formatMoney(e.total, c)} why={expensesWhy(report, e)} note={e.byCurrency.length > 1 ? amountsText(e.byCurrency) : undefined} />
        <Tile label="Net after expenses" value={report.netAfterExpenses == null ? null : formatMoney(report.netAfterExpenses, c)} className={pnlClass(report.netAfterExpenses)} why="Needs both totals" />
      </div>
      {e.total === null && e.byCurrency.length > 0 && <p>Expenses per currency: {amountsText(e.byCurrency)}</p>}
      {e.byMonth.length > 0 && (
        <DataTable caption="Net after expenses by month" columns={['Month', numeric('Expenses'), numeric('Net after expenses')]}>
          {e.byMonth
            .slice()
            .reverse()
            .map((m) => (
              <tr key={m.month}>
                <th scope="row">{monthLabel(m.month)}</th>
                <td className="num">{formatMoney(m.total, c)}</td>
                <td className={`num ${pnlClass(m.netAfterExpenses)}`}>{formatMoney(m.netAfterExpenses, c)}</td>
              </tr>
            ))}
        </DataTable>
      )}
    </section>
  );
}
