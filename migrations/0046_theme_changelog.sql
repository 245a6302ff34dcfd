-- The colour theme a user picked (light, dark, or the system's), sent to
-- the browser as the tj_theme cookie so the first paint has it; and the
-- newest changelog version they have opened ('' for none), for the
-- "What's new" marker.
ALTER TABLE users
    ADD COLUMN theme text NOT NULL DEFAULT 'system' CHECK (theme IN ('light', 'dark', 'system')),
    ADD COLUMN changelog_read text NOT NULL DEFAULT '';
