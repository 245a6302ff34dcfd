-- Billing: each user's credit wallet and its append-only ledger, credit
-- reservations and the usage they settle into, the payment processor's
-- customers, pack purchases, Pro subscriptions, and the webhook events
-- already processed.
--
-- Credits are whole numbers: 1 credit = 1 micro-USD of provider cost, so
-- prices and grants stay integers (bigint). Money the processor took is kept
-- in minor units with its currency, as the processor reports it.

-- One row per user who ever held credits. reserved is the sum of the user's
-- active reservations; available = balance - reserved, never negative.
CREATE TABLE wallets (
    user_id    uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    balance    bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
    reserved   bigint NOT NULL DEFAULT 0 CHECK (reserved >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK (reserved <= balance)
);

-- Every change to a balance, written in the transaction that changes it.
-- The identity orders a user's history and is its keyset cursor.
CREATE TABLE wallet_transactions (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind          text NOT NULL CHECK (kind IN ('purchase', 'usage', 'adjustment')),
    -- Signed: purchases add, usage subtracts.
    amount        bigint NOT NULL CHECK (amount <> 0),
    balance_after bigint NOT NULL CHECK (balance_after >= 0),
    pack_id       text,
    -- The checkout session of a purchase, the reservation of a usage charge.
    reference     text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (kind <> 'purchase' OR (amount > 0 AND pack_id IS NOT NULL)),
    CHECK (kind <> 'usage' OR amount < 0)
);
CREATE INDEX wallet_transactions_user_idx ON wallet_transactions (user_id, id DESC);

-- The ledger is append-only: an UPDATE or a direct DELETE is refused. Rows
-- leave only with their user (the cascade fires this trigger one level deep).
CREATE FUNCTION wallet_transactions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'wallet_transactions is append-only';
END
$$;
CREATE TRIGGER wallet_transactions_append_only BEFORE UPDATE OR DELETE ON wallet_transactions
    FOR EACH ROW EXECUTE FUNCTION wallet_transactions_append_only();

-- A hold on credits before a streamed turn. active holds count in
-- wallets.reserved; settled, released and expired ones do not.
CREATE TABLE credit_reservations (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    amount     bigint NOT NULL CHECK (amount >= 0),
    status     text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'settled', 'released', 'expired')),
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    closed_at  timestamptz,
    CHECK ((status = 'active') = (closed_at IS NULL))
);
CREATE INDEX credit_reservations_user_idx ON credit_reservations (user_id, created_at DESC);
-- The sweeper's scan: only active holds, by expiry.
CREATE INDEX credit_reservations_expiry_idx ON credit_reservations (expires_at) WHERE status = 'active';

-- What a settled reservation cost: the provider's raw cost, the markup in
-- force, and the whole credits charged (at most what was available).
CREATE TABLE credit_usage (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    reservation_id uuid NOT NULL CONSTRAINT credit_usage_reservation_key UNIQUE
                   REFERENCES credit_reservations (id) ON DELETE CASCADE,
    raw_cost       numeric(30, 6) NOT NULL CHECK (raw_cost >= 0),
    markup         numeric(12, 6) NOT NULL CHECK (markup > 0),
    -- ceil(raw_cost x markup) before the cap.
    priced         bigint NOT NULL CHECK (priced >= 0),
    charged        bigint NOT NULL CHECK (charged >= 0 AND charged <= priced),
    created_at     timestamptz NOT NULL
);
CREATE INDEX credit_usage_user_idx ON credit_usage (user_id, created_at DESC);

-- The processor's customer of a user, created before the user's first
-- checkout, so subscription events and the billing portal find the user.
CREATE TABLE billing_customers (
    user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    customer_id text NOT NULL CONSTRAINT billing_customers_customer_key UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per paid pack checkout: the key that makes crediting happen once
-- per checkout session, whichever event (completed, or async payment
-- succeeded) reports the payment.
CREATE TABLE billing_purchases (
    checkout_session_id text PRIMARY KEY,
    user_id             uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    pack_id             text NOT NULL,
    credits             bigint NOT NULL CHECK (credits > 0),
    amount_minor        bigint,
    currency            text,
    event_id            text NOT NULL,
    created_at          timestamptz NOT NULL
);
CREATE INDEX billing_purchases_user_idx ON billing_purchases (user_id, created_at DESC);

-- Pro subscriptions as the processor last reported them. last_event_at is
-- the creation time of the newest event applied, so an older event that
-- arrives late cannot undo a newer one.
CREATE TABLE billing_subscriptions (
    subscription_id      text PRIMARY KEY,
    user_id              uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    customer_id          text,
    status               text NOT NULL,
    price_id             text,
    current_period_end   timestamptz,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    last_event_at        timestamptz NOT NULL,
    updated_at           timestamptz NOT NULL
);
CREATE INDEX billing_subscriptions_user_idx ON billing_subscriptions (user_id, current_period_end DESC);

-- Webhook events already handled, each recorded in the transaction of its
-- effect: a replay, or the same event delivered concurrently, finds its id
-- here (or waits on the first delivery's insert) and does nothing.
CREATE TABLE billing_webhook_events (
    event_id      text PRIMARY KEY,
    type          text NOT NULL,
    event_created timestamptz NOT NULL,
    processed_at  timestamptz NOT NULL
);
CREATE INDEX billing_webhook_events_processed_idx ON billing_webhook_events (processed_at);
