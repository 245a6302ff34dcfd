-- The demo journal (functions/accounts, demo.go): a sample account with its
-- positions and the tags they use, loaded and removed in one click. The
-- flags say what the removal takes: the demo account (its positions go
-- with it) and the demo tags no other position uses.
ALTER TABLE accounts ADD COLUMN demo boolean NOT NULL DEFAULT false;
ALTER TABLE tags ADD COLUMN demo boolean NOT NULL DEFAULT false;
