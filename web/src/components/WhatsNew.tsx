// "What's new": the header's button to the changelog, with a marker while
// a version the user has not opened exists. Opening it records the newest
// version as read on the server, so every browser of the user agrees.
import { useEffect, useId, useRef, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { client, unwrap } from '../api/client';
import { formatDay } from '../format';
import { ErrorNote } from './ui';

const changelogKey = ['changelog'] as const;

export function WhatsNew() {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const closeRef = useRef<HTMLButtonElement>(null);
  const log = useQuery({ queryKey: changelogKey, queryFn: () => unwrap(client.GET('/api/changelog')), staleTime: 60 * 60_000 });
  const markRead = useMutation({
    mutationFn: () => unwrap(client.POST('/api/changelog/read')),
    onSuccess: (data) => queryClient.setQueryData(changelogKey, data),
  });
  const unread = log.data?.unread ?? 0;
  useEffect(() => {
    if (!open) return;
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <div className="whats-new">
      <button
        type="button"
        className="ghost"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={unread === 0 ? "What's new" : `What's new, ${unread === 1 ? '1 version' : `${unread} versions`} unread`}
        title="What's new"
        onClick={() => {
          setOpen(!open);
          if (!open && unread > 0) markRead.mutate();
        }}
      >
        {/* A sign, not words: the header's row is full at laptop widths. */}
        <span aria-hidden="true">✦</span>
        {unread > 0 && <span className="unread-marker" data-testid="whats-new-unread" />}
      </button>
      {open && (
        <section id={panelId} className="card whats-new-panel" role="dialog" aria-label="What's new">
          <div className="row">
            <h2>What's new</h2>
            <button ref={closeRef} type="button" className="ghost" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
          {log.isError && <ErrorNote error={log.error} />}
          {log.data?.entries.map((e) => (
            <article key={e.version}>
              <h3>
                Version {e.version} <span className="muted">· {formatDay(e.date)}</span>
              </h3>
              <ul>
                {e.changes.map((c) => (
                  <li key={c}>{c}</li>
                ))}
              </ul>
            </article>
          ))}
        </section>
      )}
    </div>
  );
}
