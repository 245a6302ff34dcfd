-- Broker sync (shared/brokersync): a user's connections to a broker's
-- read-only API, each syncing into one of the user's accounts.
-- credentials is the source's credentials as JSON, sealed with
-- ENCRYPTION_KEY (encrypt.BrokerCredentials); it is never stored without a
-- key, never answered, logged or exported.
CREATE TABLE broker_connections (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id       uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    broker           text NOT NULL CHECK (broker IN ('ibkr', 'alpaca', 'kraken')),
    label            text NOT NULL CHECK (length(label) BETWEEN 1 AND 100),
    credentials      text NOT NULL,
    paused           boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    -- The newest execution synced: the next sync asks from here on.
    synced_through   timestamptz,
    -- The last attempt, and what it did.
    last_sync_at     timestamptz,
    last_added       integer NOT NULL DEFAULT 0 CHECK (last_added >= 0),
    last_success_at  timestamptz,
    -- The last attempt's failure (code and the broker's own words), the
    -- time of the first failure of the current run of failures, and the
    -- earliest next try the broker allows (its rate limit).
    error_code       text,
    error_message    text,
    failing_since    timestamptz,
    retry_at         timestamptz,
    -- A sync holds its connection until then (a lease, so two syncs at
    -- once never run, on any host, and a crashed one frees it).
    running_until    timestamptz
);

CREATE INDEX broker_connections_user ON broker_connections (user_id, created_at);

-- The broker's execution ids a connection has synced: a re-sync skips
-- them. Written in the import's own transaction.
CREATE TABLE broker_sync_executions (
    connection_id uuid NOT NULL REFERENCES broker_connections (id) ON DELETE CASCADE,
    execution_id  text NOT NULL CHECK (length(execution_id) BETWEEN 1 AND 200),
    PRIMARY KEY (connection_id, execution_id)
);
