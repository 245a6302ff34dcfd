-- Reversals (shared/journalstore): an exit larger than the open quantity
-- closes the position at that fill and opens the opposite position with the
-- remainder. The two positions form a run of one instrument that the journal
-- store derives again whenever one of its fills changes.
--
-- positions.reversal_of names the position a position continues: the one a
-- reversal (or an opposite trade after it went back to zero) came from. A
-- run is a position and its successors; each position has at most one.
ALTER TABLE positions ADD COLUMN reversal_of uuid REFERENCES positions (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX positions_reversal_of_key ON positions (reversal_of) WHERE reversal_of IS NOT NULL;

-- fills.split_of names, on the opening part of a reversal's fill, the
-- closing part in the position before: the two rows are one execution and
-- change together. Deleting the closing part's position leaves the opening
-- part a plain fill.
ALTER TABLE fills ADD COLUMN split_of uuid REFERENCES fills (id) ON DELETE SET NULL;
CREATE INDEX fills_split_of_idx ON fills (split_of) WHERE split_of IS NOT NULL;
