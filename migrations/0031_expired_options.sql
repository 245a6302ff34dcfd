-- An option that expires worthless leaves the journal by an exit at price
-- 0 (journalstore.ExpireOptions writes it the day after expiry; a trader
-- may enter one too, and so may a delisted share). Entries stay above 0.
ALTER TABLE fills DROP CONSTRAINT fills_price_check;
ALTER TABLE fills ADD CONSTRAINT fills_price_check CHECK (price > 0 OR (price = 0 AND type = 'exit'));

-- The open options of a user by expiry: what every journal read asks
-- before it answers (a handful of rows, so the check costs next to nothing).
CREATE INDEX positions_open_options_idx ON positions (user_id, option_expiry)
    WHERE status = 'open' AND asset_type = 'option';
