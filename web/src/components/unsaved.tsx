// Keeping unsaved work from being lost: the app asks before it opens
// another page, the browser before it closes or reloads the tab.
//
// react-router consults one blocker only (the last one registered), so a
// page with several editable sections has one guard, UnsavedChangesGuard,
// and each section tells it what it has not saved (useUnsaved).
import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useBlocker, type Blocker, type Location } from 'react-router';
import { ConfirmDialog } from './confirm';

/**
 * leaveWithoutAsking is the navigation state of a move that must not ask,
 * e.g. leaving a position just deleted: navigate(to, { state: leaveWithoutAsking }).
 */
export const leaveWithoutAsking = { leaveWithoutAsking: true } as const;

function asks(next: Location): boolean {
  const state: unknown = next.state;
  return !(typeof state === 'object' && state !== null && (state as { leaveWithoutAsking?: unknown }).leaveWithoutAsking === true);
}

/**
 * useLeaveGuard asks, while dirty, before the browser closes or reloads the
 * tab, and blocks a move to another page of the app: the returned blocker
 * is 'blocked' until the person stays (reset) or leaves (proceed), which
 * LeavePrompt asks.
 */
export function useLeaveGuard(dirty: boolean): Blocker {
  const latest = useRef(dirty);
  latest.current = dirty;
  const isDirty = useCallback(() => latest.current, []);
  return useLeaveGuardOf(isDirty);
}

function warnBeforeUnload(e: BeforeUnloadEvent) {
  e.preventDefault();
  // Older browsers ask only when returnValue is set.
  e.returnValue = '';
}

/**
 * useLeaveGuardOf is useLeaveGuard that asks isDirty at the moment of
 * leaving, so an edit saved (and unmarked) in the same commit as a
 * navigation the app makes itself does not block it.
 */
function useLeaveGuardOf(isDirty: () => boolean): Blocker {
  useEffect(() => {
    const warn = (e: BeforeUnloadEvent) => {
      if (isDirty()) warnBeforeUnload(e);
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [isDirty]);
  const shouldBlock = useCallback(
    ({ currentLocation, nextLocation }: { currentLocation: Location; nextLocation: Location }) =>
      isDirty() && currentLocation.pathname !== nextLocation.pathname && asks(nextLocation),
    [isDirty],
  );
  return useBlocker(shouldBlock);
}

/**
 * LeavePrompt asks, while the blocker holds a move to another page, whether
 * to stay or leave, in a modal dialog over the middle of the window
 * (wherever the page is scrolled to): focus moves into it, Tab stays in it,
 * Escape or a click beside it stays, and focus goes back where it was.
 */
export function LeavePrompt({
  blocker,
  title,
  message,
  stay = 'Stay and keep them',
  leave = 'Leave without saving',
}: {
  blocker: Blocker;
  title: string;
  message: ReactNode;
  stay?: string;
  leave?: string;
}) {
  if (blocker.state !== 'blocked') return null;
  return <ConfirmDialog title={title} message={message} cancelLabel={stay} confirmLabel={leave} onCancel={() => blocker.reset()} onConfirm={() => blocker.proceed()} testId="leave-backdrop" />;
}

interface Registry {
  mark: (id: string, what: string) => void;
  unmark: (id: string) => void;
}

const UnsavedContext = createContext<Registry | null>(null);

/** listed writes ["the stop loss", "the notes"] as "the stop loss and the notes". */
export function listed(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * UnsavedChangesGuard is a page's one guard: while a section inside it has
 * unsaved edits (useUnsaved), leaving the page asks first, naming them.
 */
export function UnsavedChangesGuard({ children, title = 'Unsaved changes' }: { children: ReactNode; title?: string }) {
  // The sections' marks: the ref for the blocker (read when leaving), the state for the question's words.
  const marks = useRef(new Map<string, string>());
  const [pending, setPending] = useState<ReadonlyMap<string, string>>(() => new Map());
  const registry = useMemo<Registry>(
    () => ({
      mark: (id, what) => {
        if (marks.current.get(id) === what) return;
        marks.current.set(id, what);
        setPending(new Map(marks.current));
      },
      unmark: (id) => {
        if (marks.current.delete(id)) setPending(new Map(marks.current));
      },
    }),
    [],
  );
  const isDirty = useCallback(() => marks.current.size > 0, []);
  const unsaved = [...new Set(pending.values())];
  const blocker = useLeaveGuardOf(isDirty);
  // An edit may save itself while the question is open: say so rather than
  // warn of a loss (the buttons keep their names: a click aimed at one still lands).
  const message =
    unsaved.length > 0
      ? `Not saved yet: ${listed(unsaved)}. Leave this page and lose these changes?`
      : 'Everything is saved now: nothing is lost if you leave.';
  return (
    <UnsavedContext.Provider value={registry}>
      {children}
      <LeavePrompt blocker={blocker} title={title} message={message} />
    </UnsavedContext.Provider>
  );
}

/**
 * useUnsaved tells the surrounding UnsavedChangesGuard that what (in words:
 * "the stop loss") is edited and not saved while dirty is true. Outside a
 * guard it does nothing.
 */
export function useUnsaved(what: string, dirty: boolean): void {
  const registry = useContext(UnsavedContext);
  const id = useId();
  useEffect(() => {
    if (!registry || !dirty) return;
    registry.mark(id, what);
    return () => registry.unmark(id);
  }, [registry, id, what, dirty]);
}
