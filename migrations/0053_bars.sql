-- Price bars a trader uploads for a symbol (futures and forex platforms
-- export them), and the excursions measured from bars (shared/market).

-- One upload per user and symbol: a new upload replaces the old.
-- step_seconds is the bars' length, read from the file.
CREATE TABLE bar_uploads (
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    symbol       text NOT NULL CHECK (length(symbol) BETWEEN 1 AND 64),
    step_seconds integer NOT NULL CHECK (step_seconds BETWEEN 60 AND 604800),
    bar_count    integer NOT NULL CHECK (bar_count > 0),
    first_at     timestamptz NOT NULL,
    last_at      timestamptz NOT NULL,
    uploaded_at  timestamptz NOT NULL,
    PRIMARY KEY (user_id, symbol)
);

CREATE TABLE uploaded_bars (
    user_id uuid NOT NULL,
    symbol  text NOT NULL,
    at      timestamptz NOT NULL,
    open    numeric NOT NULL CHECK (open > 0),
    high    numeric NOT NULL CHECK (high > 0),
    low     numeric NOT NULL CHECK (low > 0),
    close   numeric NOT NULL CHECK (close > 0),
    volume  numeric NOT NULL CHECK (volume >= 0),
    PRIMARY KEY (user_id, symbol, at),
    FOREIGN KEY (user_id, symbol) REFERENCES bar_uploads (user_id, symbol) ON DELETE CASCADE
);

-- The excursions measured from bars (typed mae_price and mfe_price win
-- over them), which of the stop and the target the price reached first
-- ('none': neither, or no stop or target), where the bars came from
-- ('Alpaca', 'uploaded', ...), when they were measured, and the close
-- they were measured to: they stand only while it is the position's
-- close (a changed fill makes them stale, and the job measures again). A
-- closed position measured without bars has no source; the job measures
-- it again once bars of its symbol are uploaded.
ALTER TABLE positions
    ADD COLUMN bars_mae_price   numeric CHECK (bars_mae_price > 0),
    ADD COLUMN bars_mfe_price   numeric CHECK (bars_mfe_price > 0),
    ADD COLUMN bars_first_hit   text CHECK (bars_first_hit IN ('target', 'stop', 'none')),
    ADD COLUMN bars_source      text CHECK (length(bars_source) BETWEEN 1 AND 40),
    ADD COLUMN bars_measured_at timestamptz,
    ADD COLUMN bars_closed_at   timestamptz;

-- The excursions job's look-up: closed positions not measured to their close.
CREATE INDEX positions_unmeasured ON positions (closed_at) WHERE status = 'closed' AND bars_closed_at IS DISTINCT FROM closed_at;
