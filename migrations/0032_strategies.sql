-- A strategy: option legs (and the underlying's shares) of one account
-- traded as one trade (a vertical, an iron condor, a covered call). Each
-- leg stays a position of its own, with its contract, side and fills, so
-- the strategy's P&L is its legs' sum by construction; a roll is a leg
-- closed and another added to the same strategy. What it is called, its
-- max profit and loss and breakevens are computed from the legs
-- (shared/journal's strategy engine), never stored.
CREATE TABLE strategies (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    account_id   uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '' CHECK (length(name) <= 100),
    -- What the trader planned to risk, in the account's currency: the R of
    -- the strategy's result. Without it, a defined max loss is the risk.
    planned_risk numeric(24, 4) CHECK (planned_risk > 0),
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX strategies_user_idx ON strategies (user_id, created_at DESC, id DESC);
CREATE INDEX strategies_account_id_idx ON strategies (account_id);

ALTER TABLE positions ADD COLUMN strategy_id uuid REFERENCES strategies (id) ON DELETE SET NULL;
CREATE INDEX positions_strategy_id_idx ON positions (strategy_id) WHERE strategy_id IS NOT NULL;
