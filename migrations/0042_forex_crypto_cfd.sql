-- Forex, crypto and CFDs as position asset types (shared/instrument/pair.go).
--
-- A pair's (or a CFD's) prices are in its quote currency, so a position
-- holds it (quote_currency; base_currency for a pair), its realised P&L in
-- that currency (quote_gross_pnl), and each fill the rate that converted it
-- into the account's currency (rate: 1 quote = rate account currency;
-- rate_given when the trader or the broker's file gave it, else the
-- journal store found it and finds it again on every write of the
-- position). A closed position with an exit that has no rate yet awaits
-- one (awaiting_rate): its account-currency figures leave that exit out and
-- the statistics leave the position out until a rate is stored.
--
-- Crypto quantities and prices carry up to 18 decimal places (wei,
-- sub-satoshi fee fractions, coins priced at 0.00000123); the other asset
-- types keep their 8 (the API's rules, shared/journal). Widening the scale
-- rewrites fills and positions once.

ALTER TABLE positions DROP CONSTRAINT positions_asset_type_check;
ALTER TABLE positions ADD CONSTRAINT positions_asset_type_check
    CHECK (asset_type IN ('stock', 'option', 'future', 'future_option', 'forex', 'crypto', 'cfd'));

-- CFDs and crypto contracts take a value per point; forex keeps 1.
ALTER TABLE positions DROP CONSTRAINT positions_whole_multiplier_check;
ALTER TABLE positions ADD CONSTRAINT positions_whole_multiplier_check
    CHECK (asset_type IN ('future', 'future_option', 'cfd', 'crypto') OR multiplier = trunc(multiplier));

ALTER TABLE positions
    ADD COLUMN base_currency text CHECK (base_currency ~ '^[A-Z0-9]{2,10}$'),
    ADD COLUMN quote_currency text CHECK (quote_currency ~ '^[A-Z0-9]{2,10}$'),
    ADD COLUMN quote_gross_pnl numeric(30, 4),
    ADD COLUMN awaiting_rate boolean NOT NULL DEFAULT false,
    ALTER COLUMN entry_quantity TYPE numeric(30, 18),
    ALTER COLUMN exit_quantity TYPE numeric(30, 18),
    ALTER COLUMN open_quantity TYPE numeric(30, 18),
    ALTER COLUMN avg_entry_price TYPE numeric(30, 18),
    ALTER COLUMN avg_exit_price TYPE numeric(30, 18),
    ALTER COLUMN stop_loss TYPE numeric(28, 18),
    ALTER COLUMN target_price TYPE numeric(28, 18),
    ADD CONSTRAINT positions_pair_check CHECK (
        CASE
            WHEN asset_type IN ('forex', 'crypto') THEN base_currency IS NOT NULL AND quote_currency IS NOT NULL
            WHEN asset_type = 'cfd' THEN base_currency IS NULL
            ELSE base_currency IS NULL AND quote_currency IS NULL AND NOT awaiting_rate
        END
    );

ALTER TABLE fills
    ALTER COLUMN price TYPE numeric(28, 18),
    ALTER COLUMN quantity TYPE numeric(30, 18),
    ADD COLUMN rate numeric(30, 12) CHECK (rate > 0),
    ADD COLUMN rate_given boolean NOT NULL DEFAULT false,
    ADD CHECK (rate IS NOT NULL OR NOT rate_given);

-- Positions awaiting a rate, found when a rate is stored.
CREATE INDEX positions_awaiting_rate_idx ON positions (user_id) WHERE awaiting_rate;
