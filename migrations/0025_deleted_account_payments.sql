-- Payment records of deleted accounts (functions/users, delete.go). Deleting
-- an account removes every row of its user, the wallet and its credit
-- ledger included; what a pack purchase was (the processor's checkout
-- session, the pack, the credits, the amount and currency taken, when) is
-- copied here first, without the user: no user id, no email. It is the
-- record a refund, a chargeback or a tax audit of a payment asks for, and the
-- checkout session id finds the payment at the processor, which keeps its
-- own records under its own obligations. docs/deployment.md says what and why.
CREATE TABLE deleted_account_payments (
    checkout_session_id text PRIMARY KEY,
    pack_id             text NOT NULL,
    credits             bigint NOT NULL,
    amount_minor        bigint,
    currency            text,
    event_id            text NOT NULL,
    paid_at             timestamptz NOT NULL,
    account_deleted_at  timestamptz NOT NULL
);
