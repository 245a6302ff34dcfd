-- Futures options as a position asset type (shared/instrument/futureoption.go).
--
-- A futures option's symbol is canonical: "./", its future's contract, a
-- space, the expiry YYMMDD, C or P and the strike ("./ESZ24 241220C5000").
-- Its row holds both the future's columns (underlying: the root, "ES";
-- contract_month: the future's month) and the option's (option_expiry,
-- option_right, option_strike). multiplier is the future's point value, a
-- fraction for some roots (MYM: 0.5), as a future's is.
--
-- Only constraints and one index change: every existing row keeps its
-- figures, and nothing here reads or replaces another migration's
-- functions.

ALTER TABLE positions DROP CONSTRAINT positions_asset_type_check;
ALTER TABLE positions ADD CONSTRAINT positions_asset_type_check
    CHECK (asset_type IN ('stock', 'option', 'future', 'future_option'));

-- A future has a root and a contract month and no option fields; a futures
-- option has a root, its future's month and every option field; nothing
-- else has a contract month.
ALTER TABLE positions DROP CONSTRAINT positions_future_fields_check;
ALTER TABLE positions ADD CONSTRAINT positions_future_fields_check CHECK (
    CASE asset_type
        WHEN 'future' THEN underlying IS NOT NULL AND contract_month IS NOT NULL
            AND extract(day FROM contract_month) = 1
            AND option_expiry IS NULL AND option_right IS NULL AND option_strike IS NULL
        WHEN 'future_option' THEN underlying IS NOT NULL AND contract_month IS NOT NULL
            AND extract(day FROM contract_month) = 1
            AND option_expiry IS NOT NULL AND option_right IS NOT NULL AND option_strike > 0
        ELSE contract_month IS NULL
    END
);

-- Stocks and options keep whole multipliers; futures and their options
-- take the future's point value.
ALTER TABLE positions DROP CONSTRAINT positions_whole_multiplier_check;
ALTER TABLE positions ADD CONSTRAINT positions_whole_multiplier_check
    CHECK (asset_type IN ('future', 'future_option') OR multiplier = trunc(multiplier));

-- The option-expiry job reads open options and futures options by expiry.
DROP INDEX positions_open_options_idx;
CREATE INDEX positions_open_options_idx ON positions (user_id, option_expiry)
    WHERE status = 'open' AND asset_type IN ('option', 'future_option');
