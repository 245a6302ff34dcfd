// Package strategies is the route group of multi-leg option positions: the
// positions of one account and underlying traded as one strategy (a
// vertical, an iron condor, a covered call), grouped, renamed, rolled and
// ungrouped through the journal store, with the strategy engine's name,
// max profit and loss, breakevens and payoff at expiry.
package strategies

import (
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
)

type handler struct{ journal *journalstore.Store }

// Group returns the strategies route group.
func Group(a *app.App) httpx.Group {
	h := handler{journal: journalstore.New(a.DB, a.Keyring, a.Now)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "strategies",
		Mounts: []string{"/api/strategies", "/api/strategies/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/strategies", Handler: require(h.list)},
			{Pattern: "POST /api/strategies", Handler: require(h.create)},
			{Pattern: "GET /api/strategies/{strategyId}", Handler: require(h.get)},
			{Pattern: "PATCH /api/strategies/{strategyId}", Handler: require(h.update)},
			{Pattern: "DELETE /api/strategies/{strategyId}", Handler: require(h.delete)},
		},
	}
}

// page is one page of the strategies list.
type page struct {
	Items      []journalstore.Strategy `json:"items"`
	NextCursor *string                 `json:"nextCursor"`
}

// list answers the user's strategies newest first: limit (1..100, 25) a
// page, cursor the previous page's nextCursor.
func (h handler) list(w http.ResponseWriter, r *http.Request) {
	limit, err := listquery.Limit(r.URL.Query().Get("limit"), 25, 100)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	items, err := h.journal.Strategies(ctx, auth.CurrentUser(ctx).ID, r.URL.Query().Get("cursor"), limit+1)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := page{Items: items}
	if len(items) > limit {
		out.Items = items[:limit]
		next := items[limit-1].ID
		out.NextCursor = &next
	}
	if out.Items == nil {
		out.Items = []journalstore.Strategy{}
	}
	httpx.JSON(w, http.StatusOK, out)
}

type envelope struct {
	Strategy journalstore.Strategy `json:"strategy"`
}

func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in journalstore.StrategyInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	st, err := h.journal.CreateStrategy(ctx, auth.CurrentUser(ctx).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, envelope{st})
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	st, err := h.journal.Strategy(ctx, auth.CurrentUser(ctx).ID, r.PathValue("strategyId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{st})
}

func (h handler) update(w http.ResponseWriter, r *http.Request) {
	var in journalstore.StrategyInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	st, err := h.journal.UpdateStrategy(ctx, auth.CurrentUser(ctx).ID, r.PathValue("strategyId"), in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{st})
}

func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.journal.DeleteStrategy(ctx, auth.CurrentUser(ctx).ID, r.PathValue("strategyId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
