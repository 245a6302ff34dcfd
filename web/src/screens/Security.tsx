import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { ConfirmButton, ErrorNote, Field, Loading } from '../components/ui';
import { formatDateTime } from '../format';
import { useMe } from '../api/queries';
import { DataTable } from '../components/QueryView';

const twoFactorKey = ['two-factor'] as const;
const tokensKey = ['api-tokens'] as const;

type ApiToken = Schemas['ApiToken'];
type Scope = Schemas['ApiTokenScope'];

/** What a person reads when a code or password was not accepted. */
function codeError(err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.fieldError('code')) return 'That code did not work. Enter the 6-digit code your authenticator app shows now, or an unused recovery code.';
  return undefined;
}

function passwordError(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || !err.fieldError('password')) return undefined;
  return err.details.some((d) => d.field === 'password' && d.message === 'is required') ? 'Enter your password.' : 'That is not your current password.';
}

/** Only errors no field of the form explains get the general note. */
function otherError(err: unknown): unknown {
  return err instanceof ApiError && err.details.length > 0 ? undefined : err;
}

/** RecoveryCodes shows the codes once, with a way to copy them. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="recovery-codes">
      <p>
        <strong>Two-factor sign-in is on.</strong> Keep these recovery codes somewhere safe, such as a password manager. Each one signs you in once if you lose
        your phone. This is the only time they are shown.
      </p>
      <ul aria-label="Recovery codes" className="code-list">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <button
          type="button"
          className="ghost"
          onClick={() => {
            void navigator.clipboard?.writeText(codes.join('\n')).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy the codes'}
        </button>
        <button type="button" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

function Enrol({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  const setup = useMutation({ mutationFn: () => unwrap(client.POST('/api/auth/two-factor/setup')) });
  const confirm = useMutation({
    mutationFn: () => unwrap(client.POST('/api/auth/two-factor/confirm', { body: { code: code.trim() } })),
    onSuccess: (data) => onEnabled(data.recoveryCodes),
  });
  if (!setup.data) {
    return (
      <div>
        <p>Two-factor sign-in is off. Turn it on to be asked for a code from an authenticator app on your phone each time you sign in.</p>
        <button type="button" onClick={() => setup.mutate()} disabled={setup.isPending}>
          Set up two-factor sign-in
        </button>
        <ErrorNote error={setup.error} />
      </div>
    );
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    confirm.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Confirm two-factor sign-in">
      <p>Scan this QR code with your authenticator app (such as Google Authenticator, 1Password or Aegis), then enter the code it shows.</p>
      <img src={setup.data.qrCode} alt="QR code for your authenticator app" width={200} height={200} className="qr-code" />
      <details>
        <summary>Can't scan it? Enter the key by hand</summary>
        <p>
          Key: <code aria-label="Setup key">{setup.data.secret}</code>
        </p>
        <p className="hint">Choose a time-based code; the other settings are the usual ones (6 digits, every 30 seconds).</p>
      </details>
      <Field
        label="Code from the app"
        inputMode="numeric"
        autoComplete="one-time-code"
        required
        maxLength={9}
        value={code}
        onChange={(e) => setCode(e.target.value)}
        error={codeError(confirm.error)}
      />
      <ErrorNote error={otherError(confirm.error)} />
      <div className="row">
        <button type="submit" disabled={confirm.isPending || code.trim() === ''}>
          Turn on two-factor sign-in
        </button>
      </div>
    </form>
  );
}

function Disable({ recoveryLeft, onDisabled }: { recoveryLeft: number; onDisabled: () => void }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const disable = useMutation({
    mutationFn: () => unwrap(client.POST('/api/auth/two-factor/disable', { body: { password, code: code.trim() } })),
    onSuccess: onDisabled,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    disable.mutate();
  };
  return (
    <div>
      <p>
        Two-factor sign-in is on. {recoveryLeft === 1 ? 'One recovery code is' : `${recoveryLeft} recovery codes are`} left.
        {recoveryLeft <= 2 && ' To get new ones, turn two-factor sign-in off and on again.'}
      </p>
      {!open ? (
        <button type="button" className="ghost" onClick={() => setOpen(true)}>
          Turn off two-factor sign-in
        </button>
      ) : (
        <form onSubmit={submit} aria-label="Turn off two-factor sign-in">
          <Field label="Your password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} error={passwordError(disable.error)} />
          <Field
            label="Code from the app, or a recovery code"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={codeError(disable.error)}
          />
          <ErrorNote error={otherError(disable.error)} />
          <div className="row">
            <button type="submit" className="danger" disabled={disable.isPending}>
              Turn off
            </button>
            <button type="button" className="ghost" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** TwoFactorSection turns two-factor sign-in on (QR code, first code, recovery codes shown once) and off. */
