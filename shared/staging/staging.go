// Package staging owns the clean-up of staged CSV imports
// (csv_import_staging): the import route group sweeps before each request,
// and the background job (shared/jobs) sweeps on a schedule.
package staging

import (
	"context"
	"time"

	"tradejournal/shared/config"
	"tradejournal/shared/db"
)

// Swept counts what a clean-up deleted.
type Swept struct {
	Expired  int64 // staged previews past CSV_IMPORT_STAGING_TTL_MINUTES
	Orphaned int64 // committing rows past CSV_IMPORT_CLAIM_TIMEOUT_SECONDS
}

// Cleanup deletes expired staged previews (older than cfg.StagingTTL) and
// orphaned committing rows (claimed longer ago than cfg.ClaimTimeout, their
// commit gone with its process) as of now. It is one statement on two
// partial indexes: cheap enough to run before every import request, and
// the csv-import-cleanup job of shared/jobs.
func Cleanup(ctx context.Context, q db.Querier, cfg config.CSVImport, now time.Time) (Swept, error) {
	const sql = `WITH d AS (DELETE FROM csv_import_staging
			WHERE (state = 'staged' AND created_at < $1) OR (state = 'committing' AND claimed_at < $2)
			RETURNING state)
		SELECT count(*) FILTER (WHERE state = 'staged'), count(*) FILTER (WHERE state = 'committing') FROM d`
	var s Swept
	err := q.QueryRow(ctx, sql, now.Add(-cfg.StagingTTL), now.Add(-cfg.ClaimTimeout)).Scan(&s.Expired, &s.Orphaned)
	return s, db.Classify(err)
}
