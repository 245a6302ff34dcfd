import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, unwrap, type Schemas } from '../api/client';
import { keys, useMe } from '../api/queries';
import { DataTable, QueryView } from '../components/QueryView';
import { ConfirmButton, ErrorNote, Loading, LoadMore, PageTitle } from '../components/ui';
import { formatDateTime } from '../format';

type AdminUser = Schemas['AdminUserListItem'];
type Action = 'promote' | 'demote' | 'disable' | 'enable';

/** formatBytes writes a size the way a person reads it: "1.5 MB". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(value)} ${units[unit]}`;
}

function Usage() {
  const usage = useQuery({ queryKey: ['admin', 'usage'], queryFn: () => unwrap(client.GET('/api/admin/usage')) });
  const n = (v: number) => new Intl.NumberFormat().format(v);
  return (
    <section className="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <QueryView query={usage}>
        {(u) => (
          <dl className="facts">
            <dt>Users</dt>
            <dd>
              {n(u.users)} ({n(u.admins)} admin{u.admins === 1 ? '' : 's'}, {n(u.disabledUsers)} disabled)
            </dd>
            <dt>Active in the last 7 days</dt>
            <dd>{n(u.activeUsers7Days)}</dd>
            <dt>Active in the last 30 days</dt>
            <dd>{n(u.activeUsers30Days)}</dd>
            <dt>Positions</dt>
            <dd>{n(u.positions)}</dd>
            <dt>CSV imports</dt>
            <dd>{n(u.imports)}</dd>
            <dt>Images stored</dt>
            <dd>
              {n(u.images)} ({formatBytes(u.storageBytes)})
            </dd>
          </dl>
        )}
      </QueryView>
    </section>
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
  const items = users.data?.pages.flatMap((p) => p.items) ?? [];
  const done = act.isSuccess ? `${act.variables.user.email}: ${{ promote: 'now an administrator', demote: 'no longer an administrator', disable: 'disabled and signed out', enable: 'enabled again' }[act.variables.action]}.` : '';
  return (
    <>
      <PageTitle>Users</PageTitle>
      <Usage />
      <ErrorNote error={act.error} />
      {done && <p role="status">{done}</p>}
      <QueryView query={users}>
        {() => (
          <>
            <DataTable columns={['Email', 'Signed up', 'Last active', 'Email confirmed', 'Role', 'Status', 'Actions']} caption="Users, newest first">
              {items.map((u) => (
                <tr key={u.id}>
                  <th scope="row">{u.email}</th>
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
