// "Your data" on the settings page: take the journal out (the positions as
// CSV, the full backup), put a backup back into an empty journal, and
// delete the account.
import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { ApiError, client, errorText, unwrap, type Schemas } from '../api/client';
import { ConfirmDialog } from '../components/confirm';
import { ErrorNote, Field } from '../components/ui';
import { forgetSession } from '../session';

/** megabytes writes a byte count for people: "3.4 MB". */
export function megabytes(bytes: number): string {
  if (bytes < 1_000_000) return `${Math.max(1, Math.round(bytes / 1000))} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** errorOf reads a failed answer of a route that is not JSON when it succeeds. */
async function errorOf(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => undefined);
  return new ApiError(response.status, body);
}

/**
 * downloadBackup streams the backup archive, calling progress with the
 * bytes received so far, and saves it under the server's file name.
 */
export async function downloadBackup(progress: (bytes: number) => void): Promise<void> {
  const response = await fetch(new URL('/api/backup/archive', window.location.origin), { credentials: 'same-origin' });
  if (!response.ok || !response.body) throw await errorOf(response);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    progress(received);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1] ?? 'tradejournal-backup.zip';
  const url = URL.createObjectURL(new Blob(chunks as BlobPart[], { type: 'application/zip' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

type Restored = Schemas['RestoredEnvelope']['restored'];

/** restoreBackup sends a backup file as the body of the restore. */
export async function restoreBackup(file: File): Promise<Restored> {
  const response = await fetch(new URL('/api/backup/restore', window.location.origin), {
    method: 'POST',
    body: file,
    headers: { 'Content-Type': 'application/zip' },
    credentials: 'same-origin',
  });
  if (!response.ok) throw await errorOf(response);
  return ((await response.json()) as Schemas['RestoredEnvelope']).restored;
}

/** restoreMessage is what a refused restore says, in the user's words. */
export function restoreMessage(err: unknown): string {
  if (err instanceof ApiError) {
    switch (err.code) {
      case 'JOURNAL_NOT_EMPTY':
        return 'Your journal already holds accounts, tags, fee schedules, exchange rates or saved import mappings, so nothing was restored (a backup goes only into an empty journal, so nothing is restored twice). Sign up a new account for the backup, or delete this one first.';
      case 'BACKUP_TOO_NEW':
        return 'This backup was made by a newer version of Trade Journal. Ask whoever runs this journal to update it, then try again. Nothing was restored.';
      case 'PAYLOAD_TOO_LARGE':
        return 'This file is larger than a restore accepts (1 GB). Nothing was restored.';
      case 'INVALID_BACKUP':
        return err.message;
    }
  }
  return errorText(err);
}

function ExportCard() {
  const [received, setReceived] = useState<number | null>(null);
  const download = useMutation({
    mutationFn: () => downloadBackup(setReceived),
    onSettled: () => setReceived(null),
  });
  return (
    <section className="card" aria-labelledby="export-title">
      <h2 id="export-title">Take your data out</h2>
      <p className="hint">
        The positions file has one row per fill of every account; the CSV import reads it back (preset “Trade Journal: positions
        export”). The backup holds everything: accounts, ledger, fee schedules, positions with their fills, tags, notes and images,
        exchange rates and settings.
      </p>
      <div className="row">
        <a className="button ghost" href="/api/backup/positions.csv" download>
          Export positions (CSV)
        </a>
        <button type="button" onClick={() => download.mutate()} disabled={download.isPending}>
          Download backup
        </button>
        {download.isPending && (
          <span role="status">{received === null ? 'Preparing the backup…' : `Downloading… ${megabytes(received)} received`}</span>
        )}
        {download.isSuccess && <span role="status">Backup saved.</span>}
      </div>
      <ErrorNote error={download.error} />
    </section>
  );
}

function RestoreCard() {
  const queryClient = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const restore = useMutation({
    mutationFn: (f: File) => restoreBackup(f),
    onSuccess: () => void queryClient.invalidateQueries(),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (file) restore.mutate(file);
  };
  const done = restore.data;
  return (
    <form className="card" onSubmit={submit} aria-label="Restore a backup">
      <h2>Restore a backup</h2>
      <p className="hint">Restores a backup file into this journal when it is still empty. Nothing is changed if the file is refused.</p>
      <div className="field">
        <label htmlFor="backup-file">Backup file</label>
        <input
          id="backup-file"
          ref={input}
          type="file"
          accept=".zip,application/zip"
          onChange={(e) => {
            setFile(e.target.files?.[0] ?? null);
            restore.reset();
          }}
        />
      </div>
      <div className="row">
        <button type="submit" disabled={!file || restore.isPending}>
          Restore
        </button>
        {restore.isPending && file && <span role="status">Restoring {megabytes(file.size)}… this can take a while for a large journal.</span>}
      </div>
      {done && (
        <p role="status">
          Restored {done.accounts} accounts, {done.positions} positions with {done.fills} fills, {done.tags} tags, {done.ledgerEntries}{' '}
          deposits and withdrawals, {done.images} images and {done.exchangeRates} exchange rates.
        </p>
      )}
      {restore.isError && (
        <p className="note note-error" role="alert">
          {restoreMessage(restore.error)}
        </p>
      )}
    </form>
  );
}

function DeleteAccountCard({ email }: { email: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [typed, setTyped] = useState('');
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/users/me', { body: { password, confirmEmail: typed.trim() } })),
    onSuccess: async () => {
      await navigate('/signin', { replace: true });
      forgetSession();
      queryClient.clear();
    },
  });
  const err = remove.error instanceof ApiError ? remove.error : undefined;
  const matches = typed.trim().toLowerCase() === email.toLowerCase();
  const [asking, setAsking] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (matches) setAsking(true);
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Delete your account">
      <h2>Delete your account</h2>
      <p className="hint">
        Deletes your account and everything in it for good: accounts, positions, notes, images, settings and your credits. Download a
        backup first if you may want any of it. Records of payments you made are kept without your name or email.
      </p>
      <Field
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={err?.fieldError('password')}
      />
      <Field
        label={`Type your email (${email}) to confirm`}
        autoComplete="off"
        required
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        error={err?.fieldError('confirmEmail')}
      />
      {err && err.details.length === 0 && <ErrorNote error={err} />}
      <div className="row">
        <button type="submit" className="danger" disabled={!matches || password === '' || remove.isPending}>
          Delete my account
        </button>
      </div>
      {asking && (
        <ConfirmDialog
          title="Delete your account?"
          message="Delete your account and everything in it for good? This cannot be undone."
          confirmLabel="Delete my account"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            remove.mutate();
          }}
        />
      )}
    </form>
  );
}

export function YourData({ email }: { email: string }) {
  return (
    <>
      <ExportCard />
      <RestoreCard />
      <DeleteAccountCard email={email} />
    </>
  );
}
