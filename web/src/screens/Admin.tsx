import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { keys, useMe } from '../api/queries';
import { DataTable, QueryView } from '../components/QueryView';
import { ConfirmButton, ErrorNote, Loading, LoadMore, PageTitle } from '../components/ui';
import { formatBytes, formatDateTime } from '../format';
import { amount, limitNames } from './PlanUsage';
import { SignInHistory } from '../components/SignInHistory';

export { formatBytes };

type AdminUser = Schemas['AdminUserListItem'];
type Action = 'promote' | 'demote' | 'disable' | 'enable';

const count = (v: number) => new Intl.NumberFormat().format(v);

/** isoDay is a date input's value for the UTC day of d. */
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** money writes a sum of minor units in its currency, in the user's format. */
function money(amountMinor: number, currency: string): string {
  const f = new Intl.NumberFormat(undefined, { style: 'currency', currency });
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  return f.format(amountMinor / 10 ** digits);
}

type TopBy = 'storage' | 'activity';

/** TopUsers is one top list of the period, paged by cursor. */
function TopUsers({ by, from, to, open }: { by: TopBy; from: string; to: string; open: (id: string) => void }) {
  const list = useInfiniteQuery({
    queryKey: ['admin', 'top', by, from, to],
    queryFn: ({ pageParam }) =>
      unwrap(client.GET('/api/admin/usage/top-users', { params: { query: { by, from, to, limit: 10, ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const title = by === 'storage' ? 'Top users by screenshot storage (now)' : 'Top users by positions recorded in the period';
  return (
    <div>
      <h3>{title}</h3>
      <QueryView query={list}>
        {(data) => {
          const items = data.pages.flatMap((p) => p.items);
          if (items.length === 0) return <p className="muted">No one yet.</p>;
          return (
            <>
              <DataTable columns={['User', by === 'storage' ? 'Storage' : 'Positions']} caption={title}>
                {items.map((u) => (
                  <tr key={u.id}>
                    <th scope="row">
                      <button type="button" className="link" onClick={() => open(u.id)}>
                        {u.email}
                      </button>
                    </th>
                    <td className="num">{by === 'storage' ? formatBytes(u.value) : count(u.value)}</td>
                  </tr>
                ))}
              </DataTable>
              <LoadMore query={list} label={`Load more of ${title.toLowerCase()}`} busyLabel="Loading…" />
            </>
          );
        }}
      </QueryView>
    </div>
  );
}

function Usage({ open }: { open: (id: string) => void }) {
  const today = new Date();
  const [from, setFrom] = useState(isoDay(new Date(today.getTime() - 29 * 86_400_000)));
  const [to, setTo] = useState(isoDay(today));
  const valid = from !== '' && to !== '' && from <= to;
  const usage = useQuery({
    queryKey: ['admin', 'usage', from, to],
    queryFn: () => unwrap(client.GET('/api/admin/usage', { params: { query: { from, to } } })),
    enabled: valid,
  });
  return (
    <section className="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <QueryView query={usage}>
        {(u) => (
          <dl className="facts">
            <dt>Users</dt>
            <dd>
              {count(u.users)} ({count(u.admins)} admin{u.admins === 1 ? '' : 's'}, {count(u.disabledUsers)} disabled)
            </dd>
            <dt>Active in the last 7 days</dt>
            <dd>{count(u.activeUsers7Days)}</dd>
            <dt>Active in the last 30 days</dt>
            <dd>{count(u.activeUsers30Days)}</dd>
            <dt>Positions</dt>
            <dd>{count(u.positions)}</dd>
            <dt>CSV imports</dt>
            <dd>{count(u.imports)}</dd>
            <dt>Images stored</dt>
            <dd>
              {count(u.images)} ({formatBytes(u.storageBytes)})
            </dd>
          </dl>
        )}
      </QueryView>
      <h3>Over a period</h3>
      <div className="row">
        <label>
          From (UTC day)
          <input type="date" value={from} max={to} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label>
          To (UTC day, included)
          <input type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
      {!valid && <p role="alert">Choose a first day on or before the last day.</p>}
      {valid && usage.data && (
        <>
          <dl className="facts" aria-label="Figures of the period">
            <dt>Active users</dt>
            <dd>{count(usage.data.period.activeUsers)}</dd>
            <dt>New users</dt>
            <dd>{count(usage.data.period.newUsers)}</dd>
            <dt>CSV imports</dt>
            <dd>{count(usage.data.period.imports)}</dd>
            <dt>Revenue</dt>
            <dd>
              {usage.data.period.revenue.length === 0
                ? 'none'
                : usage.data.period.revenue.map((r) => `${money(r.amountMinor, r.currency)} (${count(r.payments)} payment${r.payments === 1 ? '' : 's'})`).join(', ')}
            </dd>
          </dl>
          <p className="hint">Active users are counted from sessions that still exist, so a period long past reads low.</p>
          <TopUsers by="storage" from={from} to={to} open={open} />
          <TopUsers by="activity" from={from} to={to} open={open} />
        </>
      )}
    </section>
  );
}

/** UserDetail is one user's page: plan, usage, sign-ins, sessions, imports. */
function UserDetail({ userId, back }: { userId: string; back: () => void }) {
  const detail = useQuery({
    queryKey: ['admin', 'user', userId],
    queryFn: () => unwrap(client.GET('/api/admin/users/{userId}', { params: { path: { userId } } })),
  });
  return (
    <>
      <button type="button" className="link" onClick={back}>
        ← All users
      </button>
      <QueryView query={detail}>
        {({ user: d }) => (
          <>
            <PageTitle>{d.user.email}</PageTitle>
            <section className="card" aria-labelledby="detail-account">
              <h2 id="detail-account">Account</h2>
              <dl className="facts">
                <dt>Signed up</dt>
                <dd>{formatDateTime(d.user.createdAt)}</dd>
                <dt>Role</dt>
                <dd>{d.user.isAdmin ? 'administrator' : 'user'}</dd>
                <dt>Status</dt>
                <dd>{d.user.disabledAt ? `disabled since ${formatDateTime(d.user.disabledAt)}` : 'active'}</dd>
                <dt>Email confirmed</dt>
                <dd>{d.user.emailVerified ? 'yes' : 'no'}</dd>
                <dt>Plan</dt>
                <dd>
                  {d.plan.plan === 'pro' ? 'Pro' : 'Free'}
                  {d.subscription &&
                    ` (subscription ${d.subscription.status}${d.subscription.currentPeriodEnd ? `, paid until ${formatDateTime(d.subscription.currentPeriodEnd)}` : ''}${d.subscription.cancelAtPeriodEnd ? ', ends then' : ''})`}
                </dd>
              </dl>
            </section>
            <section className="card" aria-labelledby="detail-usage">
              <h2 id="detail-usage">Usage and storage</h2>
              <dl className="facts">
                <dt>Accounts</dt>
                <dd>
                  {count(d.usage.accounts)} active, {count(d.usage.archivedAccounts)} archived
                </dd>
                <dt>Positions</dt>
                <dd>{count(d.usage.positions)}</dd>
                <dt>Fills</dt>
                <dd>{count(d.usage.fills)}</dd>
                <dt>Screenshots</dt>
                <dd>
                  {count(d.usage.images)} ({formatBytes(d.usage.storageBytes)})
                </dd>
                <dt>CSV imports</dt>
                <dd>{count(d.usage.imports)}</dd>
              </dl>
              <DataTable columns={['Free plan limit', 'Uses', 'Allows']} caption="Free plan limits">
                {d.plan.limits.map((l) => (
                  <tr key={l.name}>
                    <th scope="row">{limitNames[l.name]}</th>
                    <td className="num">{amount(l.name, l.used)}</td>
                    <td className="num">{l.limit === null ? 'no limit' : amount(l.name, l.limit)}</td>
                  </tr>
                ))}
              </DataTable>
            </section>
            <section className="card" aria-labelledby="detail-signins">
              <h2 id="detail-signins">Sign-ins</h2>
              <dl className="facts">
                <dt>Last sign-in</dt>
                <dd>{d.signIns.lastSignInAt ? formatDateTime(d.signIns.lastSignInAt) : 'no live session'}</dd>
                <dt>Wrong passwords since</dt>
                <dd>
                  {count(d.signIns.failedSinceLastSignIn)}
                  {d.signIns.lastFailedAt ? ` (last ${formatDateTime(d.signIns.lastFailedAt)})` : ''}
                </dd>
                <dt>Wrong passwords before it, not yet seen by the user</dt>
                <dd>{count(d.signIns.failedBeforeLastSignIn)}</dd>
              </dl>
              <h3>Recent sign-ins</h3>
              <SignInHistory events={d.signIns.recent} />
              <h3>Signed-in sessions</h3>
              {d.sessions.length === 0 ? (
                <p className="muted">None.</p>
              ) : (
                <DataTable columns={['Signed in', 'Last active', 'Ends', 'Browser']} caption="Signed-in sessions">
                  {d.sessions.map((s) => (
                    <tr key={s.id}>
                      <td>{formatDateTime(s.createdAt)}</td>
                      <td>{formatDateTime(s.lastSeenAt)}</td>
                      <td>{formatDateTime(s.expiresAt)}</td>
                      <td>{s.userAgent || 'unknown'}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </section>
            <section className="card" aria-labelledby="detail-imports">
              <h2 id="detail-imports">Latest imports</h2>
              {d.imports.length === 0 ? (
                <p className="muted">None.</p>
              ) : (
                <ul>
                  {d.imports.map((i) => (
                    <li key={i.committedAt}>{formatDateTime(i.committedAt)}</li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </QueryView>
    </>
  );
}

/** The question each action asks first, in the administrator's words. */
function question(action: Action, u: AdminUser): string {
  switch (action) {
    case 'promote':
      return `Make ${u.email} an administrator? They will see this page and can change other users.`;
    case 'demote':
      return `Take the administrator role from ${u.email}?`;
    case 'disable':
      return `Disable ${u.email}? They are signed out everywhere at once and cannot sign in until you enable the account again. Their journal is kept.`;
    case 'enable':
      return `Enable ${u.email} again? They can sign in with their password.`;
  }
}

const labels: Record<Action, string> = { promote: 'Make admin', demote: 'Remove admin', disable: 'Disable', enable: 'Enable' };

function UserActions({ user, self, act, busy }: { user: AdminUser; self: boolean; act: (a: Action, u: AdminUser) => void; busy: boolean }) {
  const actions: Action[] = [user.isAdmin ? 'demote' : 'promote'];
  if (!self) actions.push(user.disabledAt ? 'enable' : 'disable');
  return (
    <div className="row nowrap">
      {actions.map((a) => (
        <ConfirmButton key={a} question={question(a, user)} busy={busy} label={`${labels[a]}: ${user.email}`} onConfirm={() => act(a, user)}>
          {labels[a]}
        </ConfirmButton>
      ))}
    </div>
  );
}

export default function Admin() {
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const detailId = params.get('user');
  const open = (id: string) => setParams({ user: id });
  const queryClient = useQueryClient();
  const isAdmin = me.data?.isAdmin === true;
  const users = useInfiniteQuery({
    queryKey: ['admin', 'users'],
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/admin/users', { params: { query: { limit: 25, ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: isAdmin,
  });
  const act = useMutation({
    mutationFn: ({ action, user }: { action: Action; user: AdminUser }) =>
      unwrap(client.POST(`/api/admin/users/{userId}/${action}`, { params: { path: { userId: user.id } } })),
    onSuccess: (_data, { user }) => {
      void queryClient.invalidateQueries({ queryKey: ['admin'] });
      if (user.id === me.data?.id) void queryClient.invalidateQueries({ queryKey: keys.me });
    },
  });
  if (me.isPending) return <Loading />;
  if (!isAdmin || (users.error instanceof ApiError && users.error.code === 'ADMIN_REQUIRED')) {
    return (
      <>
        <PageTitle>Admin</PageTitle>
        <p role="alert">This page is for administrators only.</p>
      </>
    );
  }
  if (detailId) return <UserDetail key={detailId} userId={detailId} back={() => setParams({})} />;
  const items = users.data?.pages.flatMap((p) => p.items) ?? [];
  const done = act.isSuccess ? `${act.variables.user.email}: ${{ promote: 'now an administrator', demote: 'no longer an administrator', disable: 'disabled and signed out', enable: 'enabled again' }[act.variables.action]}.` : '';
  return (
    <>
      <PageTitle>Users</PageTitle>
      <Usage open={open} />
      <ErrorNote error={act.error} />
      {done && <p role="status">{done}</p>}
      <QueryView query={users}>
        {() => (
          <>
            <DataTable columns={['Email', 'Signed up', 'Last active', 'Email confirmed', 'Role', 'Status', 'Actions']} caption="Users, newest first">
              {items.map((u) => (
                <tr key={u.id}>
                  <th scope="row">
                    <button type="button" className="link" onClick={() => open(u.id)} aria-label={`Details of ${u.email}`}>
                      {u.email}
                    </button>
                  </th>
                  <td>{formatDateTime(u.createdAt)}</td>
                  <td>{u.lastActiveAt ? formatDateTime(u.lastActiveAt) : 'never'}</td>
                  <td>{u.emailVerified ? 'yes' : 'no'}</td>
                  <td>{u.isAdmin ? 'admin' : 'user'}</td>
                  <td>{u.disabledAt ? `disabled since ${formatDateTime(u.disabledAt)}` : 'active'}</td>
                  <td>
                    <UserActions user={u} self={u.id === me.data?.id} act={(action, user) => act.mutate({ action, user })} busy={act.isPending} />
                  </td>
                </tr>
              ))}
            </DataTable>
            <p className="muted">
              {items.length} user{items.length === 1 ? '' : 's'} shown
            </p>
            <LoadMore query={users} label="Load more users" busyLabel="Loading…" />
          </>
        )}
      </QueryView>
    </>
  );
}