export function TwoFactorSection() {
  const queryClient = useQueryClient();
  const status = useQuery({ queryKey: twoFactorKey, queryFn: () => unwrap(client.GET('/api/auth/two-factor')) });
  const [codes, setCodes] = useState<string[] | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: twoFactorKey });
  let body;
  if (codes) body = <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  else if (!status.data) body = status.error ? <ErrorNote error={status.error} /> : <Loading />;
  else if (status.data.enabled) body = <Disable recoveryLeft={status.data.recoveryCodesLeft} onDisabled={refresh} />;
  else
    body = (
      <Enrol
        onEnabled={(c) => {
          setCodes(c);
          refresh();
        }}
      />
    );
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      {body}
    </section>
  );
}

const scopeLabels: Record<Scope, string> = {
  read: 'Read your journal',
  write: 'Change your journal',
  import: 'Import broker files',
};

function NewToken() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [copied, setCopied] = useState(false);
  const create = useMutation({
    mutationFn: () => unwrap(client.POST('/api/auth/tokens', { body: { name: name.trim(), scopes } })),
    onSuccess: () => {
      setName('');
      setCopied(false);
      void queryClient.invalidateQueries({ queryKey: tokensKey });
    },
  });
  const err = create.error instanceof ApiError ? create.error : undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const toggle = (s: Scope, on: boolean) => setScopes((cur) => (on ? [...cur, s] : cur.filter((x) => x !== s)));
  return (
    <>
      {create.data && (
        <div className="note" role="status">
          <p>
            Your new token <strong>{create.data.token.name}</strong>. Copy it now: it is not shown again.
          </p>
          <p>
            <code aria-label="Your new API token">{create.data.secret}</code>
          </p>
          <button type="button" className="ghost" onClick={() => void navigator.clipboard?.writeText(create.data.secret).then(() => setCopied(true))}>
            {copied ? 'Copied' : 'Copy the token'}
          </button>
        </div>
      )}
      <form onSubmit={submit} aria-label="Create an API token">
        <Field
          label="Token name"
          hint="What the token is for, such as “nightly export”."
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={err?.fieldError('name', { labels: { name: 'token name' } })}
        />
        <fieldset>
          <legend>It may</legend>
          {(Object.keys(scopeLabels) as Scope[]).map((s) => (
            <label key={s} className="check">
              <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => toggle(s, e.target.checked)} /> {scopeLabels[s]}
            </label>
          ))}
          {err?.fieldError('scopes') && <small className="field-error">Choose at least one thing the token may do.</small>}
        </fieldset>
        <ErrorNote error={otherError(create.error)} />
        <div className="row">
          <button type="submit" disabled={create.isPending || name.trim() === '' || scopes.length === 0}>
            Create token
          </button>
        </div>
      </form>
    </>
  );
}

function TokenRow({ token, timeZone }: { token: ApiToken; timeZone: string | undefined }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/auth/tokens/{tokenId}', { params: { path: { tokenId: token.id } } })),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: tokensKey }),
  });
  return (
    <tr>
      <td>{token.name}</td>
      <td>{token.scopes.map((s) => scopeLabels[s]).join(', ')}</td>
      <td>{formatDateTime(token.createdAt, timeZone)}</td>
      <td>{token.lastUsedAt ? formatDateTime(token.lastUsedAt, timeZone) : 'Never'}</td>
      <td>
        <ConfirmButton
          label={`Revoke token ${token.name}`}
          question={`Revoke the token “${token.name}”? Scripts that use it stop working at once.`}
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate()}
        >
          Revoke
        </ConfirmButton>
        <ErrorNote error={revoke.error} />
      </td>
    </tr>
  );
}

/** ApiTokensSection makes (shown once), lists and revokes personal API tokens. */
export function ApiTokensSection() {
  const tokens = useQuery({ queryKey: tokensKey, queryFn: () => unwrap(client.GET('/api/auth/tokens')) });
  const timeZone = useMe().data?.timezone;
  return (
    <section className="card" aria-labelledby="api-tokens-title">
      <h2 id="api-tokens-title">API tokens</h2>
      <p className="hint">
        For your own scripts: send a token as <code>Authorization: Bearer …</code>. A token can read, change or import into your journal, as you choose; it
        cannot reach billing, your account settings or other tokens.
      </p>
      <NewToken />
      {!tokens.data ? (
        tokens.error ? <ErrorNote error={tokens.error} /> : <Loading />
      ) : tokens.data.items.length === 0 ? (
        <p className="muted">No API tokens yet.</p>
      ) : (
        <DataTable columns={['Name', 'May', 'Created', 'Last used', 'Actions']} caption="Your API tokens">
          {tokens.data.items.map((t) => (
            <TokenRow key={t.id} token={t} timeZone={timeZone} />
          ))}
        </DataTable>
      )}
    </section>
  );
}
