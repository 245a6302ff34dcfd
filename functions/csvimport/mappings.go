package csvimport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
)

// SavedMapping is a user's mapping kept under a name (migrations/0018):
// the options a preview takes for a file no preset reads, but the account.
type SavedMapping struct {
	ID           string              `json:"id"`
	Name         string              `json:"name"`
	Mapping      *brokerfile.Mapping `json:"mapping"`
	RowShape     string              `json:"rowShape,omitempty"`
	Timezone     string              `json:"timezone,omitempty"`
	DateFormat   string              `json:"dateFormat,omitempty"`
	NumberFormat string              `json:"numberFormat,omitempty"`
	CreatedAt    time.Time           `json:"createdAt"`
	UpdatedAt    time.Time           `json:"updatedAt"`
}

// savedOptions is what the options column holds.
type savedOptions struct {
	Mapping      *brokerfile.Mapping `json:"mapping"`
	RowShape     string              `json:"rowShape,omitempty"`
	Timezone     string              `json:"timezone,omitempty"`
	DateFormat   string              `json:"dateFormat,omitempty"`
	NumberFormat string              `json:"numberFormat,omitempty"`
}

// mappingRequest is the body of POST /api/csv-import/mappings.
type mappingRequest struct {
	Name *string `json:"name"`
	savedOptions
}

// MaxSavedMappings bounds the mappings a user keeps.
const MaxSavedMappings = 100

func (h handler) listMappings(w http.ResponseWriter, r *http.Request) {
	items, err := listMappings(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": items})
}

// saveMapping stores a mapping under its name; a mapping of the same name
// (ignoring case) is replaced. The mapping is checked as a preview checks
// it.
func (h handler) saveMapping(w http.ResponseWriter, r *http.Request) {
	var in mappingRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	name, err := checkMapping(in, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	saved, err := saveMapping(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, name, in.savedOptions, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, map[string]any{"mapping": saved})
}

func (h handler) deleteMapping(w http.ResponseWriter, r *http.Request) {
	if err := db.DeleteOwned(r.Context(), h.app.DB, "csv_import_mappings", r.PathValue("mappingId"), auth.CurrentUser(r.Context()).ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// checkMapping checks a mapping request and returns its trimmed name.
func checkMapping(in mappingRequest, now time.Time) (string, error) {
	name := ""
	if in.Name != nil {
		name = strings.TrimSpace(*in.Name)
	}
	var problems []apperr.FieldError
	switch {
	case name == "":
		problems = append(problems, apperr.FieldError{Field: "name", Message: "is required"})
	case utf8.RuneCountInString(name) > 100:
		problems = append(problems, apperr.FieldError{Field: "name", Message: "must be at most 100 characters"})
	}
	if in.Mapping == nil {
		problems = append(problems, apperr.FieldError{Field: "mapping", Message: "is required"})
	} else {
		zone := in.Timezone
		if zone == "" {
			zone = "UTC"
		}
		opts := brokerfile.Options{Mapping: in.Mapping, RowShape: in.RowShape, Timezone: zone,
			DateFormat: in.DateFormat, NumberFormat: in.NumberFormat}
		if _, err := brokerfile.Resolve(opts, zone, now, 0); err != nil {
			if e, ok := apperr.As(err); ok {
				problems = append(problems, e.Details...)
			} else {
				return "", err
			}
		}
	}
	return name, apperr.Fields(problems)
}

// saveMapping upserts a mapping by name, within MaxSavedMappings.
func saveMapping(ctx context.Context, pool db.Beginner, userID, name string, o savedOptions, now time.Time) (SavedMapping, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return SavedMapping{}, err
	}
	var out SavedMapping
	err = db.InTx(ctx, pool, func(tx pgx.Tx) error {
		// The user's row first: concurrent saves count one after another.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
			return db.Classify(err)
		}
		var n int
		const count = `SELECT count(*) FROM csv_import_mappings WHERE user_id = $1 AND lower(name) <> lower($2)`
		if err := tx.QueryRow(ctx, count, userID, name).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n >= MaxSavedMappings {
			return apperr.New(apperr.Conflict, "you keep %d saved mappings, the most there can be; delete one first", n)
		}
		const upsert = `INSERT INTO csv_import_mappings (user_id, name, options, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4)
			ON CONFLICT (user_id, lower(name)) DO UPDATE SET name = EXCLUDED.name, options = EXCLUDED.options, updated_at = EXCLUDED.updated_at
			RETURNING id::text, name, options, created_at, updated_at`
		row := tx.QueryRow(ctx, upsert, userID, name, raw, now)
		var err error
		out, err = scanMapping(row)
		return err
	})
	return out, err
}

func listMappings(ctx context.Context, q db.Querier, userID string) ([]SavedMapping, error) {
	const sql = `SELECT id::text, name, options, created_at, updated_at FROM csv_import_mappings
		WHERE user_id = $1 ORDER BY lower(name), id`
	rows, err := q.Query(ctx, sql, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	defer rows.Close()
	items := []SavedMapping{}
	for rows.Next() {
		m, err := scanMapping(rows)
		if err != nil {
			return nil, err
		}
		items = append(items, m)
	}
	return items, db.Classify(rows.Err())
}

func scanMapping(row pgx.Row) (SavedMapping, error) {
	var (
		m   SavedMapping
		raw []byte
	)
	if err := row.Scan(&m.ID, &m.Name, &raw, &m.CreatedAt, &m.UpdatedAt); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return m, apperr.ErrNotFound
		}
		return m, db.Classify(err)
	}
	var o savedOptions
	if err := json.Unmarshal(raw, &o); err != nil {
		return m, err
	}
	m.Mapping, m.RowShape, m.Timezone, m.DateFormat, m.NumberFormat = o.Mapping, o.RowShape, o.Timezone, o.DateFormat, o.NumberFormat
	m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
	return m, nil
}
