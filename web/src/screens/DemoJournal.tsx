import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { client, unwrap, type Schemas } from '../api/client';
import { ConfirmButton, ErrorNote } from '../components/ui';

/**
 * DemoJournal offers the demo journal (a sample account of three months of
 * trades) to a user without accounts, and its removal while it is loaded.
 */
export function DemoJournal({ accounts }: { accounts: Schemas['Account'][] | undefined }) {
  const queryClient = useQueryClient();
  // Everything the demo touches: accounts, positions, figures, tags.
  const refresh = () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'me' && q.queryKey[0] !== 'config' });
  const load = useMutation({ mutationFn: () => unwrap(client.POST('/api/demo-journal')), onSuccess: refresh });
  const remove = useMutation({ mutationFn: () => unwrap(client.DELETE('/api/demo-journal')), onSuccess: refresh });
  const demo = accounts?.find((a) => a.demo);
  if (demo) {
    return (
      <section className="card" aria-label="Demo journal">
        <p>
          You are looking at the demo journal: the account <strong>{demo.name}</strong> holds sample trades. Remove it when you are ready to record
          your own; your own accounts and trades stay.
        </p>
        <p>
          It also fills the rest of the journal: a day written up in the <Link to="/journal">Journal</Link>, a <Link to="/playbooks">playbook</Link> its
          opening-range trades follow, a <Link to="/rules">trading rule</Link> and an iron condor under <Link to="/strategies">Strategies</Link>.
        </p>
        <ConfirmButton className="danger" question="Remove the demo account with all its trades, and its playbook, rule, strategy and day entry?" busy={remove.isPending} onConfirm={() => remove.mutate()}>
          Remove the demo journal
        </ConfirmButton>
        <ErrorNote error={remove.error} />
      </section>
    );
  }
  if (accounts === undefined || accounts.length > 0) return null;
  return (
    <section className="card" aria-label="Demo journal">
      <p>
        New here? Load a demo journal to see the dashboard, the calendar and the position pages with three months of sample trades, with a playbook,
        a trading rule, an options strategy and a day in the journal. You can remove it in one click.
      </p>
      <button type="button" onClick={() => load.mutate()} disabled={load.isPending}>
        {load.isPending ? 'Loading the demo journal…' : 'Load a demo journal'}
      </button>
      <ErrorNote error={load.error} />
    </section>
  );
}
