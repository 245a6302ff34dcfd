-- A forex, crypto or CFD fill's fees may be negative: a swap (rollover)
-- credited, funding received on a perpetual, a maker rebate. The API keeps
-- stocks', options' and futures' fees at 0 or more (shared/journal's
-- ValidateFill and Compute); a fill does not know its position's asset
-- type, so the column's own check goes.
ALTER TABLE fills DROP CONSTRAINT fills_fees_check;
