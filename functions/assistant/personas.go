package assistant

import (
	"context"
	"net/http"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/assistantdata"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
)

// The persona routes: the built-in default (listed first, unchangeable)
// and the caller's own, by name (shared/assistantdata holds their rules).

type personaEnvelope struct {
	Persona assistantdata.Persona `json:"persona"`
}

// listPersonas answers the default and the caller's personas.
func (h *handler) listPersonas(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	items, err := assistantdata.List(ctx, h.app.DB, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, struct {
		Items []assistantdata.Persona `json:"items"`
	}{items})
}

// createPersona adds a persona (201).
func (h *handler) createPersona(w http.ResponseWriter, r *http.Request) {
	var in assistantdata.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	var p assistantdata.Persona
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) (err error) {
		p, err = assistantdata.Create(ctx, tx, auth.CurrentUser(ctx).ID, in, h.app.Now())
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, personaEnvelope{p})
}

// updatePersona changes a persona's name, instructions or both (a field
// left out keeps its value).
func (h *handler) updatePersona(w http.ResponseWriter, r *http.Request) {
	var in assistantdata.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("personaId")
	in, err := h.merged(ctx, userID, id, in)
	var p assistantdata.Persona
	if err == nil {
		p, err = assistantdata.Update(ctx, h.app.DB, userID, id, in, h.app.Now())
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, personaEnvelope{p})
}

// merged fills the fields in leaves out from the stored persona; the
// default and another user's are ErrNotFound.
func (h *handler) merged(ctx context.Context, userID, id string, in assistantdata.Input) (assistantdata.Input, error) {
	if id == assistantdata.DefaultID {
		id = "" // not a row: not found
	}
	cur, err := assistantdata.Get(ctx, h.app.DB, userID, id)
	if err != nil {
		return in, err
	}
	if in.Name == nil {
		in.Name = &cur.Name
	}
	if in.Instructions == nil {
		in.Instructions = &cur.Instructions
	}
	return in, nil
}

// deletePersona deletes a persona (204); its conversations go back to the
// default.
func (h *handler) deletePersona(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := assistantdata.Delete(ctx, h.app.DB, auth.CurrentUser(ctx).ID, r.PathValue("personaId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
