import { readable } from '../api/messages';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, sendForm, unwrap, type Schemas } from '../api/client';
import { useAccounts } from '../api/queries';
import { Datalists } from '../components/Datalists';
import { DataTable, numeric } from '../components/QueryView';
import { ErrorNote, Field, Loading, PageTitle, SelectField } from '../components/ui';
import { counted, formatDateTime, formatMoney, pnlClass } from '../format';
import { fieldText, headerNames, importOptions, initialImportForm, previewForm, skipAccount, type ImportForm } from './csvImport/logic';
import { UnknownPointValueNote } from './csvImport/pointValue';
import { proposedGrouping, sameGrouping, type Grouping } from './csvImport/grouping';
import { partialText, PresetNote, problemTitle, WarningGroups } from './csvImport/PreviewParts';
import { MappingRulesFields, SavedMappings } from './csvImport/SavedMappings';
import { StrategyGroups } from './csvImport/StrategyGroups';
import { plainNumber } from './positions/futures';

type Preview = Schemas['CsvImportPreview'];
type Problem = Schemas['CsvImportProblem'];

/**
 * problemMessage is a problem's message in words. Trades of several
 * accounts are sent to journal accounts with the form's "Accounts in the
 * file" (the API's message names its own options).
 */
function problemMessage(p: Problem): string {
  if (p.code === 'MULTIPLE_ACCOUNTS') {
    return 'The file holds trades of several accounts: choose under "Accounts in the file" the journal account each goes to (or skip it), then preview again.';
  }
  return readable(p.message);
}

function Problems({ title, items, total }: { title: string; items: Problem[]; total: number }) {
  if (items.length === 0) return null;
  return (
    <section aria-label={title}>
      <h3>
        {title} ({total})
      </h3>
      <DataTable columns={['Row', 'Column', 'Field', 'Problem', 'Message']}>
        {items.map((p, i) => (
          <tr key={i}>
            <td>{p.row === 0 ? 'file' : p.row}</td>
            <td>{p.column === 0 ? '—' : `${p.column}${p.columnName ? ` (${p.columnName})` : ''}`}</td>
            <td>{p.field || '—'}</td>
            <td>{problemTitle(p.code)}</td>
            <td>{problemMessage(p)}</td>
          </tr>
        ))}
      </DataTable>
      {total > items.length && <p className="muted">The first {items.length} are listed.</p>}
    </section>
  );
}

