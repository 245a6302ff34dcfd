import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, errorText, unwrap, type Schemas } from '../../api/client';
import { useAccounts, useMe } from '../../api/queries';
import { DataTable, QueryList } from '../../components/QueryView';
import { ConfirmButton, ErrorNote, Field, FormActions, PageTitle, SelectField } from '../../components/ui';
import { fieldLabel, ruleText, ruleTypes, typeOrder, weekdayNames, useRules, type ParamName, type Rule, type RuleParams, type RuleType } from './rules';

type Account = Schemas['Account'];

/** Draft is a rule form's state: every parameter as the person types it. */
interface Draft {
  type: RuleType;
  accountId: string; // '' is every account
  enabled: boolean;
  values: Partial<Record<Exclude<ParamName, 'weekdays'>, string>>;
  weekdays: number[];
}

const emptyDraft: Draft = { type: 'maxTradesPerDay', accountId: '', enabled: true, values: {}, weekdays: [] };

function draftOf(rule: Rule): Draft {
  const { weekdays, count, ...rest } = rule.params;
  const values: Draft['values'] = { ...(rest as Record<string, string>) };
  if (count !== undefined) values.count = String(count);
  return { type: rule.type, accountId: rule.accountId ?? '', enabled: rule.enabled, values, weekdays: weekdays ?? [] };
}

/** paramsOf is the API's params of a draft: only the type's fields, blanks left out. */
export function paramsOf(d: Draft): RuleParams {
  const out: Record<string, unknown> = {};
  for (const name of ruleTypes[d.type].fields) {
    if (name === 'weekdays') {
      if (d.weekdays.length) out.weekdays = d.weekdays;
      continue;
    }
    const v = d.values[name]?.trim();
    if (!v) continue;
    out[name] = name === 'count' ? (/^\d+$/.test(v) ? Number(v) : v) : v;
  }
  return out as RuleParams;
}

/** currencyOf is the currency a rule's money is in: its account's, else the display currency. */
function currencyOf(accountId: string, accounts: Account[] | undefined, display: string | null | undefined): string {
  if (accountId) return accounts?.find((a) => a.id === accountId)?.currency ?? '';
  return display ?? '';
}

