// The assistant's choices around a turn: which model answers, whether it may
// read the journal, the trader's own provider keys, attached images, and the
// tools the model called.
import { useState, type ChangeEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton, ErrorNote, Field, SelectField } from '../../components/ui';
import type { ToolStep } from './stream';

type Model = Schemas['AssistantModel'];

export const optionKeys = {
  models: ['assistant', 'models'] as const,
  settings: ['assistant', 'settings'] as const,
  keys: ['assistant', 'keys'] as const,
};

/** useModels is the picker's list, asked for only when the assistant is on. */
export function useModels(enabled: boolean) {
  return useQuery({ queryKey: optionKeys.models, queryFn: () => unwrap(client.GET('/api/assistant/models')), enabled });
}

const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });

/** modelLabel says what a model costs: micro-USD per million tokens, in dollars. */
export function modelLabel(m: Model): string {
  if (m.ownKey) return `${m.name} (your ${m.provider === 'anthropic' ? 'Anthropic' : 'OpenAI'} key: no credits)`;
  const price = `${money.format(m.inputPricePerMtok / 1e6)} in / ${money.format(m.outputPricePerMtok / 1e6)} out per million tokens`;
  return `${m.name} (${price}${m.images ? ', takes images' : ''})`;
}

export function ModelPicker({ models, value, onChange }: { models: Model[]; value: string; onChange: (id: string) => void }) {
  if (models.length === 0) return null;
  return (
    <SelectField label="Model" value={value} onChange={(e) => onChange(e.target.value)}>
      {models.map((m) => (
        <option key={m.id} value={m.id}>
          {modelLabel(m)}
        </option>
      ))}
    </SelectField>
  );
}

/** ConsentSwitch is the trader's explicit choice whether the assistant reads their journal. */
export function ConsentSwitch() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: optionKeys.settings, queryFn: () => unwrap(client.GET('/api/assistant/settings')) });
  const save = useMutation({
    mutationFn: (journalAccess: boolean) => unwrap(client.PUT('/api/assistant/settings', { body: { journalAccess } })),
    onSuccess: (s) => queryClient.setQueryData(optionKeys.settings, s),
  });
  if (!settings.isSuccess) return null;
  const on = save.isPending ? (save.variables ?? settings.data.journalAccess) : settings.data.journalAccess;
  return (
    <div className="field">
      <label>
        <input type="checkbox" checked={on} disabled={save.isPending} onChange={(e) => save.mutate(e.target.checked)} /> Let the assistant read my journal
      </label>
      <small className="hint">
        {on
          ? 'Your statistics, positions, notes and day journal are sent to the model when it needs them.'
          : 'Off: nothing from your journal is sent; the assistant answers in general terms.'}
      </small>
      <ErrorNote error={save.error} />
    </div>
  );
}

/** OwnKeys lists the trader's own provider keys (masked) and adds or deletes them. */
export function OwnKeys() {
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: optionKeys.keys, queryFn: () => unwrap(client.GET('/api/assistant/keys')) });
  const [provider, setProvider] = useState<'openai' | 'anthropic'>('openai');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [images, setImages] = useState(false);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: optionKeys.keys });
    void queryClient.invalidateQueries({ queryKey: optionKeys.models });
  };
  const add = useMutation({
    mutationFn: () => unwrap(client.POST('/api/assistant/keys', { body: { provider, model: model.trim(), apiKey: apiKey.trim(), images } })),
    onSuccess: () => {
      setModel('');
      setApiKey('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (keyId: string) => unwrap(client.DELETE('/api/assistant/keys/{keyId}', { params: { path: { keyId } } })),
    onSuccess: refresh,
  });
  const err = add.error instanceof ApiError ? add.error : undefined;
  const labels = { labels: { provider: 'provider', model: 'model name', apiKey: 'API key' } };
  return (
    <details className="own-keys">
      <summary>Your own provider keys</summary>
      <p className="muted">A turn on your own key is paid by you to your provider and spends no credits. The key is stored encrypted and never shown again.</p>
      {keys.data && keys.data.items.length > 0 && (
        <ul aria-label="Your keys">
          {keys.data.items.map((k) => (
            <li key={k.id}>
              {k.provider === 'anthropic' ? 'Anthropic' : 'OpenAI'} · {k.model} · key {k.masked}{' '}
              <ConfirmButton className="ghost" question={`Delete your ${k.model} key ending ${k.masked}?`} busy={remove.isPending} onConfirm={() => remove.mutate(k.id)}>
                Delete
              </ConfirmButton>
            </li>
          ))}
        </ul>
      )}
      <form
        aria-label="Add a key"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate();
        }}
      >
        <SelectField label="Provider" value={provider} onChange={(e) => setProvider(e.target.value === 'anthropic' ? 'anthropic' : 'openai')}>
          <option value="openai">OpenAI (or compatible)</option>
          <option value="anthropic">Anthropic</option>
        </SelectField>
        <Field label="Model name" required maxLength={200} placeholder={provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o-mini'} value={model} onChange={(e) => setModel(e.target.value)} error={err?.fieldError('model', labels)} />
        <Field label="API key" type="password" autoComplete="off" required value={apiKey} onChange={(e) => setApiKey(e.target.value)} error={err?.fieldError('apiKey', labels)} />
        <label>
          <input type="checkbox" checked={images} onChange={(e) => setImages(e.target.checked)} /> This model accepts images
        </label>
        <div className="row">
          <button type="submit" disabled={add.isPending || model.trim() === '' || apiKey.trim() === ''}>
            Add key
          </button>
        </div>
        {err?.code === 'ENCRYPTION_REQUIRED' ? (
          <p className="note note-error" role="alert">
            This server cannot store keys safely (it has no encryption key set). Ask its administrator.
          </p>
        ) : (
          add.error && !err?.fieldError('model') && !err?.fieldError('apiKey') && <ErrorNote error={add.error} />
        )}
        <ErrorNote error={remove.error} />
      </form>
    </details>
  );
}

