-- The journal: brokerages, accounts and their ledger, positions and fills,
-- tags, images, exchange rates. Money is NUMERIC, time is timestamptz (UTC).
-- Every user-owned row carries user_id so each query scopes by owner with an
-- index, and another user's id is indistinguishable from a missing one.

-- The reporting currency the dashboard converts into.
ALTER TABLE users ADD COLUMN display_currency char(3) CHECK (display_currency ~ '^[A-Z]{3}$');

-- Fee schedules: the seven calculator fee fields. user_id NULL marks the
-- built-in, read-only schedules every user sees.
CREATE TABLE brokerages (
    id                                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id                           uuid REFERENCES users (id) ON DELETE CASCADE,
    name                              text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    stock_per_share_commission        numeric(18, 8) NOT NULL DEFAULT 0 CHECK (stock_per_share_commission >= 0),
    stock_min_per_fill                numeric(18, 8) NOT NULL DEFAULT 0 CHECK (stock_min_per_fill >= 0),
    stock_max_per_fill                numeric(18, 8) NOT NULL DEFAULT 0 CHECK (stock_max_per_fill >= 0),
    options_per_contract_commission   numeric(18, 8) NOT NULL DEFAULT 0 CHECK (options_per_contract_commission >= 0),
    options_per_contract_exchange_fee numeric(18, 8) NOT NULL DEFAULT 0 CHECK (options_per_contract_exchange_fee >= 0),
    options_min_per_fill              numeric(18, 8) NOT NULL DEFAULT 0 CHECK (options_min_per_fill >= 0),
    options_max_per_fill              numeric(18, 8) NOT NULL DEFAULT 0 CHECK (options_max_per_fill >= 0),
    created_at                        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX brokerages_user_id_idx ON brokerages (user_id);

INSERT INTO brokerages (id, name, stock_per_share_commission, stock_min_per_fill, stock_max_per_fill,
                        options_per_contract_commission, options_per_contract_exchange_fee,
                        options_min_per_fill, options_max_per_fill) VALUES
    ('00000000-0000-4000-8000-000000000001', 'Commission-free', 0, 0, 0, 0, 0, 0, 0),
    ('00000000-0000-4000-8000-000000000002', 'Interactive Brokers (fixed)', 0.005, 1, 0, 0.65, 0, 1, 0),
    ('00000000-0000-4000-8000-000000000003', 'Charles Schwab', 0, 0, 0, 0.65, 0, 0, 0),
    ('00000000-0000-4000-8000-000000000004', 'TradeStation', 0, 0, 0, 0.60, 0, 0, 0);

CREATE TABLE accounts (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id              uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name                 text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    currency             char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- The trading-day zone: P&L calendars bucket by the exchange's day.
    timezone             text NOT NULL DEFAULT 'America/New_York',
    -- numeric(18,4) is exactly the calculator's account-balance domain.
    starting_balance     numeric(18, 4) NOT NULL DEFAULT 0,
    -- starting_balance plus the sum of ledger_entries, kept in the same
    -- transaction as every ledger write (so totals read one row per account).
    balance              numeric(18, 4) NOT NULL DEFAULT 0,
    default_risk_percent numeric(7, 4) CHECK (default_risk_percent > 0 AND default_risk_percent <= 100),
    brokerage_id         uuid REFERENCES brokerages (id) ON DELETE SET NULL,
    archived             boolean NOT NULL DEFAULT false,
    created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_user_id_idx ON accounts (user_id, created_at, id);

CREATE TABLE positions (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    -- Stock ticker, or the OCC option symbol ("AAPL  240119C00190000").
    symbol        text NOT NULL CHECK (length(symbol) BETWEEN 1 AND 32),
    asset_type    text NOT NULL CHECK (asset_type IN ('stock', 'option')),
    underlying    text,
    option_expiry date,
    option_right  char(1) CHECK (option_right IN ('C', 'P')),
    option_strike numeric(18, 8),
    multiplier    integer NOT NULL DEFAULT 1 CHECK (multiplier > 0),
    side          text NOT NULL CHECK (side IN ('long', 'short')),
    -- draft: no fills; open: quantity held; closed: back to zero.
    status        text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'open', 'closed')),
    stop_loss     numeric(18, 8) CHECK (stop_loss > 0),
    target_price  numeric(18, 8) CHECK (target_price > 0),
    -- Free text; encrypted at rest when ENCRYPTION_KEY is set, so text.
    notes         text NOT NULL DEFAULT '',
    -- Derived from the fills in the transaction that changes them; never typed in.
    opened_at       timestamptz,
    closed_at       timestamptz,
    entry_quantity  numeric(24, 8) NOT NULL DEFAULT 0,
    exit_quantity   numeric(24, 8) NOT NULL DEFAULT 0,
    open_quantity   numeric(24, 8) NOT NULL DEFAULT 0,
    avg_entry_price numeric(24, 10),
    avg_exit_price  numeric(24, 10),
    gross_pnl       numeric(24, 4) NOT NULL DEFAULT 0,
    fees            numeric(24, 4) NOT NULL DEFAULT 0,
    net_pnl         numeric(24, 4) NOT NULL DEFAULT 0,
    initial_risk    numeric(24, 4),
    r_multiple      numeric(24, 4),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
-- The positions list pages newest first; performance reads closed positions by close time.
CREATE INDEX positions_user_opened_idx ON positions (user_id, opened_at DESC NULLS FIRST, id DESC);
CREATE INDEX positions_user_closed_idx ON positions (user_id, closed_at) WHERE status = 'closed';
CREATE INDEX positions_account_id_idx ON positions (account_id);
CREATE INDEX positions_user_symbol_idx ON positions (user_id, symbol);

CREATE TABLE fills (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    position_id   uuid NOT NULL REFERENCES positions (id) ON DELETE CASCADE,
    type          text NOT NULL CHECK (type IN ('entry', 'exit')),
    price         numeric(18, 8) NOT NULL CHECK (price > 0),
    quantity      numeric(24, 8) NOT NULL CHECK (quantity > 0),
    fees          numeric(18, 4) NOT NULL DEFAULT 0 CHECK (fees >= 0),
    -- True when the fee came from the account's fee schedule, not the user.
    fee_estimated boolean NOT NULL DEFAULT false,
    filled_at     timestamptz NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fills_position_id_idx ON fills (position_id, filled_at, id);

CREATE TABLE tags (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 50),
    category   text NOT NULL DEFAULT 'general' CHECK (category IN ('setup', 'mistake', 'emotion', 'general')),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tags_user_name_key ON tags (user_id, lower(name));

CREATE TABLE position_tags (
    position_id uuid NOT NULL REFERENCES positions (id) ON DELETE CASCADE,
    tag_id      uuid NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (position_id, tag_id)
);
CREATE INDEX position_tags_tag_id_idx ON position_tags (tag_id, position_id);

-- Screenshots of a chart, kept inline until object storage is configured
-- (then storage_key names the object and data is NULL).
CREATE TABLE position_images (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position_id  uuid NOT NULL REFERENCES positions (id) ON DELETE CASCADE,
    content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
    size_bytes   integer NOT NULL CHECK (size_bytes > 0),
    data         bytea,
    storage_key  text,
    caption      text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    CHECK ((data IS NULL) <> (storage_key IS NULL))
);
CREATE INDEX position_images_position_id_idx ON position_images (position_id, created_at);

-- Every change to an account's balance after its start: deposits,
-- withdrawals, and per fill the realised P&L and the fees. Rows of a position
-- are rewritten with the position whenever its fills change.
CREATE TABLE ledger_entries (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('deposit', 'withdrawal', 'realized_pnl', 'fee')),
    amount      numeric(24, 4) NOT NULL,
    position_id uuid REFERENCES positions (id) ON DELETE CASCADE,
    fill_id     uuid REFERENCES fills (id) ON DELETE CASCADE,
    occurred_at timestamptz NOT NULL,
    note        text NOT NULL DEFAULT '' CHECK (length(note) <= 500),
    created_at  timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind IN ('deposit', 'withdrawal')) = (position_id IS NULL))
);
CREATE INDEX ledger_entries_account_idx ON ledger_entries (account_id, occurred_at DESC, id DESC);
CREATE INDEX ledger_entries_position_idx ON ledger_entries (position_id) WHERE position_id IS NOT NULL;

-- A user's exchange rates: 1 base = rate quote, from effective_date on.
CREATE TABLE exchange_rates (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    base_currency  char(3) NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
    quote_currency char(3) NOT NULL CHECK (quote_currency ~ '^[A-Z]{3}$'),
    effective_date date NOT NULL,
    rate           numeric(30, 12) NOT NULL CHECK (rate > 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK (base_currency <> quote_currency),
    CONSTRAINT exchange_rates_user_pair_date_key UNIQUE (user_id, base_currency, quote_currency, effective_date)
);
