// Package playbooks is the route group of a user's playbooks: named setups,
// each with a checklist of criteria. A position follows a playbook and
// ticks the criteria it met through the positions group
// (PUT /api/positions/{positionId}/playbook); the statistics break down by
// playbook and by criterion (GET /api/performance).
//
// Every write goes through shared/journalstore, which refreshes the
// statistics' rows when a playbook or a criterion is deleted. Another
// user's id, a missing id and a malformed id are the same codeless 404.
package playbooks

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
)

type handler struct {
	journal *journalstore.Store
}

// Group returns the playbooks route group.
func Group(a *app.App) httpx.Group {
	h := handler{journal: journalstore.New(a.DB, a.Keyring, a.Now)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "playbooks",
		Mounts: []string{"/api/playbooks", "/api/playbooks/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/playbooks", Handler: require(h.list)},
			{Pattern: "POST /api/playbooks", Handler: require(h.create)},
			{Pattern: "GET /api/playbooks/{playbookId}", Handler: require(h.get)},
			{Pattern: "PATCH /api/playbooks/{playbookId}", Handler: require(h.update)},
			{Pattern: "DELETE /api/playbooks/{playbookId}", Handler: require(h.delete)},
		},
	}
}

type envelope struct {
	Playbook journalstore.Playbook `json:"playbook"`
}

// list answers every playbook of the user (at most
// journalstore.MaxPlaybooks, so one page), by name.
func (h handler) list(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	items, err := h.journal.Playbooks(ctx, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": items})
}

func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in journalstore.PlaybookInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	b, err := h.journal.CreatePlaybook(ctx, auth.CurrentUser(ctx).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, envelope{b})
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	b, err := h.journal.Playbook(ctx, auth.CurrentUser(ctx).ID, r.PathValue("playbookId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{b})
}

// update changes the fields given; criteria, when given, is the whole
// checklist (journalstore.PlaybookInput).
func (h handler) update(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("playbookId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in journalstore.PlaybookInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	b, err := h.journal.UpdatePlaybook(ctx, auth.CurrentUser(ctx).ID, id, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{b})
}

// delete deletes the playbook; its positions follow none afterwards.
func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.journal.DeletePlaybook(ctx, auth.CurrentUser(ctx).ID, r.PathValue("playbookId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
