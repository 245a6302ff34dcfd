-- Futures as a position asset type (shared/journal/futures.go).
--
-- A future's symbol is its contract in canonical form, root + month code +
-- two-digit year ("ESZ24"); underlying holds the root ("ES") as it holds an
-- option's root, and contract_month the first day of the delivery month.
-- multiplier is the contract's point value in the account's currency, so
-- P&L stays (exit - entry) x quantity x multiplier for every asset type; it
-- becomes a decimal because some point values are fractions (MYM: 0.5 USD a
-- point). Stocks and options keep whole multipliers (1 and 100).
--
-- Only columns and constraints change: the figures of every existing
-- position are what they were, and nothing here reads or replaces another
-- migration's functions or triggers (the performance rollups read net P&L,
-- which a future computes like any position).

ALTER TABLE positions ALTER COLUMN multiplier TYPE numeric(18, 8);

ALTER TABLE positions ADD COLUMN contract_month date;

ALTER TABLE positions DROP CONSTRAINT positions_asset_type_check;
ALTER TABLE positions ADD CONSTRAINT positions_asset_type_check
    CHECK (asset_type IN ('stock', 'option', 'future'));

-- A future has a root and a contract month and no option fields; nothing
-- else has a contract month.
ALTER TABLE positions ADD CONSTRAINT positions_future_fields_check CHECK (
    CASE WHEN asset_type = 'future'
        THEN underlying IS NOT NULL AND contract_month IS NOT NULL
            AND extract(day FROM contract_month) = 1
            AND option_expiry IS NULL AND option_right IS NULL AND option_strike IS NULL
        ELSE contract_month IS NULL
    END
);

-- Stocks and options keep whole multipliers, as before this migration.
ALTER TABLE positions ADD CONSTRAINT positions_whole_multiplier_check
    CHECK (asset_type = 'future' OR multiplier = trunc(multiplier));
