// Package changelog is the route group of the app's "What's new": the
// repository's changelog (shared/changelog) and, per user, the newest
// version they have opened, so the app can mark what is unread.
package changelog

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/changelog"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
)

type handler struct {
	app     *app.App
	entries []changelog.Entry
}

// Group returns the changelog route group. The embedded file is parsed
// here, once a process; its test keeps it parseable, so a failure is a
// build that should never have shipped.
func Group(a *app.App) httpx.Group {
	entries, err := changelog.Parse(changelog.File)
	if err != nil {
		panic(err)
	}
	h := handler{app: a, entries: entries}
	return httpx.Group{
		Name:   "changelog",
		Mounts: []string{"/api/changelog", "/api/changelog/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/changelog", Handler: a.Sessions.Require(h.get)},
			{Pattern: "POST /api/changelog/read", Handler: a.Sessions.Require(h.markRead)},
		},
	}
}

// Changelog is the answer: every version, newest first, and how many of
// the first are newer than the version the user last opened.
type Changelog struct {
	Entries []changelog.Entry `json:"entries"`
	Unread  int               `json:"unread"`
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var read string
	err := h.app.DB.QueryRow(ctx, `SELECT changelog_read FROM users WHERE id = $1`, auth.CurrentUser(ctx).ID).Scan(&read)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, Changelog{Entries: h.entries, Unread: changelog.Unread(h.entries, read)})
}

// markRead records the newest version as read: the marker goes until a
// newer version ships.
func (h handler) markRead(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, err := h.app.DB.Exec(ctx, `UPDATE users SET changelog_read = $2 WHERE id = $1`, auth.CurrentUser(ctx).ID, h.entries[0].Version)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, Changelog{Entries: h.entries, Unread: 0})
}
