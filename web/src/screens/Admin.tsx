import { useInfiniteQuery } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '../api/client';
import { useMe } from '../api/queries';
import { DataTable, QueryView } from '../components/QueryView';
import { Loading, LoadMore, PageTitle } from '../components/ui';
import { formatDateTime } from '../format';

export default function Admin() {
  const me = useMe();
  const isAdmin = me.data?.isAdmin === true;
  const users = useInfiniteQuery({
    queryKey: ['admin', 'users'],
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/admin/users', { params: { query: { limit: 25, ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: isAdmin,
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
  return (
    <>
      <PageTitle>Users</PageTitle>
      <QueryView query={users}>
        {() => (
          <>
            <DataTable columns={['Email', 'Signed up', 'Last active', 'Email confirmed', 'Admin']} caption="Users, newest first">
              {items.map((u) => (
                <tr key={u.id}>
                  <th scope="row">{u.email}</th>
                  <td>{formatDateTime(u.createdAt)}</td>
                  <td>{u.lastActiveAt ? formatDateTime(u.lastActiveAt) : 'never'}</td>
                  <td>{u.emailVerified ? 'yes' : 'no'}</td>
                  <td>{u.isAdmin ? 'yes' : 'no'}</td>
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
