import { Link } from 'react-router';
import { attentionText } from './status';
import { useConnections } from './queries';

/** ConnectionNotice tells, on the dashboard, of broker connections failing for a day or more; nothing otherwise (or when the list cannot be read). */
export function ConnectionNotice() {
  const list = useConnections();
  const failing = (list.data ?? []).filter((c) => c.needsAttention);
  if (failing.length === 0) return null;
  return (
    <section className="note note-warn" role="alert" aria-label="Broker sync needs attention">
      {failing.map((c) => (
        <p key={c.id}>{attentionText(c)}</p>
      ))}
      <p>
        <Link to="/connections">Open Connections</Link>
      </p>
    </section>
  );
}
