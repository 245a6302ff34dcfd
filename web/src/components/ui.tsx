// Small building blocks every screen uses: labelled fields, notes, states.
import { isValidElement, useId, useRef, useState, type ReactNode, type InputHTMLAttributes, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';
import { errorText } from '../api/client';
import { browserZone } from '../format';
import { ConfirmDialog } from './confirm';

interface FieldProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  error?: string | undefined;
  hint?: ReactNode;
}

/**
 * FieldNote is the line under a field: its error, else its hint, else
 * nothing. The line is always there (and keeps its height, styles.css), so
 * the fields around do not jump when an error or a hint appears.
 */
function FieldNote({ id, error, hint }: { id: string; error?: string | undefined; hint?: ReactNode }) {
  if (error) {
    return (
      <small id={id} className="field-error" role="alert">
        {error}
      </small>
    );
  }
  return (
    <small id={id} className="hint">
      {hint}
    </small>
  );
}

/**
 * Field is an input with its visible label, hint and error wired up for
 * assistive tech. A date and time field says the zone what is typed is
 * read in (the browser's), after any hint of its own.
 */
export function Field({ label, error, hint, id, className, ...input }: FieldProps) {
  const auto = useId();
  const inputId = id ?? auto;
  const noteId = `${inputId}-note`;
  if (input.type === 'datetime-local') {
    const zone = `Time in ${browserZone()}.`;
    hint = hint ? (
      <>
        {hint} {zone}
      </>
    ) : (
      zone
    );
  }
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-invalid={error ? true : undefined} aria-describedby={error || hint ? noteId : undefined} {...input} />
      <FieldNote id={noteId} error={error} hint={hint} />
    </div>
  );
}

interface SelectProps extends SelectHTMLAttributes<HTMLSelectElement> {
  label: string;
  error?: string | undefined;
  children: ReactNode;
}

export function SelectField({ label, error, id, children, className, ...select }: SelectProps) {
  const auto = useId();
  const selectId = id ?? auto;
  const noteId = `${selectId}-note`;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={selectId}>{label}</label>
      <select id={selectId} aria-invalid={error ? true : undefined} aria-describedby={error ? noteId : undefined} {...select}>
        {children}
      </select>
      <FieldNote id={noteId} error={error} />
    </div>
  );
}

interface TextAreaProps extends TextareaHTMLAttributes<HTMLTextAreaElement> {
  label: string;
  error?: string | undefined;
}

export function TextAreaField({ label, error, id, className, ...area }: TextAreaProps) {
  const auto = useId();
  const areaId = id ?? auto;
  const noteId = `${areaId}-note`;
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={areaId}>{label}</label>
      <textarea id={areaId} aria-invalid={error ? true : undefined} aria-describedby={error ? noteId : undefined} {...area} />
      <FieldNote id={noteId} error={error} />
    </div>
  );
}

/** ErrorNote shows a failed request's message; nothing when there is no error. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="note note-error" role="alert">
      {errorText(error)}
    </p>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-title">
      <h1>{children}</h1>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

/** FormActions is a form's submit button, disabled while busy, and a Cancel button when there is something to cancel. */
export function FormActions({ submit, busy, onCancel }: { submit: ReactNode; busy: boolean; onCancel?: (() => void) | undefined }) {
  return (
    <div className="row">
      <button type="submit" disabled={busy}>
        {submit}
      </button>
      {onCancel && (
        <button type="button" className="ghost" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

/** textOf is the words of a button's children: "Delete position". */
function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return '';
}

/**
 * ConfirmButton asks, in the app's own dialog (ConfirmDialog), before a
 * destructive action, and stays disabled while it runs. The dialog is named
 * after the button ("Delete playbook Breakout?": its label, else its text),
 * asks the question, and offers Cancel and the button's text ("Delete").
 */
export function ConfirmButton({
  question,
  onConfirm,
  busy,
  className = 'ghost',
  label,
  children,
}: {
  question: string;
  onConfirm: () => void;
  busy: boolean;
  className?: string;
  label?: string;
  children: ReactNode;
}) {
  const [asking, setAsking] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const text = textOf(children).replace(/\s+/g, ' ').trim();
  const name = label ?? text;
  return (
    <>
      <button ref={button} type="button" className={className} disabled={busy} aria-label={label} onClick={() => setAsking(true)}>
        {children}
      </button>
      {asking && (
        <ConfirmDialog
          title={name.endsWith('?') ? name : `${name}?`}
          message={question}
          confirmLabel={text || name}
          cancelLabel="Cancel"
          returnFocus={button}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            onConfirm();
          }}
        />
      )}
    </>
  );
}

/** The part of an infinite query that LoadMore reads. */
interface PagedQuery {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/** LoadMore fetches an infinite query's next page while there is one; busyLabel, when given, replaces the label while it loads. */
export function LoadMore({ query, label = 'Load more', busyLabel }: { query: PagedQuery; label?: string; busyLabel?: string }) {
  if (!query.hasNextPage) return null;
  return (
    <button type="button" className="ghost" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
      {query.isFetchingNextPage && busyLabel ? busyLabel : label}
    </button>
  );
}
