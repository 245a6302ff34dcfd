// Keeping unsaved work from being lost: the app asks before it opens
// another page, the browser before it closes or reloads the tab.
//
// react-router consults one blocker only (the last one registered), so a
// page with several editable sections has one guard, UnsavedChangesGuard,
// and each section tells it what it has not saved (useUnsaved).
import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';
import { useBlocker, type Blocker, type Location } from 'react-router';

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
  useEffect(() => {
    if (!dirty) return;
    window.addEventListener('beforeunload', warnBeforeUnload);
    return () => window.removeEventListener('beforeunload', warnBeforeUnload);
  }, [dirty]);
  return useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname && asks(nextLocation));
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

const backdrop: CSSProperties = {
  position: 'fixed',
  inset: 0,
  zIndex: 1000,
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'center',
  padding: '1rem',
  background: 'rgb(0 0 0 / 0.45)',
};

const box: CSSProperties = {
  width: 'min(30rem, 100%)',
  maxHeight: 'calc(100vh - 2rem)',
  overflowY: 'auto',
  margin: 0,
  boxShadow: '0 8px 30px rgb(0 0 0 / 0.25)',
};

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
  return <LeaveDialog title={title} message={message} stay={stay} leave={leave} onStay={() => blocker.reset()} onLeave={() => blocker.proceed()} />;
}

function LeaveDialog({ title, message, stay, leave, onStay, onLeave }: { title: string; message: ReactNode; stay: string; leave: string; onStay: () => void; onLeave: () => void }) {
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const stayButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    stayButton.current?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onStay();
    } else if (e.key === 'Tab') {
      const buttons = Array.from(dialog.current?.querySelectorAll<HTMLElement>('button') ?? []);
      const first = buttons[0];
      const last = buttons[buttons.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last?.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first?.focus();
      }
    }
  };
  return createPortal(
    <div style={backdrop} data-testid="leave-backdrop" onClick={onStay}>
      <div
        ref={dialog}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-message`}
        className="card"
        style={box}
        onKeyDown={onKeyDown}
        onClick={(e) => e.stopPropagation()}
      >
        <h2 id={`${id}-title`}>{title}</h2>
        <p id={`${id}-message`}>{message}</p>
        <div className="row">
          <button ref={stayButton} type="button" onClick={onStay}>
            {stay}
          </button>
          <button type="button" className="danger" onClick={onLeave}>
            {leave}
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
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
