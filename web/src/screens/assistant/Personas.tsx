// The assistant's personas: the built-in default and the user's own (a name
// and instructions on how the assistant should speak), the picker of a
// conversation's persona, and where they are added, changed and deleted.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../../api/client';
import { ConfirmButton, ErrorNote, Field, SelectField, TextAreaField } from '../../components/ui';

export type Persona = Schemas['AssistantPersona'];

export const personaKeys = { all: ['assistant', 'personas'] as const };

export function usePersonas() {
  return useQuery({ queryKey: personaKeys.all, queryFn: () => unwrap(client.GET('/api/assistant/personas')).then((r) => r.items) });
}

/** PersonaPicker chooses the persona of a conversation ("default" is the built-in one). */
export function PersonaPicker({ value, onChange, disabled }: { value: string; onChange: (id: string) => void; disabled?: boolean }) {
  const personas = usePersonas();
  return (
    <SelectField label="Persona" value={value} disabled={disabled || !personas.data} onChange={(e) => onChange(e.target.value)}>
      {(personas.data ?? [{ id: 'default', name: 'Default' } as Persona]).map((p) => (
        <option key={p.id} value={p.id}>
          {p.builtIn ? `${p.name} (built in)` : p.name}
        </option>
      ))}
    </SelectField>
  );
}

/** conflictText says a refused save in words: the name is taken, or there are too many personas. */
export function conflictText(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiError) || error.code !== 'CONFLICT') return undefined;
  if (error.message.includes('name')) return `You already have a persona named “${name.trim()}” (names ignore capitals). Choose another name.`;
  return 'You have as many personas as you can keep (20). Delete one before adding another.';
}

function PersonaForm({ persona, onDone }: { persona?: Persona; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(persona?.name ?? '');
  const [instructions, setInstructions] = useState(persona?.instructions ?? '');
  const save = useMutation({
    mutationFn: () => {
      const body = { name: name.trim(), instructions: instructions.trim() };
      return persona
        ? unwrap(client.PATCH('/api/assistant/personas/{personaId}', { params: { path: { personaId: persona.id } }, body }))
        : unwrap(client.POST('/api/assistant/personas', { body }));
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: personaKeys.all });
      onDone();
    },
  });
  const err = save.error instanceof ApiError ? save.error : undefined;
  const conflict = conflictText(save.error, name);
  return (
    <form
      aria-label={persona ? `Edit persona ${persona.name}` : 'New persona'}
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <Field label="Name" maxLength={60} required value={name} onChange={(e) => setName(e.target.value)} error={err?.fieldError('name') ?? conflict} />
      <TextAreaField
        label="Instructions"
        maxLength={2000}
        rows={4}
        required
        value={instructions}
        placeholder="How the assistant should speak and what to focus on, e.g. “Be blunt. Focus on risk and discipline.”"
        onChange={(e) => setInstructions(e.target.value)}
        error={err?.fieldError('instructions')}
      />
      <div className="row">
        <button type="submit" disabled={save.isPending || name.trim() === '' || instructions.trim() === ''}>
          {persona ? 'Save persona' : 'Add persona'}
        </button>
        <button type="button" className="ghost" onClick={onDone}>
          Cancel
        </button>
      </div>
      {save.error && !err?.fieldError('name') && !err?.fieldError('instructions') && !conflict && <ErrorNote error={save.error} />}
    </form>
  );
}

function PersonaItem({ persona }: { persona: Persona }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/assistant/personas/{personaId}', { params: { path: { personaId: persona.id } } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['assistant'] }),
  });
  if (editing) return <li><PersonaForm persona={persona} onDone={() => setEditing(false)} /></li>;
  return (
    <li>
      <strong>{persona.name}</strong>
      {persona.builtIn ? (
        <p className="muted">The assistant’s own manner: concise and concrete, grounded in your journal.</p>
      ) : (
        <>
          <p className="muted persona-instructions">{persona.instructions}</p>
          <div className="row">
            <button type="button" className="ghost" onClick={() => setEditing(true)}>
              Edit
            </button>
            <ConfirmButton className="danger" question={`Delete the persona “${persona.name}”? Its conversations go back to the default.`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
              Delete
            </ConfirmButton>
          </div>
          <ErrorNote error={remove.error} />
        </>
      )}
    </li>
  );
}

/** Personas lists the personas with their instructions, and adds, edits and deletes the user's own. */
export function Personas() {
  const personas = usePersonas();
  const [adding, setAdding] = useState(false);
  return (
    <section className="card personas" aria-label="Personas">
      <h2>Personas</h2>
      <p className="muted">A persona tells the assistant how to speak. Pick one for each conversation.</p>
      {personas.isError && <ErrorNote error={personas.error} />}
      <ul>
        {(personas.data ?? []).map((p) => (
          <PersonaItem key={p.id} persona={p} />
        ))}
      </ul>
      {adding ? (
        <PersonaForm onDone={() => setAdding(false)} />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          New persona
        </button>
      )}
    </section>
  );
}
