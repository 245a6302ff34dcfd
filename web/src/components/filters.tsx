// The filter bar the dashboard (with its calendar) and the positions list
// share. The filter lives in the address (filterState.ts): each change is a
// history entry, so the back button undoes it and a view can be bookmarked.
import { useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import type { Schemas } from '../api/client';
import { usePlaybooks } from '../api/queries';
import { activeCount, emptyFilters, parseFilters, withFilter, writeFilters, type FilterName, type Filters, type ListFilterName } from '../filterState';
import { assetTypeNames, assetTypes } from '../assetTypes';
import { strategyKindNames } from '../strategyKinds';
import { Field, SelectField } from './ui';

/** useUrlFilters is the filter of the current address and the function that changes it. */
export function useUrlFilters(): [Filters, (next: Filters) => void] {
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => parseFilters(params), [params]);
  return [filters, (next: Filters) => setParams(writeFilters(next, params))];
}

export const weekdayNames = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
/** The result filter's choices: a closed trade's net P&L above, below or at zero (open ones have none). */
const resultChoices: Choice[] = [
  { value: 'win', label: 'Winners' },
  { value: 'loss', label: 'Losers' },
  { value: 'breakeven', label: 'Breakeven' },
];
/** The phases of a prop-firm plan (the account's Prop firm settings). */
const phaseChoices: Choice[] = [
  { value: 'evaluation', label: 'Evaluation' },
  { value: 'funded', label: 'Funded' },
];
const categoryNames: Record<string, string> = { setup: 'Setups', mistake: 'Mistakes', emotion: 'Emotions', general: 'General' };

/** hourLabel is "09:00–10:00" for 9: the hour of the entry in the account's zone. */
export function hourLabel(hour: number): string {
  const h = (n: number) => `${String(n % 24).padStart(2, '0')}:00`;
  return `${h(hour)}–${h(hour + 1)}`;
}

interface Choice {
  value: string;
  label: string;
  group?: string;
}

/**
 * MultiChoice is a field of checkboxes behind a disclosure: its button
 * says what is chosen ("Any" for none), the open list can take several.
 */
function MultiChoice({ label, any, choices, value, onChange, columns }: { label: string; any: string; choices: Choice[]; value: string[]; onChange: (v: string[]) => void; columns?: number }) {
  const id = useId();
  const box = useRef<HTMLDetailsElement>(null);
  // The open list is a popover: a click elsewhere or Escape closes it.
  useEffect(() => {
    const close = (e: Event) => {
      const el = box.current;
      if (!el?.open) return;
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !el.contains(e.target as Node)) {
        el.open = false;
        if (e instanceof KeyboardEvent) el.querySelector('summary')?.focus();
      }
    };
    document.addEventListener('click', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('click', close);
      document.removeEventListener('keydown', close);
    };
  }, []);
  const chosen = choices.filter((c) => value.includes(c.value));
  // A value in the address that is no longer a choice (a deleted tag) still shows, so it can be cleared.
  const unknown = value.filter((v) => !choices.some((c) => c.value === v));
  const summary = value.length === 0 ? any : [...chosen.map((c) => c.label), ...unknown.map(() => 'unknown')].join(', ');
  const toggle = (v: string, on: boolean) => onChange(on ? [...value, v] : value.filter((x) => x !== v));
  const groups: Array<[string | undefined, Choice[]]> = [];
  for (const c of choices) {
    const last = groups[groups.length - 1];
    if (last && last[0] === c.group) last[1].push(c);
    else groups.push([c.group, [c]]);
  }
  return (
    <div className="field multi">
      <span className="label" id={`${id}-label`}>
        {label}
      </span>
      <details ref={box}>
        <summary aria-labelledby={`${id}-label ${id}-summary`}>
          <span id={`${id}-summary`} className={value.length ? '' : 'muted'}>
            {summary}
          </span>
        </summary>
        <fieldset className="multi-pop" style={columns ? { gridTemplateColumns: `repeat(${columns}, auto)` } : undefined}>
          <legend className="sr-only">{label}</legend>
          {choices.length === 0 && <span className="muted">None yet</span>}
          {groups.map(([group, items], gi) => (
            <div key={group ?? gi} className="multi-group" role={group ? 'group' : undefined} aria-label={group}>
              {group && <div className="muted multi-group-title">{group}</div>}
              {items.map((c) => (
                <label key={c.value} className="check">
                  <input type="checkbox" checked={value.includes(c.value)} onChange={(e) => toggle(c.value, e.target.checked)} />
                  {c.label}
                </label>
              ))}
            </div>
          ))}
          {unknown.length > 0 && (
            <button type="button" className="link" onClick={() => onChange(value.filter((v) => !unknown.includes(v)))}>
              Remove {unknown.length === 1 ? 'a choice that no longer exists' : `${unknown.length} choices that no longer exist`}
            </button>
          )}
        </fieldset>
      </details>
      <small />
    </div>
  );
}

interface FilterBarProps {
  filters: Filters;
  onChange: (next: Filters) => void;
  accounts: Schemas['Account'][] | undefined;
  tags: Schemas['Tag'][] | undefined;
  /** statistics: the dashboard (dates are close dates); list: the positions list (status and date basis too). */
  scope: 'statistics' | 'list';
  label: string;
  children?: ReactNode;
}

