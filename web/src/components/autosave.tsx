import { useEffect, useState } from 'react';
import { type Blocker } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { ErrorNote } from './ui';
import { LeavePrompt, useLeaveGuard } from './unsaved';

/** How long typing pauses before a draft saves itself. */
export const autosaveDelay = 800;

export interface Autosave<T> {
  /** value is what the person sees and edits. */
  value: T;
  setValue: (value: T) => void;
  /** dirty: value differs from what was last saved. */
  dirty: boolean;
  /** status says in words whether what is shown is saved ("" before any edit). */
  status: string;
  /** error is the last failed save's (an ApiError names its fields). */
  error: ApiError | Error | null;
  blocker: Blocker;
}

function same<T>(a: T, b: T): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** AutosaveDraft is an Autosave without its own guard (a page's UnsavedChangesGuard keeps it: useUnsaved). */
export type AutosaveDraft<T> = Omit<Autosave<T>, 'blocker'>;

/**
 * useAutosaveDraft keeps an editable value that saves itself once typing
 * pauses (autosaveDelay), one save at a time (an edit made while one is on
 * its way is saved after it). A failed save is not sent again by itself:
 * the next edit tries again. save sends the value; what it resolves is not
 * read (the caller stores the answer itself). It does not guard the page:
 * useAutosave does, or the page's UnsavedChangesGuard.
 */
export function useAutosaveDraft<T>(initial: T, save: (value: T) => Promise<unknown>): AutosaveDraft<T> {
  const [value, setValue] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const mutation = useMutation({
    mutationFn: async (v: T) => {
      await save(v);
      return v;
    },
    onSuccess: (v) => setSaved(v),
  });
  const dirty = !same(value, saved);
  const { mutate, isPending } = mutation;
  // The value whose save just failed waits for the next edit (sending it again every pause would fail again).
  const failed = mutation.isError && same(mutation.variables as T, value);
  useEffect(() => {
    if (!dirty || isPending || failed) return;
    const timer = setTimeout(() => mutate(value), autosaveDelay);
    return () => clearTimeout(timer);
  }, [value, dirty, isPending, failed, mutate]);
  let status = '';
  if (isPending) status = 'Saving…';
  else if (dirty && mutation.isError) status = 'Not saved: check the message above, then keep typing to try again.';
  else if (dirty) status = 'Unsaved changes';
  else if (mutation.isSuccess) status = 'All changes saved.';
  return { value, setValue, dirty, status, error: mutation.error };
}

/**
 * useAutosave is useAutosaveDraft that also keeps unsaved work from being
 * lost on its own: the app asks before it opens another page (SaveState
 * asks), the browser before it closes the tab. A page with other editable
 * sections uses useAutosaveDraft under one UnsavedChangesGuard instead
 * (react-router heeds one blocker only).
 */
export function useAutosave<T>(initial: T, save: (value: T) => Promise<unknown>): Autosave<T> {
  const draft = useAutosaveDraft(initial, save);
  const blocker = useLeaveGuard(draft.dirty);
  return { ...draft, blocker };
}

/**
 * SaveState shows an autosave's failure (unless a field shows it already),
 * its status, and, given the autosave's blocker, when someone tries to
 * leave with unsaved work, asks whether to stay, in a dialog over the
 * window.
 */
export function SaveState({ state, fieldShown = false }: { state: Pick<Autosave<unknown>, 'status' | 'error'> & { blocker?: Blocker }; fieldShown?: boolean }) {
  const { blocker } = state;
  return (
    <>
      {!fieldShown && <ErrorNote error={state.error} />}
      <p className="muted" aria-live="polite" data-testid="save-status">
        {state.status}
      </p>
      {blocker && <LeavePrompt blocker={blocker} title="Unsaved notes" message="Your notes are not saved yet. Leave this page and lose them?" />}
    </>
  );
}
