-- Trading rules a user sets (shared/rules): each day's compliance is judged
-- from the journal when asked, so nothing derived is stored. params holds
-- the rule's settings as shared/rules.ParseParams validated them.
CREATE TABLE trading_rules (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type       text NOT NULL CHECK (length(type) BETWEEN 1 AND 40),
    params     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(params) = 'object'),
    enabled    boolean NOT NULL DEFAULT true,
    -- NULL: every account; else the rule judges that account's positions
    -- and its money limits are in that account's currency.
    account_id uuid REFERENCES accounts (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trading_rules_user_idx ON trading_rules (user_id, created_at, id);