function PreviewResult({
  preview,
  presets,
  onCommitted,
}: {
  preview: Preview;
  presets: Schemas['CsvImportPreset'][];
  onCommitted: (r: Schemas['CsvImportCommitted']['import']) => void;
}) {
  const queryClient = useQueryClient();
  const [confirmDuplicates, setConfirmDuplicates] = useState(false);
  const [importPartial, setImportPartial] = useState(false);
  // The strategies the commit makes: the preview's proposal, as the trader changed it.
  const proposed = useMemo(() => proposedGrouping(preview), [preview]);
  const [groups, setGroups] = useState<Grouping>(proposed);
  const s = preview.summary;
  // A file split across accounts: each position says which it goes to.
  const split = preview.accountMap !== null;
  const accountNames = Object.fromEntries((useAccounts().data ?? []).map((a) => [a.id, a.name]));
  const commit = useMutation({
    mutationFn: () =>
      unwrap(
        client.POST('/api/csv-import/commit', {
          body: { token: preview.token ?? '', confirmDuplicates, importPartial, groupStrategies: true, ...(sameGrouping(groups, proposed) ? {} : { strategies: groups }) },
        }),
      ),
    onSuccess: (data) => {
      for (const key of ['positions', 'performance', 'accounts', 'dashboard', 'strategies']) void queryClient.invalidateQueries({ queryKey: [key] });
      onCommitted(data.import);
    },
  });
  const commitErr = commit.error instanceof ApiError ? commit.error : undefined;
  return (
    <section className="card" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <PresetNote preview={preview} presets={presets} />
      <dl className="facts">
        <dt>Rows read</dt>
        <dd>
          {s.rows}
          {s.skippedRows > 0 && ` (${s.skippedRows} skipped: not fills)`}
        </dd>
        <dt>Fills to import</dt>
        <dd>
          {s.importFills} of {s.fills}
        </dd>
        <dt>Positions</dt>
        <dd>
          {s.newPositions} new, {s.continuedPositions} continued, {s.openPositions} left open
        </dd>
        <dt>Already in the journal</dt>
        <dd>{counted(s.duplicateFills, 'fill')}</dd>
        <dt>Repeated within the file</dt>
        <dd>{counted(s.duplicatesInFile, 'row')}</dd>
        <dt>Net P&amp;L</dt>
        <dd className={pnlClass(s.netPnl)}>
          {formatMoney(s.netPnl, s.currency)} (gross {formatMoney(s.grossPnl, s.currency)}, fees {formatMoney(s.fees, s.currency)})
        </dd>
      </dl>
      <Problems title="Errors" items={preview.errors} total={preview.errorCount} />
      <UnknownPointValueNote errors={preview.errors} />
      <WarningGroups groups={preview.warningGroups} />
      {preview.canImportPartial && preview.token && (
        <label className="check">
          <input type="checkbox" checked={importPartial} onChange={(e) => setImportPartial(e.target.checked)} />
          {partialText(preview)}
        </label>
      )}
      {(preview.canCommit || (preview.canImportPartial && importPartial)) && preview.token ? (
        <>
          <StrategyGroups preview={preview} groups={groups} proposed={proposed} onChange={setGroups} />
          {s.duplicateFills > 0 && (
            <label className="check">
              <input type="checkbox" checked={confirmDuplicates} onChange={(e) => setConfirmDuplicates(e.target.checked)} />
              Also import the {counted(s.duplicateFills, 'fill')} the journal already has
            </label>
          )}
          {preview.expiresAt && <p className="hint">This preview is kept until {formatDateTime(preview.expiresAt)}.</p>}
          {commitErr?.status === 404 ? (
            <p className="note note-error" role="alert">
              This preview has expired or was already imported. Preview the file again.
            </p>
          ) : (
            <ErrorNote error={commit.error} />
          )}
          <button type="button" onClick={() => commit.mutate()} disabled={commit.isPending}>
            {commit.isPending ? 'Importing…' : 'Import'}
          </button>
        </>
      ) : preview.canImportPartial ? null : (
        <p className="note note-error" role="alert">
          {preview.errorCount > 0 ? 'Fix the errors in the file (or the mapping) and preview again: nothing can be imported yet.' : 'Nothing to import.'}
        </p>
      )}
      {preview.positions.length > 0 && (
        <details open={preview.positions.length <= 20}>
          <summary>Positions the import writes ({preview.positions.length})</summary>
          <DataTable columns={[...(split ? ['Account'] : []), 'Symbol', 'Side', 'Status', 'Opened', 'Closed', numeric('Multiplier'), numeric('Fills'), numeric('Net P&L'), 'Rows']}>
            {preview.positions.slice(0, 500).map((p, i) => (
              <tr key={i}>
                {split && <td>{accountNames[p.accountId] ?? p.accountId}</td>}
                <th scope="row">
                  {p.symbol}
                  {p.existingPositionId && <span className="chip">continues</span>}
                </th>
                <td>{p.side}</td>
                <td>{p.status}</td>
                <td>{formatDateTime(p.openedAt)}</td>
                <td>{formatDateTime(p.closedAt)}</td>
                <td className="num">×{plainNumber(p.multiplier)}</td>
                <td className="num">{p.fills}</td>
                <td className={`num ${pnlClass(p.netPnl)}`}>{formatMoney(p.netPnl, s.currency)}</td>
                <td>{p.rows.slice(0, 8).join(', ') + (p.rows.length > 8 ? '…' : '')}</td>
              </tr>
            ))}
          </DataTable>
        </details>
      )}
    </section>
  );
}

