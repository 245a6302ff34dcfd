/**
 * An open option past its expiry day stays open until the journal's option-expiry job closes it at 0 (every 15
 * minutes): reading the journal never changes it. The API marks such a position `awaitingExpiry`; these say so in the
 * trader's words, on the position's page and in the list.
 */
export const awaitingExpiryText = 'Expired – the journal closes it at 0 within 15 minutes; if it was exercised or assigned, record that instead.';

export function AwaitingExpiryNote() {
  return (
    <p className="note note-warn" data-testid="awaiting-expiry">
      {awaitingExpiryText}
    </p>
  );
}

export function AwaitingExpiryBadge() {
  return (
    <span className="chip" title={awaitingExpiryText}>
      expired
    </span>
  );
}
