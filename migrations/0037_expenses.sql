-- Expenses: what trading costs besides the fills' fees (data feeds,
-- platforms, education, hardware, subscriptions), so a trader's result can
-- be read net of them. shared/expenses owns every read and write of these
-- tables.
--
-- An expense is a definition: one-off (recurrence 'none') or recurring
-- monthly or yearly from its start date until its end date (inclusive,
-- NULL: until further notice). Its charges are materialised as rows of
-- expense_charges, so a period's total is one indexed sum. The write of a
-- definition materialises the charges due up to today in the user's
-- reporting zone (users.timezone) and rewrites them all on an edit; the
-- expense-charges job (shared/jobs) materialises the periods that fall due
-- later. next_charge_on is the first charge not materialised yet (NULL:
-- none is left), which the job's index reads.

-- The user's own categories, beside the built-in ones (data, platform,
-- education, hardware, subscriptions, other), whose names they may not take.
CREATE TABLE expense_categories (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 50),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX expense_categories_user_name_key ON expense_categories (user_id, lower(name));

CREATE TABLE expenses (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- An expense of one account counts in that account's figures; without
    -- one (or once the account is deleted) it is the trader's overall.
    account_id     uuid REFERENCES accounts (id) ON DELETE SET NULL,
    -- Exactly one of a built-in category and a category of the user's.
    -- Deleting a category moves its expenses to 'other' first (the store
    -- does, in the same transaction), so the reference restricts.
    category       text CHECK (category IN ('data', 'platform', 'education', 'hardware', 'subscriptions', 'other')),
    category_id    uuid REFERENCES expense_categories (id),
    amount         numeric(18, 4) NOT NULL CHECK (amount > 0),
    currency       char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    note           text NOT NULL DEFAULT '' CHECK (length(note) <= 500),
    start_on       date NOT NULL CHECK (start_on BETWEEN '1900-01-01' AND '2199-12-31'),
    recurrence     text NOT NULL CHECK (recurrence IN ('none', 'monthly', 'yearly')),
    end_on         date CHECK (end_on >= start_on AND end_on <= '2199-12-31'),
    next_charge_on date,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((category IS NULL) <> (category_id IS NULL))
);
-- The list's order (newest start first) and its keyset.
CREATE INDEX expenses_user_start_idx ON expenses (user_id, start_on DESC, id DESC);
-- The job's work: definitions with a charge still to come.
CREATE INDEX expenses_next_charge_idx ON expenses (next_charge_on, id) WHERE next_charge_on IS NOT NULL;
CREATE INDEX expenses_category_id_idx ON expenses (category_id) WHERE category_id IS NOT NULL;
CREATE INDEX expenses_account_id_idx ON expenses (account_id) WHERE account_id IS NOT NULL;

-- The materialised charges: one per expense and charge date, in the
-- expense's amount and currency at the time of writing (an edit rewrites
-- them). user_id is the expense's, so a period's sums read one index.
CREATE TABLE expense_charges (
    expense_id uuid NOT NULL REFERENCES expenses (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    charge_on  date NOT NULL,
    amount     numeric(18, 4) NOT NULL CHECK (amount > 0),
    currency   char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    PRIMARY KEY (expense_id, charge_on)
);
CREATE INDEX expense_charges_user_day_idx ON expense_charges (user_id, charge_on DESC, expense_id DESC) INCLUDE (amount, currency);
