package accounts

import (
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

type tagEnvelope struct {
	Tag journal.Tag `json:"tag"`
}

// tagRequest is the body of POST and PATCH /api/tags.
type tagRequest struct {
	Name     *string `json:"name"`
	Category *string `json:"category"`
}

func validateTag(in tagRequest, create bool) (name, category *string, err error) {
	var p journal.Problems
	switch {
	case in.Name != nil:
		if n, err := journal.Name("name", *in.Name, journal.MaxTagNameChars); err != nil {
			p.Merge(err)
		} else {
			name = &n
		}
	case create:
		p.Add("name", "is required")
	}
	if in.Category != nil {
		if !slices.Contains(journal.TagCategories, *in.Category) {
			p.Add("category", "must be one of "+strings.Join(journal.TagCategories, ", "))
		} else {
			category = in.Category
		}
	}
	return name, category, p.Err()
}

var errTagTaken = apperr.New(apperr.Conflict, "you already have a tag with this name")

const tagColumns = `id::text, name, category`

func scanTag(row pgx.Row) (journal.Tag, error) {
	var t journal.Tag
	err := row.Scan(&t.ID, &t.Name, &t.Category)
	return t, err
}

// tagOrder is the order of the tags list: by category, then name
// regardless of case. The cursor keeps the name as it is; the database
// lowers it, the same way it lowers the column.
var tagOrder = []listquery.SortKey{
	{Column: "category", Param: "%s::text"},
	{Column: "lower(name)", Param: "lower(%s::text)"},
	listquery.IDKey,
}

func (h handler) listTags(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	page, err := listquery.ParseBoundedPage(r.URL.Query(), tagOrder)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	sql, args := page.Query(`SELECT `+tagColumns+` FROM tags WHERE user_id = $1`, []any{auth.CurrentUser(ctx).ID}, tagOrder)
	rows, err := h.app.DB.Query(ctx, sql, args...)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (journal.Tag, error) { return scanTag(row) })
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, pageOf(items, page, func(t journal.Tag) []string { return []string{t.Category, t.Name, t.ID} }))
}

// createTag creates a tag; names are unique per user regardless of case
// (409 CONFLICT).
func (h handler) createTag(w http.ResponseWriter, r *http.Request) {
	var in tagRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	name, category, err := validateTag(in, true)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if category == nil {
		general := "general"
		category = &general
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var t journal.Tag
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, userID, "tags", MaxTags); err != nil {
			return err
		}
		var err error
		t, err = scanTag(tx.QueryRow(ctx, `INSERT INTO tags (user_id, name, category) VALUES ($1, $2, $3) RETURNING `+tagColumns,
			userID, *name, *category))
		if db.IsUniqueViolation(err, "tags_user_name_key") {
			return errTagTaken
		}
		return db.Classify(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, tagEnvelope{t})
}

// getTag answers one of the caller's tags; another user's, a missing one
// and a malformed id are the same codeless 404.
func (h handler) getTag(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("tagId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	t, err := scanTag(h.app.DB.QueryRow(ctx, `SELECT `+tagColumns+` FROM tags WHERE id = $1 AND user_id = $2`, id, auth.CurrentUser(ctx).ID))
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, tagEnvelope{t})
}

func (h handler) updateTag(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("tagId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in tagRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	name, category, err := validateTag(in, false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	const upd = `UPDATE tags SET name = coalesce($3, name), category = coalesce($4, category)
		WHERE id = $1 AND user_id = $2 RETURNING ` + tagColumns
	t, err := scanTag(h.app.DB.QueryRow(ctx, upd, id, auth.CurrentUser(ctx).ID, name, category))
	if db.IsUniqueViolation(err, "tags_user_name_key") {
		err = errTagTaken
	}
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, tagEnvelope{t})
}

// deleteTag deletes a tag and takes it off every position, through the
// journal store (the statistics read the positions' tags).
func (h handler) deleteTag(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.journal.DeleteTag(ctx, auth.CurrentUser(ctx).ID, r.PathValue("tagId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
