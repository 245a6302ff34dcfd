package auth

import (
	"net/http"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
)

type tokenList struct {
	Items []auth.APIToken `json:"items"`
}

func (h handler) listTokens(w http.ResponseWriter, r *http.Request) {
	items, err := auth.ListAPITokens(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if items == nil {
		items = []auth.APIToken{}
	}
	httpx.JSON(w, http.StatusOK, tokenList{Items: items})
}

type createTokenRequest struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

type createdToken struct {
	Token auth.APIToken `json:"token"`
	// Secret is the token itself: in this answer and nowhere else, ever.
	Secret string `json:"secret"`
}

func (h handler) createToken(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	user := auth.CurrentUser(ctx)
	var req createTokenRequest
	if err := httpx.Decode(w, r, &req); err != nil {
		httpx.Error(w, r, err)
		return
	}
	name, scopes, problems := auth.CheckTokenRequest(req.Name, req.Scopes)
	if err := apperr.Fields(problems); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if n, err := auth.CountAPITokens(ctx, h.app.DB, user.ID); err != nil || n >= auth.MaxAPITokens {
		if err == nil {
			err = apperr.New(apperr.Conflict, "you have %d API tokens, the most one account can keep; revoke one first", n)
		}
		httpx.Error(w, r, err)
		return
	}
	t, secret, err := auth.CreateAPIToken(ctx, h.app.DB, user.ID, name, scopes, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, createdToken{Token: t, Secret: secret})
}

func (h handler) revokeToken(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("tokenId")
	if !db.ValidUUID(id) {
		httpx.Error(w, r, apperr.ErrNotFound)
		return
	}
	if err := auth.RevokeAPIToken(r.Context(), h.app.DB, auth.CurrentUser(r.Context()).ID, id); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
