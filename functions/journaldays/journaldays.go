// Package journaldays is the route group of the daily journal: a page per
// trading day (its entry: a pre-market plan, a review, free notes, a mood
// and day tags; shared/dayjournal holds and seals it) and the list of the
// days that have an entry or trades, newest first, with a search across
// every note of the journal (the days' and the positions').
//
// A day is a date in the path, not an id: every user has every day, so
// another user's day is simply empty to the caller; what a user can name
// that is not theirs (a tag) is refused like a position's.
package journaldays

import (
	"net/http"
	"time"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/httpx"
)

type handler struct {
	app   *app.App
	store *dayjournal.Store
}

// Group returns the journal days route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a, store: dayjournal.New(a.DB, a.Keyring, a.Now)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "journaldays",
		Mounts: []string{"/api/journal/days", "/api/journal/days/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/journal/days", Handler: require(h.list)},
			{Pattern: "GET /api/journal/days/{date}", Handler: require(h.get)},
			{Pattern: "PUT /api/journal/days/{date}", Handler: require(h.put)},
			{Pattern: "DELETE /api/journal/days/{date}", Handler: require(h.delete)},
		},
	}
}

// dayView is the body of GET /api/journal/days/{date}: the entry and the
// nearest days before and after it that have an entry or trades (within
// neighbourSpan; null when none).
type dayView struct {
	Day          dayjournal.Entry `json:"day"`
	PreviousDate *string          `json:"previousDate"`
	NextDate     *string          `json:"nextDate"`
}

type dayEnvelope struct {
	Day dayjournal.Entry `json:"day"`
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	day, err := dayjournal.ParseDate(r.PathValue("date"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	userID := auth.CurrentUser(ctx).ID
	var v dayView
	if v.Day, err = h.store.Get(ctx, userID, day); err == nil {
		v.PreviousDate, v.NextDate, err = neighbours(ctx, h.app.DB, userID, day)
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, v)
}

// put replaces the day's entry; an entry left empty is deleted.
func (h handler) put(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	day, err := dayjournal.ParseDate(r.PathValue("date"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	var in dayjournal.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	e, err := h.store.Put(ctx, auth.CurrentUser(ctx).ID, day, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, dayEnvelope{e})
}

func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	day, err := dayjournal.ParseDate(r.PathValue("date"))
	if err == nil {
		err = h.store.Delete(ctx, auth.CurrentUser(ctx).ID, day)
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// dateOf is a day's YYYY-MM-DD.
func dateOf(t time.Time) string { return t.Format(time.DateOnly) }
