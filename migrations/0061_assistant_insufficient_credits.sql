-- A turn may end before a further tool round because the credits cannot
-- cover it (issue 34): end_reason 'insufficient_credits'. The hold of a turn
-- grows round by round (shared/wallet Extend), so a reservation's amount is
-- what it held last.
ALTER TABLE assistant_turns DROP CONSTRAINT assistant_turns_end_reason_check;
ALTER TABLE assistant_turns ADD CONSTRAINT assistant_turns_end_reason_check
    CHECK (end_reason IN ('complete', 'budget', 'disconnect', 'provider_error', 'error', 'abandoned', 'insufficient_credits'));
