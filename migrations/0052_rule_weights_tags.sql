-- Rule weights and tag scopes (shared/rules): weight counts a rule in the
-- day's and the trade's score (1 nice to have, 2 important, 3 critical);
-- the rules stored before weights existed are important, so their scores
-- stay the plain share of rules kept. tag_id limits a rule to the
-- positions carrying that tag (NULL: every position); deleting the tag
-- deletes the rule, as deleting a rule's account does.
ALTER TABLE trading_rules
    ADD COLUMN weight smallint NOT NULL DEFAULT 2 CHECK (weight BETWEEN 1 AND 3),
    ADD COLUMN tag_id uuid REFERENCES tags (id) ON DELETE CASCADE;
CREATE INDEX trading_rules_tag_id_idx ON trading_rules (tag_id) WHERE tag_id IS NOT NULL;
