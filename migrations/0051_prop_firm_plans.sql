-- A prop-firm plan an account carries (shared/propfirm): the firm's rules
-- as the plan's JSON, checked by the api when written and read back through
-- the same check (propfirm.Validate). One plan an account; it goes with the
-- account. phase is the plan's, kept beside it for the statistics' filter.
CREATE TABLE prop_firm_plans (
    account_id uuid PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    phase      text NOT NULL CHECK (phase IN ('evaluation', 'funded')),
    plan       jsonb NOT NULL CHECK (jsonb_typeof(plan) = 'object' AND octet_length(plan::text) <= 8192),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX prop_firm_plans_user_idx ON prop_firm_plans (user_id);
