// Package connections is the route group of a user's broker connections
// (shared/brokersync): create one with the broker's read-only credentials
// (sealed, never answered), list them with their sync status, test the
// credentials, sync now, pause, resume and delete. The schedule syncs them
// through the job runner (shared/jobs).
//
// Another user's id, a missing id and a malformed id are the same
// codeless 404.
package connections

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/brokersync"
	"tradejournal/shared/httpx"
)

type handler struct {
	sync *brokersync.Service
}

// Group returns the connections route group.
func Group(a *app.App) httpx.Group {
	h := handler{sync: brokersync.New(a.DB, a.Keyring, a.Now, a.Config.BrokerSync, nil)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "connections",
		Mounts: []string{"/api/connections", "/api/connections/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/connections", Handler: require(h.list)},
			{Pattern: "POST /api/connections", Handler: require(h.create)},
			{Pattern: "GET /api/connections/{connectionId}", Handler: require(h.get)},
			{Pattern: "DELETE /api/connections/{connectionId}", Handler: require(h.delete)},
			{Pattern: "POST /api/connections/{connectionId}/test", Handler: require(h.test)},
			{Pattern: "POST /api/connections/{connectionId}/sync", Handler: require(h.syncNow)},
			{Pattern: "POST /api/connections/{connectionId}/pause", Handler: require(h.pause)},
			{Pattern: "POST /api/connections/{connectionId}/resume", Handler: require(h.resume)},
		},
	}
}

type envelope struct {
	Connection brokersync.Connection `json:"connection"`
}

func (h handler) list(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.sync.List(ctx, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": list})
}

func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in brokersync.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	c, err := h.sync.Create(ctx, auth.CurrentUser(ctx).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, envelope{c})
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, err := h.sync.Get(ctx, auth.CurrentUser(ctx).ID, r.PathValue("connectionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{c})
}

// delete removes the connection and its credentials; synced trades stay.
func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.sync.Delete(ctx, auth.CurrentUser(ctx).ID, r.PathValue("connectionId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// test asks the broker whether the credentials work: {ok: true}, or
// {ok: false, error} with the broker's failure. Nothing is synced.
func (h handler) test(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	f, err := h.sync.Test(ctx, auth.CurrentUser(ctx).ID, r.PathValue("connectionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"ok": f == nil, "error": f})
}

// syncNow syncs at once and answers the connection, its status telling
// what the sync added or why it failed.
func (h handler) syncNow(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, err := h.sync.SyncNow(ctx, auth.CurrentUser(ctx).ID, r.PathValue("connectionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{c})
}

func (h handler) pause(w http.ResponseWriter, r *http.Request)  { h.setPaused(w, r, true) }
func (h handler) resume(w http.ResponseWriter, r *http.Request) { h.setPaused(w, r, false) }

// setPaused pauses or resumes the scheduled sync.
func (h handler) setPaused(w http.ResponseWriter, r *http.Request, paused bool) {
	ctx := r.Context()
	c, err := h.sync.SetPaused(ctx, auth.CurrentUser(ctx).ID, r.PathValue("connectionId"), paused)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{c})
}
