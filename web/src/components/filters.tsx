// The filter inputs the dashboard and the positions list share; each change goes to the caller's URL filters.
import type { Schemas } from '../api/client';
import { Field, SelectField } from './ui';

interface FilterProps {
  value: string | undefined;
  onChange: (value: string) => void;
}

/** AccountFilter narrows to one account, or all. */
export function AccountFilter({ accounts, value, onChange }: FilterProps & { accounts: Schemas['Account'][] | undefined }) {
  return (
    <SelectField label="Account" value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
      <option value="">All accounts</option>
      {accounts?.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name}
        </option>
      ))}
    </SelectField>
  );
}

/** TagFilter narrows to positions with one tag, or any. */
export function TagFilter({ tags, value, onChange }: FilterProps & { tags: Schemas['Tag'][] | undefined }) {
  return (
    <SelectField label="Tag" value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
      <option value="">Any tag</option>
      {tags?.map((t) => (
        <option key={t.id} value={t.id}>
          {t.name} ({t.category})
        </option>
      ))}
    </SelectField>
  );
}

/** DateRangeFilter is the From and To days of a filter. */
export function DateRangeFilter({ from, to, onChange }: { from: string | undefined; to: string | undefined; onChange: (name: 'from' | 'to', value: string) => void }) {
  return (
    <>
      <Field label="From" type="date" value={from ?? ''} onChange={(e) => onChange('from', e.target.value)} />
      <Field label="To" type="date" value={to ?? ''} onChange={(e) => onChange('to', e.target.value)} />
    </>
  );
}
