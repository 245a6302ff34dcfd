-- Issue 35, points 1 and 3: the user's own dashboard (shared/personal,
-- functions/users). Every table goes with the user (ON DELETE CASCADE).

-- The dashboard's widgets in their order, each {id, size}, as
-- personal.CheckLayout accepted them. No row: the default layout.
CREATE TABLE dashboard_layouts (
    user_id    uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    widgets    jsonb NOT NULL CHECK (jsonb_typeof(widgets) = 'array'),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- A saved view: a filter of the dashboard under a name. query is the
-- filter as the statistics' query string (symbol=AAPL&from=2025-01-01),
-- checked by listquery.ParseFilter when written. Names are unique per user
-- whatever their case.
CREATE TABLE saved_views (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 400),
    query      text NOT NULL CHECK (length(query) <= 8000),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX saved_views_user_name_key ON saved_views (user_id, lower(name));

-- Onboarding: the checklist's progress is derived from the journal; only
-- its dismissal is stored. The coach marks (a hint on a screen's first
-- opening) the user has dismissed, one row each.
ALTER TABLE users ADD COLUMN onboarding_dismissed_at timestamptz;
CREATE TABLE coach_marks_seen (
    user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    mark    text NOT NULL CHECK (length(mark) <= 40),
    seen_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, mark)
);
