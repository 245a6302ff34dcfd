-- The statistics' packed record (shared/stats/record.go) carries each
-- closed trade's excursions (MAE and MFE as money and R, typed or measured
-- from bars) and the money at the first of its stop and target the bars
-- reached: RecordVersion 2. Every journal is queued for its rebuild, which
-- the deploy's migrate step (journalstore.Migrate) runs in Go.
INSERT INTO journal_rebuilds (user_id) SELECT DISTINCT user_id FROM positions ON CONFLICT DO NOTHING;
