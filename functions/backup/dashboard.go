package backup

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/personal"
)

// dashboardLayout writes the user's layout, when they have one of their own.
func (ex exporter) dashboardLayout(ctx context.Context) error {
	var l backup.DashboardLayout
	var raw []byte
	err := ex.tx.QueryRow(ctx, `SELECT widgets FROM dashboard_layouts WHERE user_id = $1`, ex.userID).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &l.Widgets); err != nil {
		return err
	}
	w, err := ex.zw.Create(backup.EntryDashboardLayout, true)
	if err != nil {
		return err
	}
	return backup.NewLineWriter(w).Write(l)
}

// savedViews writes the saved views, oldest first.
func (ex exporter) savedViews(ctx context.Context) error {
	const q = `SELECT name, query, created_at FROM saved_views WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntrySavedViews, q, func(v *backup.SavedView) []any {
		return []any{&v.Name, &v.Query, &v.CreatedAt}
	}, nil)
}

// dashboardLayout restores the layout as PUT /api/users/me/dashboard-layout
// checks one; a widget this version does not know (a later version's) is
// left out.
func (rs *restorer) dashboardLayout(ctx context.Context, tx pgx.Tx) error {
	var widgets []personal.Widget
	found := false
	err := backup.Lines(rs.a, backup.EntryDashboardLayout, 1, func(l backup.DashboardLayout) error {
		found = true
		widgets = []personal.Widget{}
		for _, w := range l.Widgets {
			if personal.KnownWidget(w.ID) {
				widgets = append(widgets, personal.Widget{ID: w.ID, Size: personal.Size(w.Size)})
			}
		}
		return nil
	})
	if err != nil || !found {
		return err
	}
	if err := personal.CheckLayout(widgets); err != nil {
		return invalidf("its dashboard layout lists a widget twice or a width that is not quarter, third, half or full")
	}
	raw, err := json.Marshal(widgets)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO dashboard_layouts (user_id, widgets, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET widgets = excluded.widgets, updated_at = excluded.updated_at`, rs.userID, raw, rs.h.app.Now())
	return err
}

// savedViews restores the views, each checked as POST
// /api/users/me/saved-views checks one, with the ids of their filter
// mapped to the restored accounts, tags and playbooks.
func (rs *restorer) savedViews(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntrySavedViews, backup.MaxSavedViews, func(v backup.SavedView) error {
		name, err := personal.ViewName(v.Name)
		if err != nil {
			return inconsistent(err)
		}
		query, err := personal.ViewQuery(v.Query)
		if err != nil {
			return inconsistent(err)
		}
		query = personal.MapViewIDs(query, func(kind, id string) (string, bool) {
			n, ok := rs.ids[kind+":"+id]
			return n, ok
		})
		const ins = `INSERT INTO saved_views (user_id, name, query, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)`
		if _, err := tx.Exec(ctx, ins, rs.userID, name, query, v.CreatedAt); err != nil {
			return err
		}
		rs.count.SavedViews++
		return nil
	})
}
