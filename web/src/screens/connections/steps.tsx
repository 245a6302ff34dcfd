// Where in each broker's own site to create read-only credentials, and
// what the journal reads with them (docs/broker-sync.md says the same).
import type { Broker } from './status';

export const setupSteps: Record<Broker, { title: string; steps: string[]; syncs: string }> = {
  ibkr: {
    title: 'Interactive Brokers: Flex Web Service token and query id',
    steps: [
      'Sign in to Client Portal and open Performance & Reports > Flex Queries.',
      'Create an Activity Flex Query with the Trades section (Executions), including IB Execution ID, Date/Time, Buy/Sell, Quantity, Trade Price and IB Commission. Format: XML. Period: Last 30 Calendar Days (or Last 365 for the first sync).',
      'Save it and copy the number shown next to its name: that is the query id.',
      'Under Flex Web Service Configuration, turn the service on and generate a token (it is valid for the time you choose, up to a year). Copy it.',
    ],
    syncs: "Every execution of the query's period, as the Flex CSV import reads it. The token only reads reports: it cannot trade.",
  },
  alpaca: {
    title: 'Alpaca: API key id and secret key',
    steps: [
      'Sign in to the Alpaca dashboard and pick the account (live or paper) on the Home page.',
      'Under API Keys, choose Generate New Keys (regenerating replaces the old ones).',
      'Copy the key id and the secret key: the secret is shown only once.',
    ],
    syncs: 'Your account activities of type FILL (stocks, options and crypto), from the last synced one on. A paper account needs the server set to the paper API (ALPACA_API_BASE_URL).',
  },
  kraken: {
    title: 'Kraken: a read-only API key',
    steps: [
      'Sign in to Kraken and open Settings > API, then Create API key.',
      'Name it "Trade journal" and allow only "Query Closed Orders & Trades". Leave every trading, funding and withdrawal permission off.',
      'Create it and copy the API key and the private key.',
      'Give the journal a key of its own: two programs sharing one key disturb each other\'s nonces.',
    ],
    syncs: 'Your trade history (spot trades), 50 trades a page, paced to Kraken\'s rate limit.',
  },
};