export default function CsvImport() {
  const accounts = useAccounts();
  const presets = useQuery({ queryKey: ['csv-presets'], queryFn: () => unwrap(client.GET('/api/csv-import/presets')), staleTime: Infinity });
  const [form, setForm] = useState<ImportForm>(initialImportForm);
  const [file, setFile] = useState<File | null>(null);
  const [headers, setHeaders] = useState<string[]>([]);
  const [committed, setCommitted] = useState<Schemas['CsvImportCommitted']['import'] | null>(null);
  const accountId = form.accountId || accounts.data?.find((a) => !a.archived)?.id || '';
  // An empty preset: detected from the file's header by the preview.
  const presetId = form.presetId;
  const preset = presets.data?.items.find((p) => p.id === presetId);

  useEffect(() => {
    if (!file) return;
    let live = true;
    void file
      .slice(0, 64 * 1024)
      .text()
      .then((t) => live && setHeaders(headerNames(t.split(/\r?\n/)[0] ?? '', form.delimiter)));
    return () => {
      live = false;
    };
  }, [file, form.delimiter]);

  const preview = useMutation({
    mutationFn: () => {
      if (!file) throw new Error('Choose a CSV file first.');
      return sendForm<Preview>('/api/csv-import/preview', previewForm(importOptions({ ...form, accountId, presetId }), file, file.name));
    },
    onMutate: () => setCommitted(null),
    onSuccess: (data) => {
      // A file of several accounts: keep them, to say where each goes.
      if ((data.fileAccounts ?? []).length > 1) setFileAccounts(data.fileAccounts ?? []);
    },
  });
  const err = preview.error instanceof ApiError ? preview.error : undefined;
  const [fileAccounts, setFileAccounts] = useState<Schemas['CsvImportPreview']['fileAccounts']>([]);
  // A file of times only (DAS Trader's log): the trading day is asked for.
  // A list of one chart's trades (TradeStation): the instrument is asked for.
  const asksSymbol = !!preset?.needsSymbol || !!err?.fieldError('symbol');
  const asksDate = !!preset?.needsDate || !!err?.fieldError('tradeDate') || (form.source === 'mapping' && !form.columns.date?.trim());
  const submit = (e: FormEvent) => {
    e.preventDefault();
    preview.mutate();
  };
  const fields = presets.data?.fields[form.rowShape] ?? [];
  const set = <K extends keyof ImportForm>(k: K, v: ImportForm[K]) => {
    setForm({ ...form, [k]: v });
    preview.reset();
  };
  if (accounts.data && accounts.data.length === 0) {
    return (
      <>
        <PageTitle>Import a CSV</PageTitle>
        <p className="note">
          Create an account first: <Link to="/accounts">Accounts</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <PageTitle actions={<Link to="/connections">Sync from your broker instead</Link>}>Import a CSV</PageTitle>
      <Datalists />
      <form className="card" onSubmit={submit} aria-label="Import options">
        <h2>1. File and account</h2>
        <div className="grid">
          <SelectField label="Account" value={accountId} onChange={(e) => set('accountId', e.target.value)} error={err?.fieldError('accountId')}>
            {accounts.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.currency})
              </option>
            ))}
          </SelectField>
          <Field
            label="CSV file"
            type="file"
            accept=".csv,.txt,.tsv,text/csv,text/plain"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setFileAccounts([]);
              setForm({ ...form, accountMap: {} });
              preview.reset();
            }}
            error={err?.fieldError('file')}
            hint={presets.data ? `Up to ${Math.floor(presets.data.limits.maxFileBytes / 1048576)} MB and ${presets.data.limits.maxRows.toLocaleString()} rows.` : undefined}
          />
        </div>
        <h2>2. Layout</h2>
        <div className="row" role="radiogroup" aria-label="Layout">
          <label className="check">
            <input type="radio" name="source" checked={form.source === 'preset'} onChange={() => set('source', 'preset')} />
            A broker preset
          </label>
          <label className="check">
            <input type="radio" name="source" checked={form.source === 'mapping'} onChange={() => set('source', 'mapping')} />
            Map the columns myself
          </label>
        </div>
        {form.source === 'preset' ? (
          presets.isPending ? (
            <Loading />
          ) : (
            <>
              <SelectField label="Preset" value={presetId} onChange={(e) => set('presetId', e.target.value)} error={err?.fieldError('presetId')}>
                <option value="">Detect from the file</option>
                {presets.data?.items.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </SelectField>
              {preset && (
                <p className="hint">
                  {preset.description} <strong>Export:</strong> {preset.howToExport}
                </p>
              )}
            </>
          )
        ) : (
          <>
            <div className="grid">
              <SelectField label="Row shape" value={form.rowShape} onChange={(e) => set('rowShape', e.target.value as ImportForm['rowShape'])}>
                <option value="execution">One fill per row</option>
                <option value="round-trip">One closed trade per row</option>
              </SelectField>
              <Field label="Delimiter" maxLength={3} value={form.delimiter === '\t' ? 'tab' : form.delimiter} onChange={(e) => set('delimiter', e.target.value === 'tab' ? '\t' : e.target.value)} error={err?.fieldError('mapping.delimiter')} hint='One character, or "tab".' />
              <label className="check">
                <input type="checkbox" checked={form.hasHeader} onChange={(e) => set('hasHeader', e.target.checked)} />
                First row is a header
              </label>
            </div>
            <datalist id="csv-headers">
              {headers.map((h) => (
                <option key={h} value={h} />
              ))}
            </datalist>
            <fieldset>
              <legend>Columns {form.hasHeader ? '(header text or column number)' : '(column number)'}</legend>
              <div className="grid">
                {fields.map((f) => (
                  <Field
                    key={f.field}
                    label={`Column for ${fieldText(f.field)}${f.required ? ' (required)' : ''}`}
                    list="csv-headers"
                    value={form.columns[f.field] ?? ''}
                    onChange={(e) => set('columns', { ...form.columns, [f.field]: e.target.value })}
                    error={err?.fieldError(`mapping.columns.${f.field}`)}
                  />
                ))}
              </div>
            </fieldset>
            <MappingRulesFields rules={form.rules} onChange={(r) => set('rules', r)} />
            <SavedMappings
              form={form}
              onLoad={(f) => {
                setForm(f);
                preview.reset();
              }}
            />
          </>
        )}
        <h2>3. Options</h2>
        <div className="grid">
          <Field label="File time zone" list="timezones" placeholder="the account's trading-day zone" value={form.timezone} onChange={(e) => set('timezone', e.target.value)} error={err?.fieldError('timezone')} />
          <SelectField label="Date format" value={form.dateFormat} onChange={(e) => set('dateFormat', e.target.value as ImportForm['dateFormat'])} error={err?.fieldError('dateFormat')}>
            <option value="">{form.source === 'preset' ? "The preset's" : 'ISO (2024-01-19)'}</option>
            <option value="iso">ISO 2024-01-19</option>
            <option value="us">US 01/19/2024</option>
            <option value="eu">EU 19/01/2024</option>
            <option value="iso-datetime">ISO date-time 2024-01-19T09:35:12</option>
          </SelectField>
          {asksSymbol && (
            <Field
              label="Instrument of the file"
              value={form.symbol}
              onChange={(e) => set('symbol', e.target.value)}
              error={err?.fieldError('symbol')}
              hint="The file names no symbol: the ticker (AAPL), future (/ESH25) or option its trades are in."
            />
          )}
          {asksDate && (
            <Field
              label="Trading day of the file"
              type="date"
              value={form.tradeDate}
              onChange={(e) => set('tradeDate', e.target.value)}
              error={err?.fieldError('tradeDate')}
              hint="The file has times but no dates: the day its trades were made."
            />
          )}
          <SelectField label="Number format" value={form.numberFormat} onChange={(e) => set('numberFormat', e.target.value as ImportForm['numberFormat'])} error={err?.fieldError('numberFormat')}>
            <option value="">{form.source === 'preset' ? "The preset's" : 'US 1,234.56'}</option>
            <option value="us">US 1,234.56</option>
            <option value="eu">EU 1.234,56</option>
          </SelectField>
        </div>
        {fileAccounts.length > 1 && (
          <fieldset>
            <legend>Accounts in the file</legend>
            <p className="hint">The file holds trades of {fileAccounts.length} accounts. Choose the journal account each one goes to, or skip it; they are imported together.</p>
            <div className="grid">
              {fileAccounts.map((a) => (
                <SelectField
                  key={a.account}
                  label={`${a.account} (${a.rows} rows)`}
                  value={form.accountMap[a.account] ?? ''}
                  onChange={(e) => set('accountMap', { ...form.accountMap, [a.account]: e.target.value })}
                  error={err?.fieldError(`accountMap.${a.account}`)}
                >
                  <option value="">Choose an account</option>
                  {accounts.data
                    ?.filter((j) => !j.archived)
                    .map((j) => (
                      <option key={j.id} value={j.id}>
                        {j.name} ({j.currency})
                      </option>
                    ))}
                  <option value={skipAccount}>Skip these rows</option>
                </SelectField>
              ))}
            </div>
          </fieldset>
        )}
        {err && (err.details.length === 0 || err.details.every((d) => !['accountId', 'file', 'presetId', 'timezone', 'dateFormat', 'numberFormat', 'tradeDate', 'symbol'].includes(d.field) && !d.field.startsWith('accountMap.'))) && (
          <div className="note note-error" role="alert">
            {err.status === 413 ? (
              <p>The file is too large (or has too many rows) to import at once. Split it, by year for example, and import each part.</p>
            ) : (
              <ul>
                {err.sentences().map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        {preview.error && !err && <ErrorNote error={preview.error} />}
        <button type="submit" disabled={!file || !accountId || preview.isPending}>
          {preview.isPending ? 'Reading the file…' : 'Preview import'}
        </button>
      </form>
      {committed ? (
        <section className="card" role="status" aria-labelledby="imported-title">
          <h2 id="imported-title">Imported</h2>
          <p>
            {counted(committed.fillsCreated, 'fill')} in {committed.positionsCreated} new and {committed.positionsContinued} continued positions
            {committed.strategiesCreated > 0 && `, grouped as ${committed.strategiesCreated} ${committed.strategiesCreated === 1 ? 'strategy' : 'strategies'}`}
            {committed.duplicatesSkipped > 0 && `; ${committed.duplicatesSkipped} duplicates skipped`}.
          </p>
          {committed.accounts.length > 1 && (
            <ul>
              {committed.accounts.map((a) => (
                <li key={a.accountId}>
                  <Link to={`/positions?accountId=${a.accountId}`}>{accounts.data?.find((j) => j.id === a.accountId)?.name ?? 'Account'}</Link>: {a.positionsCreated} new and{' '}
                  {a.positionsContinued} continued positions, {a.fillsCreated} fills
                </li>
              ))}
            </ul>
          )}
          <p>
            <Link to={`/positions?accountId=${committed.accountId}`}>See the positions</Link> · <Link to="/">Dashboard</Link>
          </p>
        </section>
      ) : (
        preview.data && (
          <PreviewResult key={preview.data.token ?? 'x'} preview={preview.data} presets={presets.data?.items ?? []} onCommitted={setCommitted} />
        )
      )}
    </>
  );
}
