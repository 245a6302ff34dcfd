package users

import (
	"net/http"

	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/plans"
)

// getPlan answers the caller's plan (free or Pro), each free-plan limit
// with what they use of it, and whether Pro is sold here. It writes
// nothing, so a journal over its limits reads as well as any.
func (h handler) getPlan(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v, err := plans.New(h.app.Config, h.app.Now).Read(ctx, h.app.DB, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, v)
}
