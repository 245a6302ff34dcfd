-- Saved CSV import mappings (functions/csvimport): a user's column mapping
-- for a file no preset reads, kept under a name to reuse. The mapping is
-- the options' `mapping` object as the API takes it, with the row shape and
-- the date and number formats that go with it; the API checks it (the
-- same Resolve as a preview) before it is stored.
CREATE TABLE csv_import_mappings (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    options    jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
-- One mapping per name and user: saving under a name again replaces it.
CREATE UNIQUE INDEX csv_import_mappings_user_name_key ON csv_import_mappings (user_id, lower(name));
