import { useEffect, useState } from 'react';
import { useBlocker, type Blocker } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { ErrorNote } from './ui';

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

/**
 * useAutosave keeps an editable value that saves itself once typing pauses
 * (autosaveDelay), one save at a time (an edit made while one is on its
 * way is saved after it), and keeps unsaved work from being lost: the app
 * asks before it opens another page, the browser before it closes the tab.
 * save sends the value; what it resolves is not read (the caller stores
 * the answer itself).
 */
export function useAutosave<T>(initial: T, save: (value: T) => Promise<unknown>): Autosave<T> {
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
  useEffect(() => {
    if (!dirty || isPending) return;
    const timer = setTimeout(() => mutate(value), autosaveDelay);
    return () => clearTimeout(timer);
  }, [value, dirty, isPending, mutate]);
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);
  let status = '';
  if (isPending) status = 'Saving…';
  else if (dirty && mutation.isError) status = 'Not saved: check the message above, then keep typing to try again.';
  else if (dirty) status = 'Unsaved changes';
  else if (mutation.isSuccess) status = 'All changes saved.';
  return { value, setValue, dirty, status, error: mutation.error, blocker };
}

/**
 * SaveState shows an autosave's failure (unless a field shows it already),
 * its status, and, when someone tries to leave with unsaved work, asks
 * whether to stay.
 */
export function SaveState({ state, fieldShown = false }: { state: Pick<Autosave<unknown>, 'status' | 'error' | 'blocker'>; fieldShown?: boolean }) {
  const { blocker } = state;
  return (
    <>
      {!fieldShown && <ErrorNote error={state.error} />}
      <p className="muted" aria-live="polite" data-testid="save-status">
        {state.status}
      </p>
      {blocker.state === 'blocked' && (
        <div role="alertdialog" aria-label="Unsaved notes" className="note note-warn">
          <p>Your notes are not saved yet. Leave this page and lose them?</p>
          <div className="row">
            <button type="button" onClick={() => blocker.reset()}>
              Stay and keep them
            </button>
            <button type="button" className="danger" onClick={() => blocker.proceed()}>
              Leave without saving
            </button>
          </div>
        </div>
      )}
    </>
  );
}
