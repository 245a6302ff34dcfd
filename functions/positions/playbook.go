package positions

import (
	"net/http"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
)

// getPlaybook answers what the position follows: its playbook (or null)
// and the criteria of it that it met.
func (h handler) getPlaybook(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	out, err := h.journal.PositionPlaybook(ctx, auth.CurrentUser(ctx).ID, r.PathValue("positionId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}

// setPlaybook makes the position follow a playbook (null: none) and tick
// exactly the criteria listed, which must be that playbook's.
func (h handler) setPlaybook(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("positionId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in journalstore.PositionPlaybook
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	out, err := h.journal.SetPositionPlaybook(ctx, auth.CurrentUser(ctx).ID, id, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}
