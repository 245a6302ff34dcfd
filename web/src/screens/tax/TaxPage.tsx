// The tax report: the rules it follows (settings), a year's figures as the
// return asks for them, every lot with the buys that made its basis, and the
// downloads for the trader's accountant.
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { QueryView } from '../../components/QueryView';
import { PageTitle, SelectField } from '../../components/ui';
import { LotList, MissingInputs, PossiblyIdentical, Totals, WashSales } from './TaxReportView';
import { TaxSettingsForm, taxSettingsKey } from './TaxSettingsForm';
import { jurisdictionNames, latestFinishedYear, methodText, notCovered, taxYearLabel, type Jurisdiction } from './tax';

/** How many tax years back the year picker offers. */
const yearsBack = 15;

function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** yearChoices are the tax years to pick from, newest first (the one in progress too), with year among them. */
export function yearChoices(jurisdiction: Jurisdiction, now: string, year: number): number[] {
  const newest = latestFinishedYear(jurisdiction, now) + 1;
  const years = Array.from({ length: yearsBack + 1 }, (_, i) => newest - i);
  if (!years.includes(year)) years.push(year);
  return years.sort((a, b) => b - a);
}

function Method({ jurisdiction }: { jurisdiction: Jurisdiction }) {
  return (
    <section className="card" aria-labelledby="tax-method-title">
      <h2 id="tax-method-title">How this report counts</h2>
      <p>{methodText(jurisdiction)}</p>
      <details>
        <summary>What the {jurisdictionNames[jurisdiction]} rules here do not cover</summary>
        <ul>
          {notCovered(jurisdiction).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </details>
    </section>
  );
}

function Report({ jurisdiction }: { jurisdiction: Jurisdiction }) {
  const [params, setParams] = useSearchParams();
  const now = today();
  const asked = Number(params.get('year'));
  const year = Number.isInteger(asked) && asked >= 1970 && asked <= 9998 ? asked : latestFinishedYear(jurisdiction, now);
  const report = useQuery({
    queryKey: ['tax', 'report', jurisdiction, year],
    queryFn: () => unwrap(client.GET('/api/tax/report', { params: { query: { year } } })),
  });
  const setYear = (y: string) => {
    const next = new URLSearchParams(params);
    next.set('year', y);
    setParams(next, { replace: true });
  };
  const query = `year=${year}`;
  return (
    <>
      <section className="card" aria-labelledby="tax-year-title">
        <h2 id="tax-year-title" className="sr-only">
          Year and downloads
        </h2>
        <div className="row tax-year">
          <SelectField label="Tax year" value={String(year)} onChange={(e) => setYear(e.target.value)}>
            {yearChoices(jurisdiction, now, year).map((y) => (
              <option key={y} value={y}>
                {taxYearLabel(jurisdiction, y)}
              </option>
            ))}
          </SelectField>
          <div className="actions">
            {jurisdiction === 'us' && (
              <a className="button ghost" href={`/api/tax/report/form-8949.csv?${query}`} download>
                Download Form 8949 (CSV)
              </a>
            )}
            <a className="button ghost" href={`/api/tax/report/lots.csv?${query}`} download>
              Download the lots (CSV)
            </a>
          </div>
        </div>
        <p className="muted">
          {jurisdictionNames[jurisdiction]} rules, {jurisdiction === 'uk' ? 'tax year' : 'year'} {taxYearLabel(jurisdiction, year)}
          {report.data ? `, amounts in ${report.data.currency}` : ''}.
        </p>
      </section>
      <QueryView query={report}>
        {(r) => {
          const names = new Map(r.accounts.map((a) => [a.id, a.name]));
          return (
            <>
              <MissingInputs missing={r.missing} names={names} />
              <Totals report={r} />
              <WashSales report={r} names={names} />
              <PossiblyIdentical report={r} names={names} />
              <LotList report={r} names={names} />
            </>
          );
        }}
      </QueryView>
    </>
  );
}

export default function TaxPage() {
  const settings = useQuery({ queryKey: taxSettingsKey, queryFn: () => unwrap(client.GET('/api/tax/settings')) });
  return (
    <>
      <PageTitle>Tax report</PageTitle>
      <p className="muted">
        A worksheet for you and your accountant, not tax advice: it files nothing. Every figure comes from the trades in your journal, and every input it lacks is named rather than counted as zero.
      </p>
      <QueryView query={settings}>
        {(s) =>
          s.jurisdiction === null ? (
            <TaxSettingsForm settings={s} />
          ) : (
            <>
              <Report jurisdiction={s.jurisdiction} />
              <TaxSettingsForm settings={s} />
              <Method jurisdiction={s.jurisdiction} />
            </>
          )
        }
      </QueryView>
    </>
  );
}
