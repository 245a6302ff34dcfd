// Package positions is the route group of the journal's positions: the
// positions themselves, their fills (from which every figure is derived),
// their tags and their images, and the filtered, keyset-paginated list.
//
// Every write goes through shared/journalstore, which owns the journal's
// writes: each is one transaction that locks, writes, derives the figures,
// the ledger rows and the balance, and returns the position with the
// positions a reversal opened or closed. Every record is scoped to its
// owner: another user's id, a missing id and a malformed id are the same
// codeless 404.
package positions

import (
	"net/http"

	"tradejournal/shared/db"
	"tradejournal/shared/journalstore"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/market"
	"tradejournal/shared/plans"
	"tradejournal/shared/tradebars"
)

type handler struct {
	app       *app.App
	journal   *journalstore.Store
	quotes    *market.Quotes
	tradeBars *tradebars.Service
}

// Group returns the positions route group. Its quote client (unrealised
// P&L) and bar providers live as long as the process.
func Group(a *app.App) httpx.Group {
	return NewGroup(a, market.NewQuotes(a.Config.Market, &http.Client{}, a.Now, a.Log))
}

// NewGroup is Group with a given quote client, for tests that tune its
// timings: the bar providers' calls are bounded by its Timeout too.
func NewGroup(a *app.App, quotes *market.Quotes) httpx.Group {
	store := journalstore.New(a.DB, a.Keyring, a.Now).Limit(plans.New(a.Config, a.Now).CheckPositions)
	feeds := market.NewFeeds(a.Config.Market, &http.Client{}, a.Now, a.Log)
	feeds.Timeout = quotes.Timeout
	h := handler{app: a, journal: store, quotes: quotes, tradeBars: tradebars.New(feeds, a.DB, store)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "positions",
		Mounts: []string{"/api/positions", "/api/positions/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/positions", Handler: require(h.list)},
			{Pattern: "POST /api/positions", Handler: require(h.create)},
			{Pattern: "GET /api/positions/{positionId}", Handler: require(h.get)},
			{Pattern: "PATCH /api/positions/{positionId}", Handler: require(h.update)},
			{Pattern: "DELETE /api/positions/{positionId}", Handler: require(h.delete)},
			{Pattern: "POST /api/positions/{positionId}/fills", Handler: require(h.addFill)},
			{Pattern: "PATCH /api/positions/{positionId}/fills/{fillId}", Handler: require(h.updateFill)},
			{Pattern: "DELETE /api/positions/{positionId}/fills/{fillId}", Handler: require(h.deleteFill)},
			{Pattern: "PUT /api/positions/{positionId}/tags", Handler: require(h.setTags)},
			{Pattern: "POST /api/positions/{positionId}/assignment", Handler: require(h.assign)},
			{Pattern: "GET /api/positions/{positionId}/playbook", Handler: require(h.getPlaybook)},
			{Pattern: "PUT /api/positions/{positionId}/playbook", Handler: require(h.setPlaybook)},
			{Pattern: "GET /api/positions/{positionId}/images", Handler: require(h.listImages)},
			{Pattern: "POST /api/positions/{positionId}/images", Handler: require(h.addImage)},
			{Pattern: "GET /api/positions/{positionId}/images/{imageId}", Handler: require(h.getImage)},
			{Pattern: "PATCH /api/positions/{positionId}/images/{imageId}", Handler: require(h.updateImage)},
			{Pattern: "DELETE /api/positions/{positionId}/images/{imageId}", Handler: require(h.deleteImage)},
			// Registered without a provider too (answering the codeless 404),
			// so the route table does not depend on configuration.
			{Pattern: "GET /api/positions/{positionId}/bars", Handler: require(h.bars)},
			{Pattern: "PUT /api/positions/{positionId}/bars", Handler: require(auth.LimitPerUser(a.Limiter, uploadLimit, h.uploadBars))},
			{Pattern: "DELETE /api/positions/{positionId}/bars", Handler: require(h.deleteBars)},
			{Pattern: "GET /api/positions/{positionId}/unrealized", Handler: require(h.unrealized)},
		},
	}
}

// create records a position, with its fills and tags if given.
func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in journalstore.NewPosition
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	res, err := h.journal.CreatePosition(ctx, auth.CurrentUser(ctx).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, res)
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := h.journal.Position(ctx, auth.CurrentUser(ctx).ID, r.PathValue("positionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, journalstore.Result{Position: p})
}

// update changes a position's own fields.
func (h handler) update(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("positionId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in journalstore.PositionPatch
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	res, err := h.journal.UpdatePosition(ctx, auth.CurrentUser(ctx).ID, id, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, res)
}

// delete deletes a position with its fills, tags, images and ledger rows.
func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	keys, err := h.journal.DeletePosition(ctx, auth.CurrentUser(ctx).ID, r.PathValue("positionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if len(keys) > 0 {
		h.deleteObjects(ctx, keys)
	}
	httpx.NoContent(w)
}

// addFill records a fill.
func (h handler) addFill(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("positionId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in journal.FillInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	res, err := h.journal.AddFill(ctx, auth.CurrentUser(ctx).ID, id, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, res)
}

// updateFill changes a fill.
func (h handler) updateFill(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id, fillID := r.PathValue("positionId"), r.PathValue("fillId")
	if !db.ValidUUID(id) || !db.ValidUUID(fillID) {
		httpx.NotFound(w, r)
		return
	}
	var in journal.FillInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	res, err := h.journal.UpdateFill(ctx, auth.CurrentUser(ctx).ID, id, fillID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, res)
}

// deleteFill deletes a fill.
func (h handler) deleteFill(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	res, err := h.journal.DeleteFill(ctx, auth.CurrentUser(ctx).ID, r.PathValue("positionId"), r.PathValue("fillId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, res)
}

type tagsRequest struct {
	TagIDs []string `json:"tagIds"`
}

// setTags replaces a position's tags with the given list (empty clears).
func (h handler) setTags(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("positionId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in tagsRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	res, err := h.journal.SetTags(ctx, auth.CurrentUser(ctx).ID, id, in.TagIDs)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, res)
}

// assign records an option's exercise or assignment: its contracts close at
// 0 and the shares change hands at the strike (journalstore.Assign).
func (h handler) assign(w http.ResponseWriter, r *http.Request) {
	var in journalstore.AssignmentInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	res, err := h.journal.Assign(ctx, auth.CurrentUser(ctx).ID, r.PathValue("positionId"), in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, res)
}
