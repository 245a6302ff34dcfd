package users

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/personal"
)

// Layout is the dashboard's layout; Custom is false for the default (no
// stored layout), which follows the app's default as it changes.
type Layout struct {
	Widgets []personal.Widget `json:"widgets"`
	Custom  bool              `json:"custom"`
}

type layoutRequest struct {
	Widgets []personal.Widget `json:"widgets"`
}

// getLayout answers the user's stored layout, or the default.
func (h handler) getLayout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	l, err := readLayout(ctx, h.app.DB, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, l)
}

func readLayout(ctx context.Context, q db.Querier, userID string) (Layout, error) {
	var raw []byte
	err := q.QueryRow(ctx, `SELECT widgets FROM dashboard_layouts WHERE user_id = $1`, userID).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return Layout{Widgets: personal.DefaultLayout}, nil
	}
	if err != nil {
		return Layout{}, db.Classify(err)
	}
	l := Layout{Custom: true}
	if err := json.Unmarshal(raw, &l.Widgets); err != nil {
		return Layout{}, err
	}
	// A widget a later version retired is left out, not refused.
	kept := l.Widgets[:0]
	for _, wd := range l.Widgets {
		if personal.KnownWidget(wd.ID) {
			kept = append(kept, wd)
		}
	}
	l.Widgets = kept
	return l, nil
}

// putLayout stores the layout whole: its widgets in their order and sizes.
func (h handler) putLayout(w http.ResponseWriter, r *http.Request) {
	var req layoutRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if err := personal.CheckLayout(req.Widgets); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	raw, err := json.Marshal(req.Widgets)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	const q = `INSERT INTO dashboard_layouts (user_id, widgets, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET widgets = excluded.widgets, updated_at = excluded.updated_at`
	if _, err := h.app.DB.Exec(ctx, q, auth.CurrentUser(ctx).ID, raw, h.app.Now()); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, Layout{Widgets: req.Widgets, Custom: true})
}

// resetLayout forgets the stored layout: the default again.
func (h handler) resetLayout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if _, err := h.app.DB.Exec(ctx, `DELETE FROM dashboard_layouts WHERE user_id = $1`, auth.CurrentUser(ctx).ID); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, Layout{Widgets: personal.DefaultLayout})
}

// SavedView is a filter of the dashboard under a name.
type SavedView struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Query     string    `json:"query"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

type viewEnvelope struct {
	View SavedView `json:"view"`
}

// viewRequest is the body of POST (both required) and PATCH (absent keeps).
type viewRequest struct {
	Name  *string `json:"name"`
	Query *string `json:"query"`
}

const viewColumns = `id::text, name, query, created_at, updated_at`

func scanView(row pgx.Row) (SavedView, error) {
	var v SavedView
	err := row.Scan(&v.ID, &v.Name, &v.Query, &v.CreatedAt, &v.UpdatedAt)
	return v, err
}

var errViewNameTaken = apperr.Invalid("name", "is already the name of another of your saved views")

// viewError maps the unique name's violation to its field.
func viewError(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" {
		return errViewNameTaken
	}
	return db.Classify(err)
}

func (h handler) listViews(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rows, err := h.app.DB.Query(ctx, `SELECT `+viewColumns+` FROM saved_views WHERE user_id = $1 ORDER BY lower(name), id`,
		auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (SavedView, error) { return scanView(row) })
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	if items == nil {
		items = []SavedView{}
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": items})
}

// checkView checks the fields a request gives; create requires both.
func checkView(in viewRequest, create bool) (name, query *string, err error) {
	var p journal.Problems
	if in.Name != nil {
		n, err := personal.ViewName(*in.Name)
		p.Merge(err)
		name = &n
	} else if create {
		p.Add("name", "is required")
	}
	if in.Query != nil {
		q, err := personal.ViewQuery(*in.Query)
		p.Merge(err)
		query = &q
	} else if create {
		p.Add("query", "is required (an empty string is the unfiltered dashboard)")
	}
	return name, query, p.Err()
}

// createView saves a view; past personal.MaxViews it is a 409.
func (h handler) createView(w http.ResponseWriter, r *http.Request) {
	var in viewRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	name, query, err := checkView(in, true)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var v SavedView
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		// The user's row lock serialises two creations, so the count holds.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID); err != nil {
			return db.Classify(err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM saved_views WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n >= personal.MaxViews {
			return apperr.New(apperr.Conflict, "you have %d saved views, the most one user may have; delete one first", n)
		}
		var err error
		v, err = scanView(tx.QueryRow(ctx, `INSERT INTO saved_views (user_id, name, query, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4) RETURNING `+viewColumns, userID, *name, *query, h.app.Now()))
		return viewError(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, viewEnvelope{v})
}

// updateView renames a view or changes its filter.
func (h handler) updateView(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("viewId")
	var in viewRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if !db.ValidUUID(id) {
		httpx.Error(w, r, apperr.ErrNotFound)
		return
	}
	name, query, err := checkView(in, false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	const q = `UPDATE saved_views SET name = coalesce($3, name), query = coalesce($4, query), updated_at = $5
		WHERE id = $1 AND user_id = $2 RETURNING ` + viewColumns
	v, err := scanView(h.app.DB.QueryRow(ctx, q, id, auth.CurrentUser(ctx).ID, name, query, h.app.Now()))
	if err != nil {
		httpx.Error(w, r, viewError(err))
		return
	}
	httpx.JSON(w, http.StatusOK, viewEnvelope{v})
}

func (h handler) deleteView(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := db.DeleteOwned(ctx, h.app.DB, "saved_views", r.PathValue("viewId"), auth.CurrentUser(ctx).ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
