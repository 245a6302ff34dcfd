// The app's own question before an action that cannot be taken back (or a
// move that loses work): a modal alert dialog over the middle of the
// window, never the browser's confirm().
import { useEffect, useId, useRef, type CSSProperties, type KeyboardEvent, type MouseEvent, type ReactNode, type RefObject } from 'react';
import { createPortal } from 'react-dom';

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

export interface ConfirmDialogProps {
  /** The dialog's name, short and in words: "Delete playbook Breakout?". */
  title: string;
  /** The question in full, the dialog's description. */
  message: ReactNode;
  /** The button that acts, named for the action: "Delete". */
  confirmLabel: string;
  /** The safe button, which has the focus first: "Cancel". */
  cancelLabel?: string;
  onConfirm: () => void;
  /** Called for the safe button, Escape, and a click beside the dialog. */
  onCancel: () => void;
  /** Where the focus goes back to on closing; by default, where it was on opening. */
  returnFocus?: RefObject<HTMLElement | null>;
  /** The backdrop's test id. */
  testId?: string;
}

/**
 * ConfirmDialog asks in a modal dialog over the middle of the window
 * (wherever the page is scrolled to): focus moves into it on the safe
 * button, Tab stays in it, Escape or a click beside it cancels, and focus
 * goes back where it was (or to returnFocus) when it closes. Render it
 * while asking; the caller unmounts it on either answer.
 */
export function ConfirmDialog({ title, message, confirmLabel, cancelLabel = 'Cancel', onConfirm, onCancel, returnFocus, testId = 'confirm-backdrop' }: ConfirmDialogProps) {
  const id = useId();
  const dialog = useRef<HTMLDivElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const back = useRef(returnFocus);
  useEffect(() => {
    const active = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const before = back.current?.current ?? active;
    cancelButton.current?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === 'Tab') {
      keepTabInside(e, dialog.current);
    }
  };
  // The dialog is portalled to the body, but React passes its events up to
  // the component that renders it: a click here is not one on a row or card there.
  const onBackdropClick = (e: MouseEvent) => {
    e.stopPropagation();
    onCancel();
  };
  return createPortal(
    <div style={backdrop} data-testid={testId} onClick={onBackdropClick}>
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
          <button ref={cancelButton} type="button" onClick={onCancel}>
            {cancelLabel}
          </button>
          <button type="button" className="danger" onClick={onConfirm}>
            {confirmLabel}
          </button>
        </div>
      </div>
    </div>,
    document.body,
  );
}

/** keepTabInside keeps Tab (and Shift+Tab) on a modal's buttons: past the last it goes to the first, and back. */
export function keepTabInside(e: KeyboardEvent, modal: HTMLElement | null): void {
  const buttons = Array.from(modal?.querySelectorAll<HTMLElement>('button') ?? []);
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