/** The image types and size screenshot uploads take. */
const imageTypes = ['image/png', 'image/jpeg', 'image/webp'];
const maxImageBytes = 700 * 1024; // within the 1 MiB request once in base64
export const maxImages = 4;

export interface Attached {
  name: string;
  data: string; // base64
}

/** readImage checks a chosen file and reads it as base64, or says what is wrong in words. */
export async function readImage(file: File): Promise<Attached | string> {
  if (!imageTypes.includes(file.type)) return `${file.name} is not a PNG, JPEG or WebP image.`;
  if (file.size > maxImageBytes) return `${file.name} is larger than 700 KB; attach a smaller screenshot.`;
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return { name: file.name, data: btoa(binary) };
}

export function ImageAttach({ images, onChange, model }: { images: Attached[]; onChange: (next: Attached[]) => void; model: Model | undefined }) {
  const [problem, setProblem] = useState<string>();
  const pick = async (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = '';
    const next = [...images];
    for (const f of files) {
      if (next.length >= maxImages) {
        setProblem(`At most ${maxImages} images per question.`);
        break;
      }
      const read = await readImage(f);
      if (typeof read === 'string') {
        setProblem(read);
        return;
      }
      next.push(read);
    }
    setProblem(undefined);
    onChange(next);
  };
  return (
    <div className="field">
      <label>
        Attach a chart or screenshot <input type="file" accept={imageTypes.join(',')} multiple onChange={(e) => void pick(e)} />
      </label>
      {images.length > 0 && (
        <ul aria-label="Attached images">
          {images.map((img, i) => (
            <li key={`${img.name}-${i}`}>
              {img.name}{' '}
              <button type="button" className="ghost" onClick={() => onChange(images.filter((_, j) => j !== i))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {images.length > 0 && model && !model.images && (
        <small className="field-error" role="alert">
          {model.name} does not accept images: pick a model that does, or remove them.
        </small>
      )}
      {problem && (
        <small className="field-error" role="alert">
          {problem}
        </small>
      )}
    </div>
  );
}

const toolNames: Record<string, string> = {
  statistics: 'Read your statistics',
  list_positions: 'Listed your positions',
  get_position: 'Read a position',
  day_journal: 'Read a day of your journal',
  position_size: 'Used the position calculator',
  quote: 'Looked up a quote',
};

/** ToolSteps shows the tools the model called, each collapsible to its arguments and result. */
export function ToolSteps({ steps }: { steps: ToolStep[] }) {
  if (steps.length === 0) return null;
  return (
    <li className="message from-tool">
      {steps.map((s) => (
        <details key={s.id} className="tool-step">
          <summary>
            {toolNames[s.name] ?? `Used the tool ${s.name}`}
            {s.result === undefined ? '…' : ''}
          </summary>
          <div className="muted">Asked with: {JSON.stringify(s.arguments)}</div>
          {s.result !== undefined && <pre className="message-text">{s.result}</pre>}
        </details>
      ))}
    </li>
  );
}
