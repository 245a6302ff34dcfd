// The mapping's rules beyond its columns, and the saved mappings: load one
// into the form, save the form's under a name, delete one.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '../../api/client';
import { ErrorNote, Field, SelectField } from '../../components/ui';
import { assetTypeName } from '../../assetTypes';
import { importedAssetTypes, loadSaved, savedBody, type ImportForm, type MappingRules } from './logic';

export function MappingRulesFields({ rules, onChange }: { rules: MappingRules; onChange: (r: MappingRules) => void }) {
  const statusSkip = rules.filters?.find((f) => f.column === 'Status')?.skip?.join(', ') ?? '';
  return (
    <fieldset>
      <legend>Rows and defaults</legend>
      <div className="grid">
        <SelectField
          label="Asset type of untyped rows"
          value={rules.defaultAssetType ?? ''}
          onChange={(e) => onChange({ ...rules, defaultAssetType: (e.target.value || undefined) as MappingRules['defaultAssetType'] })}
        >
          <option value="">From the symbol</option>
          {importedAssetTypes.map((t) => (
            <option key={t} value={t}>
              {assetTypeName[t]}
            </option>
          ))}
        </SelectField>
        {(rules.defaultAssetType === 'future' || rules.defaultAssetType === 'future_option') && (
          <Field
            label="Point value of unknown futures roots"
            inputMode="decimal"
            value={rules.multiplier ?? ''}
            onChange={(e) => onChange({ ...rules, multiplier: e.target.value })}
          />
        )}
        <label className="check">
          <input type="checkbox" checked={!!rules.skipNonTrades} onChange={(e) => onChange({ ...rules, skipNonTrades: e.target.checked })} />
          Skip rows that are not trades (dividends, transfers)
        </label>
        <Field
          label='Also skip these values of a "Status" column'
          hint="Comma-separated; cancelled, rejected and expired orders are skipped anyway when a status column is mapped."
          value={statusSkip}
          onChange={(e) => {
            const skip = e.target.value
              .split(',')
              .map((v) => v.trim())
              .filter(Boolean);
            const others = (rules.filters ?? []).filter((f) => f.column !== 'Status');
            onChange({ ...rules, filters: skip.length ? [...others, { column: 'Status', skip }] : others });
          }}
        />
      </div>
    </fieldset>
  );
}

export function SavedMappings({ form, onLoad }: { form: ImportForm; onLoad: (f: ImportForm) => void }) {
  const queryClient = useQueryClient();
  const saved = useQuery({ queryKey: ['csv-mappings'], queryFn: () => unwrap(client.GET('/api/csv-import/mappings')) });
  const [name, setName] = useState('');
  const save = useMutation({
    mutationFn: () => unwrap(client.POST('/api/csv-import/mappings', { body: savedBody(form, name) })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['csv-mappings'] }),
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(client.DELETE('/api/csv-import/mappings/{mappingId}', { params: { path: { mappingId: id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['csv-mappings'] }),
  });
  const items = saved.data?.items ?? [];
  const [chosen, setChosen] = useState('');
  return (
    <fieldset>
      <legend>Saved mappings</legend>
      <div className="grid">
        {items.length > 0 && (
          <SelectField
            label="Use a saved mapping"
            value={chosen}
            onChange={(e) => {
              setChosen(e.target.value);
              const m = items.find((i) => i.id === e.target.value);
              if (m) onLoad(loadSaved(form, m));
            }}
          >
            <option value="">Choose…</option>
            {items.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </SelectField>
        )}
        {chosen && (
          <button type="button" className="secondary" onClick={() => remove.mutate(chosen, { onSuccess: () => setChosen('') })}>
            Delete this saved mapping
          </button>
        )}
        <Field label="Save this mapping as" maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <button type="button" className="secondary" disabled={!name.trim() || save.isPending} onClick={() => save.mutate()}>
          Save mapping
        </button>
      </div>
      {save.isSuccess && <p className="hint">Saved as {save.data.mapping.name}.</p>}
      <ErrorNote error={save.error ?? remove.error} />
    </fieldset>
  );
}