function RuleForm({ rule, onDone }: { rule?: Rule; onDone: () => void }) {
  const queryClient = useQueryClient();
  const accounts = useAccounts();
  const me = useMe();
  const [d, setD] = useState<Draft>(rule ? draftOf(rule) : emptyDraft);
  const save = useMutation({
    mutationFn: () => {
      const body = { type: d.type, params: paramsOf(d), enabled: d.enabled, accountId: d.accountId || null };
      return rule
        ? unwrap(client.PATCH('/api/rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body }))
        : unwrap(client.POST('/api/rules', { body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['rules'] });
      onDone();
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const info = ruleTypes[d.type];
  const currency = currencyOf(d.accountId, accounts.data, me.data?.displayCurrency);
  const labels: Record<string, string> = { type: 'rule', accountId: 'account' };
  for (const f of info.fields) labels[`params.${f}`] = fieldLabel(d.type, f).toLowerCase();
  const fieldErr = (name: string) => err?.fieldError(name, { labels });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const set = (name: Exclude<ParamName, 'weekdays'>, v: string) => setD({ ...d, values: { ...d.values, [name]: v } });
  return (
    <form onSubmit={submit} className="card" aria-label={rule ? 'Change the rule' : 'Add a rule'}>
      <h2>{rule ? 'Change the rule' : 'Add a rule'}</h2>
      <div className="form-grid">
        <SelectField label="Rule" value={d.type} onChange={(e) => setD({ ...d, type: e.target.value as RuleType })} error={fieldErr('type')}>
          {typeOrder.map((t) => (
            <option key={t} value={t}>
              {ruleTypes[t].label}
            </option>
          ))}
        </SelectField>
        <SelectField label="Applies to" value={d.accountId} onChange={(e) => setD({ ...d, accountId: e.target.value })} error={fieldErr('accountId')}>
          <option value="">Every account</option>
          {(accounts.data ?? []).map((a) => (
            <option key={a.id} value={a.id}>
              {a.name} ({a.currency})
            </option>
          ))}
        </SelectField>
        {info.fields.map((f) =>
          f === 'weekdays' ? (
            <fieldset key={f} className="field">
              <legend>{fieldLabel(d.type, f)}</legend>
              <div className="row">
                {weekdayNames.map((name, i) => (
                  <label key={name}>
                    <input
                      type="checkbox"
                      checked={d.weekdays.includes(i + 1)}
                      onChange={(e) => setD({ ...d, weekdays: e.target.checked ? [...d.weekdays, i + 1] : d.weekdays.filter((w) => w !== i + 1) })}
                    />{' '}
                    {name}
                  </label>
                ))}
              </div>
              {fieldErr('params.weekdays') && (
                <small className="field-error" role="alert">
                  {fieldErr('params.weekdays')}
                </small>
              )}
            </fieldset>
          ) : (
            <Field
              key={f}
              label={fieldLabel(d.type, f) + ((f === 'amount' || f === 'notional') && currency ? ` (${currency})` : '')}
              type={f === 'from' || f === 'to' ? 'time' : 'text'}
              inputMode={f === 'from' || f === 'to' ? undefined : f === 'count' ? 'numeric' : 'decimal'}
              value={d.values[f] ?? ''}
              onChange={(e) => set(f, e.target.value)}
              error={fieldErr(`params.${f}`)}
              hint={info.anyOf ? 'Fill in one or both.' : f === 'amount' && !currency ? 'Set a display currency in Settings, or pick one account.' : undefined}
            />
          ),
        )}
        <label className="field">
          <span>
            <input type="checkbox" checked={d.enabled} onChange={(e) => setD({ ...d, enabled: e.target.checked })} /> Check this rule
          </span>
        </label>
      </div>
      {err && !err.details.length && <ErrorNote error={err} />}
      {save.error && !(save.error instanceof ApiError) && <ErrorNote error={save.error} />}
      <FormActions submit={rule ? 'Save the rule' : 'Add the rule'} busy={save.isPending} onCancel={onDone} />
    </form>
  );
}

function RuleRow({ rule, accounts, display }: { rule: Rule; accounts: Account[] | undefined; display: string | null | undefined }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['rules'] });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => unwrap(client.PATCH('/api/rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body: { enabled } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/rules/{ruleId}', { params: { path: { ruleId: rule.id } } })),
    onSuccess: refresh,
  });
  const text = ruleText(rule, currencyOf(rule.accountId ?? '', accounts, display));
  const account = rule.accountId ? (accounts?.find((a) => a.id === rule.accountId)?.name ?? 'one account') : 'Every account';
  if (editing) {
    return (
      <tr>
        <td colSpan={4}>
          <RuleForm rule={rule} onDone={() => setEditing(false)} />
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <td>{text}</td>
      <td>{account}</td>
      <td>
        <label>
          <input type="checkbox" checked={rule.enabled} disabled={toggle.isPending} onChange={(e) => toggle.mutate(e.target.checked)} aria-label={`Check the rule: ${text}`} />{' '}
          {rule.enabled ? 'On' : 'Off'}
        </label>
        {toggle.error && <small className="field-error">{errorText(toggle.error)}</small>}
      </td>
      <td>
        <div className="row">
          <button type="button" className="ghost" onClick={() => setEditing(true)} aria-label={`Change the rule: ${text}`}>
            Change
          </button>
          <ConfirmButton label={`Delete the rule: ${text}`} question={`Delete the rule "${text}"? Past days are no longer checked against it.`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
            Delete
          </ConfirmButton>
        </div>
        <ErrorNote error={remove.error} />
      </td>
    </tr>
  );
}

/** RulesPage lists the user's trading rules and adds, changes, switches off and deletes them. */
export default function RulesPage() {
  const rules = useRules();
  const accounts = useAccounts();
  const me = useMe();
  const [adding, setAdding] = useState(false);
  return (
    <>
      <PageTitle
        actions={
          !adding && (
            <button type="button" onClick={() => setAdding(true)}>
              Add a rule
            </button>
          )
        }
      >
        Trading rules
      </PageTitle>
      <p className="muted">
        Each trading day is checked against the rules that are on: the dashboard calendar marks the days that broke one. Times and weekdays are in each account&apos;s
        time zone.
      </p>
      {adding && <RuleForm onDone={() => setAdding(false)} />}
      <section className="card" aria-labelledby="rules-title">
        <h2 id="rules-title">Your rules</h2>
        <QueryList query={rules} items={rules.data} empty="No rules yet: add the first one.">
          {(list) => (
            <DataTable columns={['Rule', 'Applies to', 'Checked', 'Actions']}>
              {list.map((r) => (
                <RuleRow key={`${r.id}-${r.updatedAt}`} rule={r} accounts={accounts.data} display={me.data?.displayCurrency} />
              ))}
            </DataTable>
          )}
        </QueryList>
      </section>
    </>
  );
}
