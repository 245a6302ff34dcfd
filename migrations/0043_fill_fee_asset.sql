-- A fill's fee as the broker charged it: in the account's currency, or in
-- a coin or currency of its own (fee_asset: a crypto fee in the base, the
-- quote or BNB), with the rate that converts it into the account's
-- (fee_rate: 1 fee_asset in the account's currency, found by the journal
-- store on every write: the fill's rate for the quote, price x rate for
-- the base, else the trader's stored rate of the fill's day). A fee
-- without its rate leaves the position awaiting one (awaiting_rate), as
-- an exit without a rate does. positions.fees stays the account's
-- currency; the raw fee may carry a coin's 18 places.

ALTER TABLE fills
    ALTER COLUMN fees TYPE numeric(28, 18),
    ADD COLUMN fee_asset text CHECK (fee_asset ~ '^[A-Z0-9]{2,10}$'),
    ADD COLUMN fee_rate numeric(30, 12) CHECK (fee_rate > 0),
    ADD CHECK (fee_asset IS NOT NULL OR fee_rate IS NULL);
