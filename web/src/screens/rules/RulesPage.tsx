import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, errorText, unwrap, type Schemas } from '../../api/client';
import { useAccounts, useMe, useTags } from '../../api/queries';
import { DataTable, QueryList } from '../../components/QueryView';
import { ConfirmButton, ErrorNote, Field, FormActions, PageTitle, SelectField } from '../../components/ui';
import {
  fieldLabel,
  listChoices,
  moneyParams,
  ruleText,
  ruleTypes,
  scopeText,
  typeOrder,
  weekdayNames,
  weights,
  weightText,
  useRules,
  type ListParam,
  type ParamName,
  type Rule,
  type RuleParams,
  type RuleType,
  type RuleWeight,
} from './rules';
import { TradeCompliance } from './TradeCompliance';

type Account = Schemas['Account'];
type TypedParam = Exclude<ParamName, ListParam>;

/** Draft is a rule form's state: every parameter as the person types or ticks it. */
interface Draft {
  type: RuleType;
  accountId: string; // '' is every account
  tagId: string; // '' is every trade
  weight: RuleWeight;
  enabled: boolean;
  values: Partial<Record<TypedParam, string>>;
  weekdays: number[];
  lists: Partial<Record<Exclude<ListParam, 'weekdays'>, string[]>>;
}

const emptyDraft: Draft = { type: 'maxTradesPerDay', accountId: '', tagId: '', weight: 'important', enabled: true, values: {}, weekdays: [], lists: {} };

function draftOf(rule: Rule): Draft {
  const { weekdays, count, minutes, symbols, fields, assetTypes, ...rest } = rule.params;
  const values: Draft['values'] = { ...(rest as Record<string, string>) };
  if (count !== undefined) values.count = String(count);
  if (minutes !== undefined) values.minutes = String(minutes);
  if (symbols) values.symbols = symbols.join(', ');
  const lists: Draft['lists'] = {};
  if (fields) lists.fields = fields;
  if (assetTypes) lists.assetTypes = assetTypes;
  return { type: rule.type, accountId: rule.accountId ?? '', tagId: rule.tagId ?? '', weight: rule.weight, enabled: rule.enabled, values, weekdays: weekdays ?? [], lists };
}

const wholeNumber = (v: string) => (/^\d+$/.test(v) ? Number(v) : v);

/** paramsOf is the API's params of a draft: only the type's fields, blanks left out. */
export function paramsOf(d: Draft): RuleParams {
  const out: Record<string, unknown> = {};
  for (const name of ruleTypes[d.type].fields) {
    if (name === 'weekdays') {
      if (d.weekdays.length) out.weekdays = d.weekdays;
      continue;
    }
    if (name === 'fields' || name === 'assetTypes') {
      if (d.lists[name]?.length) out[name] = d.lists[name];
      continue;
    }
    const v = d.values[name]?.trim();
    if (!v) continue;
    if (name === 'symbols') out.symbols = v.split(/[\s,]+/).filter(Boolean);
    else out[name] = name === 'count' || name === 'minutes' ? wholeNumber(v) : v;
  }
  return out as RuleParams;
}

