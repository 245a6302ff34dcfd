-- The tax report's settings: the user's jurisdiction (NULL until chosen;
-- the report then asks), and an account's own where it differs (an account
-- at a broker in another country), with how its broker reports cost basis
-- to the IRS, which picks the Form 8949 box (A/D reported, B/E not
-- reported, C/F no Form 1099-B).
ALTER TABLE users ADD COLUMN tax_jurisdiction text CHECK (tax_jurisdiction IN ('us', 'uk', 'other'));
ALTER TABLE accounts ADD COLUMN tax_jurisdiction text CHECK (tax_jurisdiction IN ('us', 'uk', 'other'));
ALTER TABLE accounts ADD COLUMN tax_basis_reporting text NOT NULL DEFAULT 'reported'
    CHECK (tax_basis_reporting IN ('reported', 'not_reported', 'none'));

-- Year-end marks of US Section 1256 contracts still open on the year's last
-- business day: the settlement price the trader reads from the broker's
-- statement, in the contract's currency. The year's report treats the
-- contract as sold at it, and the next year's basis starts from it.
CREATE TABLE tax_year_end_marks (
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    year       integer NOT NULL CHECK (year BETWEEN 1970 AND 9998),
    instrument text NOT NULL CHECK (length(instrument) BETWEEN 1 AND 32),
    price      numeric(18, 8) NOT NULL CHECK (price >= 0),
    PRIMARY KEY (user_id, year, instrument)
);
