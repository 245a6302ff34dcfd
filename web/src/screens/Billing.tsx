import { Navigate, useSearchParams } from 'react-router';
import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '../api/client';
import { useAppConfig } from '../api/queries';
import { DataTable, numeric } from '../components/QueryView';
import { ErrorNote, Loading, PageTitle } from '../components/ui';
import { safeHttpUrl } from '../config';
import { formatDateTime, formatMoney, minorToDecimal, minorUnits } from '../format';
import { PlanUsage } from './PlanUsage';

/** goTo sends the browser to the payment processor's hosted page (http(s) only). */
function goTo(url: string): void {
  const safe = safeHttpUrl(url);
  if (safe) window.location.assign(safe);
  else throw new Error('The payment processor answered an invalid address.');
}

const credits = (n: number) => `${n.toLocaleString()} credits`;

function Packs() {
  const packs = useQuery({ queryKey: ['billing', 'packs'], queryFn: () => unwrap(client.GET('/api/billing/packs')) });
  const checkout = useMutation({
    mutationFn: (packId: string) => unwrap(client.POST('/api/billing/checkout', { body: { packId } })),
    onSuccess: (data) => goTo(data.url),
  });
  if (packs.isPending) return <Loading />;
  if (packs.isError) return <ErrorNote error={packs.error} />;
  if (!packs.data.purchasesAvailable) return null;
  return (
    <section className="card" aria-labelledby="packs-title">
      <h2 id="packs-title">Buy credits</h2>
      <div className="tiles">
        {packs.data.packs.map((p) => (
          <div key={p.id} className="tile">
            <div className="label">{p.label}</div>
            <div className="value">{formatMoney(minorToDecimal(p.priceMinor, minorUnits(p.currency)), p.currency)}</div>
            <p className="muted">{credits(p.credits)}</p>
            <button type="button" onClick={() => checkout.mutate(p.id)} disabled={checkout.isPending} aria-label={`Buy ${p.label}`}>
              Buy
            </button>
          </div>
        ))}
      </div>
      <ErrorNote error={checkout.error} />
    </section>
  );
}

function Wallet() {
  const wallet = useInfiniteQuery({
    queryKey: ['billing', 'wallet'],
    queryFn: ({ pageParam }) => unwrap(client.GET('/api/billing/wallet', { params: { query: pageParam ? { cursor: pageParam } : {} } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  if (wallet.isPending) return <Loading />;
  if (wallet.isError) return <ErrorNote error={wallet.error} />;
  const first = wallet.data.pages[0];
  const items = wallet.data.pages.flatMap((p) => p.transactions);
  return (
    <section className="card" aria-labelledby="wallet-title">
      <h2 id="wallet-title">Wallet</h2>
      {first && (
        <dl className="facts">
          <dt>Balance</dt>
          <dd>{credits(first.balance)}</dd>
          <dt>Reserved</dt>
          <dd>{credits(first.reserved)}</dd>
          <dt>Available</dt>
          <dd>{credits(first.available)}</dd>
        </dl>
      )}
      <h3>History</h3>
      {items.length === 0 ? (
        <p className="muted">No transactions yet.</p>
      ) : (
        <DataTable columns={['When', 'Kind', numeric('Credits'), numeric('Balance after')]}>
          {items.map((t) => (
            <tr key={t.id}>
              <td>{formatDateTime(t.createdAt)}</td>
              <td>
                {t.kind}
                {t.packId ? ` (${t.packId})` : ''}
              </td>
              <td className={`num ${t.amount < 0 ? 'pnl-neg' : 'pnl-pos'}`}>{t.amount.toLocaleString()}</td>
              <td className="num">{t.balanceAfter.toLocaleString()}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {wallet.hasNextPage && (
        <button type="button" className="ghost" onClick={() => void wallet.fetchNextPage()} disabled={wallet.isFetchingNextPage}>
          Load more
        </button>
      )}
    </section>
  );
}

function Pro() {
  const status = useQuery({ queryKey: ['billing', 'subscription'], queryFn: () => unwrap(client.GET('/api/billing/subscription')) });
  const subscribe = useMutation({ mutationFn: () => unwrap(client.POST('/api/billing/subscription/checkout')), onSuccess: (d) => goTo(d.url) });
  const portal = useMutation({ mutationFn: () => unwrap(client.POST('/api/billing/subscription/portal')), onSuccess: (d) => goTo(d.url) });
  if (status.isPending) return <Loading />;
  if (status.isError) return <ErrorNote error={status.error} />;
  const s = status.data;
  if (!s.proPlanAvailable && !s.subscription) return null;
  return (
    <section className="card" aria-labelledby="pro-title">
      <h2 id="pro-title">Pro plan</h2>
      {s.pro ? (
        <p>
          You have Pro{s.subscription?.currentPeriodEnd ? `, ${s.subscription.cancelAtPeriodEnd ? 'ending' : 'renewing'} ${formatDateTime(s.subscription.currentPeriodEnd)}` : ''}.
        </p>
      ) : s.subscription ? (
        <p>Your subscription is {s.subscription.status}.</p>
      ) : (
        <p>A monthly subscription.</p>
      )}
      <div className="row">
        {!s.pro && s.proPlanAvailable && (
          <button type="button" onClick={() => subscribe.mutate()} disabled={subscribe.isPending}>
            Subscribe to Pro
          </button>
        )}
        {s.subscription && (
          <button type="button" className="ghost" onClick={() => portal.mutate()} disabled={portal.isPending}>
            Manage subscription
          </button>
        )}
      </div>
      <ErrorNote error={subscribe.error ?? portal.error} />
    </section>
  );
}

export default function Billing() {
  const config = useAppConfig();
  const [params] = useSearchParams();
  if (config.isPending) return <Loading />;
  // Without a payment processor there is no billing screen at all.
  if (!config.data?.billing) return <Navigate to="/" replace />;
  const checkout = params.get('checkout') ?? params.get('subscription');
  return (
    <>
      <PageTitle>Billing</PageTitle>
      {checkout === 'success' && (
        <p className="note" role="status">
          Thank you: the payment went through. It shows here as soon as the payment processor confirms it.
        </p>
      )}
      {checkout === 'cancel' && (
        <p className="note" role="status">
          Checkout cancelled; nothing was charged.
        </p>
      )}
      <Packs />
      <Wallet />
      <Pro />
      <PlanUsage />
    </>
  );
}
