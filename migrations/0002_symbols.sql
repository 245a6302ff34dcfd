-- The SEC's public ticker list (company_tickers_exchange.json), for symbol
-- autocomplete. shared/market replaces the whole table in one transaction
-- at most once a day; nothing else writes it.

CREATE TABLE symbols (
    ticker   text PRIMARY KEY CHECK (ticker ~ '^[A-Z0-9.-]{1,10}$'),
    name     text NOT NULL,
    exchange text,
    cik      bigint NOT NULL CHECK (cik > 0),
    -- Position in the SEC file (0 first). The file lists the largest
    -- companies first, so search ranks by it within a match tier.
    rank     integer NOT NULL
);

-- One row: the state of the refresh. generation grows by one whenever the
-- table is replaced, so each instance's in-memory index knows when to reload.
CREATE TABLE symbol_refresh (
    id            boolean PRIMARY KEY DEFAULT true CHECK (id),
    generation    bigint NOT NULL DEFAULT 0,
    -- The Last-Modified header of the file last loaded, sent back as
    -- If-Modified-Since.
    last_modified text,
    -- Last answer from the SEC (200 or 304), and last attempt of any outcome.
    checked_at    timestamptz,
    attempted_at  timestamptz,
    refreshed_at  timestamptz,
    row_count     integer NOT NULL DEFAULT 0
);
INSERT INTO symbol_refresh DEFAULT VALUES;