/** Checks is a list parameter as checkboxes, its problem under them. */
function Checks({ legend, choices, checked, onChange, error }: {
  legend: string;
  choices: Array<{ value: string; label: string }>;
  checked: string[];
  onChange: (next: string[]) => void;
  error: string | undefined;
}) {
  return (
    <fieldset className="field">
      <legend>{legend}</legend>
      <div className="row">
        {choices.map((c) => (
          <label key={c.value}>
            <input
              type="checkbox"
              checked={checked.includes(c.value)}
              onChange={(e) => onChange(e.target.checked ? [...checked, c.value] : checked.filter((v) => v !== c.value))}
            />{' '}
            {c.label}
          </label>
        ))}
      </div>
      {error && (
        <small className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
}

/** currencyOf is the currency a rule's money is in: its account's, else the display currency. */
function currencyOf(accountId: string, accounts: Account[] | undefined, display: string | null | undefined): string {
  if (accountId) return accounts?.find((a) => a.id === accountId)?.currency ?? '';
  return display ?? '';
}

function RuleForm({ rule, onDone }: { rule?: Rule; onDone: () => void }) {
  const queryClient = useQueryClient();
  const accounts = useAccounts();
  const tags = useTags();
  const me = useMe();
  const [d, setD] = useState<Draft>(rule ? draftOf(rule) : emptyDraft);
  const save = useMutation({
    mutationFn: () => {
      const body = { type: d.type, params: paramsOf(d), enabled: d.enabled, accountId: d.accountId || null, weight: d.weight, tagId: d.tagId || null };
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
  const labels: Record<string, string> = { type: 'rule', accountId: 'account', weight: 'weight', tagId: 'tag' };
  for (const f of info.fields) labels[`params.${f}`] = fieldLabel(d.type, f).toLowerCase();
  const fieldErr = (name: string) => err?.fieldError(name, { labels });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const set = (name: TypedParam, v: string) => setD({ ...d, values: { ...d.values, [name]: v } });
  const hint = (f: ParamName) =>
    info.anyOf ? 'Fill in one or both.' : moneyParams.includes(f) && !currency ? 'Set a display currency in Settings, or pick one account.' : undefined;
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
        <SelectField label="Weight" value={d.weight} onChange={(e) => setD({ ...d, weight: e.target.value as RuleWeight })} error={fieldErr('weight')}>
          {weights.map((w) => (
            <option key={w.value} value={w.value}>
              {w.label}
            </option>
          ))}
        </SelectField>
        <SelectField label="Only trades tagged" value={d.tagId} onChange={(e) => setD({ ...d, tagId: e.target.value })} error={fieldErr('tagId')}>
          <option value="">Every trade</option>
          {(tags.data ?? []).map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </SelectField>
        {info.fields.map((f) =>
          f === 'weekdays' ? (
            <Checks
              key={f}
              legend={fieldLabel(d.type, f)}
              choices={weekdayNames.map((name, i) => ({ value: String(i + 1), label: name }))}
              checked={d.weekdays.map(String)}
              onChange={(next) => setD({ ...d, weekdays: next.map(Number) })}
              error={fieldErr('params.weekdays')}
            />
          ) : f === 'fields' || f === 'assetTypes' ? (
            <Checks
              key={f}
              legend={fieldLabel(d.type, f)}
              choices={listChoices[f]}
              checked={d.lists[f] ?? []}
              onChange={(next) => setD({ ...d, lists: { ...d.lists, [f]: next } })}
              error={fieldErr(`params.${f}`)}
            />
          ) : f === 'side' ? (
            <SelectField key={f} label={fieldLabel(d.type, f)} value={d.values.side ?? ''} onChange={(e) => set('side', e.target.value)} error={fieldErr('params.side')}>
              <option value="">Choose…</option>
              <option value="long">Long only</option>
              <option value="short">Short only</option>
            </SelectField>
          ) : (
            <Field
              key={f}
              label={fieldLabel(d.type, f) + (moneyParams.includes(f) && currency ? ` (${currency})` : '')}
              type={f === 'from' || f === 'to' ? 'time' : 'text'}
              inputMode={f === 'from' || f === 'to' || f === 'symbols' ? undefined : f === 'count' || f === 'minutes' ? 'numeric' : 'decimal'}
              value={d.values[f] ?? ''}
              onChange={(e) => set(f, e.target.value)}
              error={fieldErr(`params.${f}`)}
              hint={hint(f)}
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

function RuleRow({ rule, accounts, tags, display }: { rule: Rule; accounts: Account[] | undefined; tags: Schemas['Tag'][] | undefined; display: string | null | undefined }) {
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
  const account = scopeText(
    rule.accountId ? (accounts?.find((a) => a.id === rule.accountId)?.name ?? 'one account') : 'Every account',
    rule.tagId ? (tags?.find((t) => t.id === rule.tagId)?.name ?? 'a tag') : undefined,
  );
  if (editing) {
    return (
      <tr>
        <td colSpan={5}>
          <RuleForm rule={rule} onDone={() => setEditing(false)} />
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <td>{text}</td>
      <td>{account}</td>
      <td>{weightText[rule.weight]}</td>
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
  const tags = useTags();
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
        Each trading day is checked against the rules that are on: the dashboard calendar marks the days that broke one. Times, weekdays and weeks are in each
        account&apos;s time zone. A day&apos;s or a trade&apos;s score is the share of its rules kept, a critical rule counting 3, an important one 2 and a nice to have 1.
      </p>
      {adding && <RuleForm onDone={() => setAdding(false)} />}
      <section className="card" aria-labelledby="rules-title">
        <h2 id="rules-title">Your rules</h2>
        <QueryList query={rules} items={rules.data} empty="No rules yet: add the first one.">
          {(list) => (
            <DataTable columns={['Rule', 'Applies to', 'Weight', 'Checked', 'Actions']}>
              {list.map((r) => (
                <RuleRow key={`${r.id}-${r.updatedAt}`} rule={r} accounts={accounts.data} tags={tags.data} display={me.data?.displayCurrency} />
              ))}
            </DataTable>
          )}
        </QueryList>
      </section>
      {(rules.data?.length ?? 0) > 0 && <TradeCompliance />}
    </>
  );
}
