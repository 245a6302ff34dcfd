-- The free plan's limits (shared/plans) count a user's image bytes on every
-- upload, and the admin pages rank users by it: index position_images by
-- user with the size, so the sum reads the index alone. The other counts
-- (accounts, positions, csv_imports) already have their user's index.
CREATE INDEX position_images_user_size_idx ON position_images (user_id) INCLUDE (size_bytes);

-- Imports in the last 24 hours, and in an admin's chosen period.
CREATE INDEX csv_imports_user_committed_idx ON csv_imports (user_id, committed_at);
DROP INDEX csv_imports_user_idx;

-- What each paid Pro invoice took (functions/billing's invoice.paid), so the
-- admin usage figures sum revenue from the payment records: pack purchases
-- are in billing_purchases (and deleted_account_payments). The user is
-- forgotten when their account is deleted; the payment stays, like a pack's.
CREATE TABLE billing_invoice_payments (
    invoice_id      text PRIMARY KEY,
    user_id         uuid REFERENCES users (id) ON DELETE SET NULL,
    subscription_id text NOT NULL,
    amount_minor    bigint NOT NULL CHECK (amount_minor >= 0),
    currency        text NOT NULL,
    event_id        text NOT NULL,
    paid_at         timestamptz NOT NULL
);
CREATE INDEX billing_invoice_payments_paid_idx ON billing_invoice_payments (paid_at);