/**
 * FilterBar is every filter of the journal in one form. On a phone it
 * folds behind a "Filters" button that says how many are on.
 */
export function FilterBar({ filters, onChange, accounts, tags, scope, label, children }: FilterBarProps) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const set = (name: FilterName, value: string | string[]) => onChange(withFilter(filters, name, value));
  const list = (name: ListFilterName) => ({ value: filters[name], onChange: (v: string[]) => set(name, v) });
  const active = activeCount(filters);
  const tagChoices: Choice[] = [...(tags ?? [])]
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name))
    .map((t) => ({ value: t.id, label: t.name, group: categoryNames[t.category] ?? t.category }));
  const playbooks = usePlaybooks();
  const playbookChoices: Choice[] = (playbooks.data ?? []).map((p) => ({ value: p.id, label: p.archived ? `${p.name} (archived)` : p.name }));
  // A strategy's legs match its kind in the list; the statistics count the strategy once.
  const strategyChoices: Choice[] = [...Object.entries(strategyKindNames).map(([value, label]) => ({ value, label })), { value: 'none', label: 'Not in a strategy' }];
  const closedDates = scope === 'statistics' || filters.dateBy === 'closed';
  const commitSymbols = (text: string) =>
    set(
      'symbol',
      text
        .split(/[\s,]+/)
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean),
    );
  return (
    <form className="card filter-bar" role="search" aria-label={label} onSubmit={(e) => e.preventDefault()}>
      <div className="filter-head">
        <button type="button" className="ghost filter-toggle" aria-expanded={open} aria-controls={bodyId} onClick={() => setOpen(!open)}>
          Filters{active > 0 ? ` (${active} on)` : ''}
        </button>
        {active > 0 && (
          <button type="button" className="ghost" onClick={() => onChange(emptyFilters())}>
            Clear filters
          </button>
        )}
      </div>
      <div id={bodyId} className={`grid filter-body${open ? ' open' : ''}`}>
        <MultiChoice label="Accounts" any="All accounts" choices={(accounts ?? []).map((a) => ({ value: a.id, label: `${a.name} (${a.currency})` }))} {...list('accountId')} />
        <SelectField label="Prop-firm accounts" value={filters.propFirm ?? ''} onChange={(e) => set('propFirm', e.target.value)}>
          <option value="">With or without a prop-firm plan</option>
          <option value="true">Only accounts with a prop-firm plan</option>
          <option value="false">Only accounts without one</option>
        </SelectField>
        <MultiChoice label="Prop-firm phase" any="Any phase, or no plan" choices={phaseChoices} {...list('phase')} />
        <Field
          key={filters.symbol.join(',')}
          label="Symbols"
          hint="Separate with commas; a symbol includes its options and futures"
          defaultValue={filters.symbol.join(', ')}
          onBlur={(e) => commitSymbols(e.target.value)}
          onKeyDown={(e) => e.key === 'Enter' && commitSymbols(e.currentTarget.value)}
        />
        <Field label={closedDates ? 'Closed from' : 'Opened from'} type="date" value={filters.from ?? ''} onChange={(e) => set('from', e.target.value)} />
        <Field label={closedDates ? 'Closed to' : 'Opened to'} type="date" value={filters.to ?? ''} min={filters.from} onChange={(e) => set('to', e.target.value)} />
        {scope === 'list' && (
          <SelectField label="Dates apply to" value={filters.dateBy ?? ''} onChange={(e) => set('dateBy', e.target.value)}>
            <option value="">The opening day</option>
            <option value="closed">The closing day</option>
          </SelectField>
        )}
        <MultiChoice label="With any of the tags" any="Any or no tag" choices={tagChoices} {...list('tagId')} />
        <MultiChoice label="Without the tags" any="None left out" choices={tagChoices} {...list('excludeTagId')} />
        <MultiChoice label="Playbooks" any="Any or no playbook" choices={playbookChoices} {...list('playbookId')} />
        <MultiChoice label="Strategies" any="Any or no strategy" choices={strategyChoices} {...list('strategy')} />
        <SelectField label="Side" value={filters.side ?? ''} onChange={(e) => set('side', e.target.value)}>
          <option value="">Long and short</option>
          <option value="long">Long</option>
          <option value="short">Short</option>
        </SelectField>
        <MultiChoice label="Result" any="Wins, losses and breakevens" choices={resultChoices} {...list('result')} />
        <MultiChoice label="Asset types" any="All types" choices={assetTypes.map((value) => ({ value, label: assetTypeNames[value] }))} {...list('assetType')} />
        {scope === 'list' && (
          <SelectField label="Status" value={filters.status ?? ''} onChange={(e) => set('status', e.target.value)}>
            <option value="">Any status</option>
            <option value="open">Open</option>
            <option value="closed">Closed</option>
            <option value="draft">Draft</option>
          </SelectField>
        )}
        <MultiChoice label="Entry weekday" any="Every day" choices={weekdayNames.map((label, i) => ({ value: String(i + 1), label }))} {...list('weekday')} />
        <MultiChoice label="Entry hour" any="Any hour" columns={3} choices={Array.from({ length: 24 }, (_, h) => ({ value: String(h), label: hourLabel(h) }))} {...list('hour')} />
        {children}
      </div>
    </form>
  );
}
