// The words of a broker connection's status: what the last sync did, why it
// failed and what to do next, with times in the user's zone. The API's
// failure codes are for programs; these are for the person.
import type { Schemas } from '../../api/client';
import { counted, formatDateTime } from '../../format';

export type Connection = Schemas['Connection'];
export type Failure = Schemas['SyncFailure'];
export type Broker = Connection['broker'];

export const brokerNames: Record<Broker, string> = {
  ibkr: 'Interactive Brokers',
  alpaca: 'Alpaca',
  kraken: 'Kraken',
};

/** failureText says what went wrong and what to do about it. */
export function failureText(broker: Broker, f: Failure): string {
  const name = brokerNames[broker];
  switch (f.code) {
    case 'TOKEN_EXPIRED':
      return 'The Flex token has expired. In Client Portal, open Performance & Reports > Flex Queries > Flex Web Service Configuration, generate a new token, then delete this connection and connect again with it.';
    case 'TOKEN_INVALID':
      return `Interactive Brokers does not accept the token (${f.message}). Check that the Flex Web Service is on and that the token was copied whole, then connect again.`;
    case 'QUERY_INVALID':
      return 'Interactive Brokers does not know the query id. Copy the number shown next to your Activity Flex Query under Flex Queries, then connect again.';
    case 'CREDENTIALS_REJECTED':
      return `${name} refused the key: it was revoked, regenerated or mistyped (${f.message}). Create a new read-only key and connect again.`;
    case 'PERMISSION_DENIED':
      return 'The Kraken key may not read your trades. Edit the key under Settings > API and allow "Query Closed Orders & Trades", or create a new key with it.';
    case 'RATE_LIMITED':
      return f.retryAt
        ? `${name} asked the journal to slow down. The next try is at ${formatDateTime(f.retryAt)}.`
        : `${name} asked the journal to slow down. The next scheduled sync tries again.`;
    case 'STATEMENT_NOT_READY':
      return 'Interactive Brokers was still preparing the statement. The next sync asks again; nothing needs doing.';
    case 'BROKER_UNAVAILABLE':
      return `${name} could not be reached or had a problem (${f.message}). The next sync tries again.`;
    case 'ANSWER_UNREADABLE':
      return `${name}'s answer could not be read (${f.message}). If this goes on, check the server's broker address settings.`;
    case 'STATEMENT_UNREADABLE':
      return `The trades could not be read: ${f.message}.`;
    case 'FILLS_DO_NOT_FIT':
      return `The broker's trades do not fit your journal's positions (${f.message}). Import the earlier history from a file on the Import page, then sync again.`;
    case 'CREDENTIALS_UNREADABLE':
      return "The server's encryption key has changed since you connected. Delete this connection and connect again.";
  }
  return f.message;
}

/** statusText is one sentence on where a connection stands. */
export function statusText(c: Connection): string {
  if (c.status === 'running') return 'Syncing now…';
  if (c.status === 'failing' && c.error) {
    const since = c.lastSuccessAt ? ` It last synced at ${formatDateTime(c.lastSuccessAt)}.` : ' It has not synced yet.';
    return `The sync at ${formatDateTime(c.lastSyncAt)} failed. ${failureText(c.broker, c.error)}${since}`;
  }
  if (c.status === 'never' || !c.lastSyncAt) return c.paused ? 'Not synced yet. Paused: only Sync now syncs it.' : 'Not synced yet: the schedule syncs it within 15 minutes, or press Sync now.';
  const added = c.lastAdded === 0 ? 'nothing new' : `added ${counted(c.lastAdded, 'fill')}`;
  const paused = c.paused ? ' Paused: the schedule skips it; Sync now still syncs.' : '';
  return `Last synced at ${formatDateTime(c.lastSyncAt)}: ${added}.${paused}`;
}

/** attentionText is the dashboard's notice of a connection failing for a day. */
export function attentionText(c: Connection): string {
  const since = c.lastSuccessAt ? `since ${formatDateTime(c.lastSuccessAt)}` : `since it was connected`;
  return `${c.label} has not synced ${since}. ${c.error ? failureText(c.broker, c.error) : ''}`.trim();
}
