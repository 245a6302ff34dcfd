// Package expenses is the route group of a trader's expenses (data feeds,
// platforms, education, hardware, subscriptions, and categories of the
// user's own), one-off or recurring monthly or yearly, their materialised
// charges, their summary in the display currency, and their CSV export
// and import. shared/expenses owns every read and write; the statistics
// net of them are GET /api/performance?netOfExpenses=true.
//
// Another user's id, a missing id and a malformed id are the same
// codeless 404.
package expenses

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/expenses"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
)

type handler struct {
	app   *app.App
	store *expenses.Store
}

// Group returns the expenses route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a, store: expenses.New(a.DB, a.Now)}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "expenses",
		Mounts: []string{"/api/expenses", "/api/expenses/", "/api/expense-categories", "/api/expense-categories/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/expenses", Handler: require(h.list)},
			{Pattern: "POST /api/expenses", Handler: require(h.create)},
			{Pattern: "GET /api/expenses/charges", Handler: require(h.charges)},
			{Pattern: "GET /api/expenses/summary", Handler: require(h.summary)},
			{Pattern: "GET /api/expenses/export", Handler: require(h.export)},
			{Pattern: "POST /api/expenses/import", Handler: require(h.importCSV)},
			{Pattern: "GET /api/expenses/{expenseId}", Handler: require(h.get)},
			{Pattern: "PATCH /api/expenses/{expenseId}", Handler: require(h.update)},
			{Pattern: "DELETE /api/expenses/{expenseId}", Handler: require(h.delete)},
			{Pattern: "GET /api/expense-categories", Handler: require(h.categories)},
			{Pattern: "POST /api/expense-categories", Handler: require(h.createCategory)},
			{Pattern: "PATCH /api/expense-categories/{categoryId}", Handler: require(h.renameCategory)},
			{Pattern: "DELETE /api/expense-categories/{categoryId}", Handler: require(h.deleteCategory)},
		},
	}
}

type envelope struct {
	Expense expenses.Expense `json:"expense"`
}

// list answers a page of the user's expense definitions, newest start
// first; with from/to, those with a charge in the range, each totalled
// over it.
func (h handler) list(w http.ResponseWriter, r *http.Request) {
	q, err := expenses.ParseQuery(r.URL.Query())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	page, err := h.store.List(ctx, auth.CurrentUser(ctx).ID, q)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in expenses.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	e, err := h.store.Create(ctx, auth.CurrentUser(ctx).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, envelope{e})
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	e, err := h.store.Expense(ctx, auth.CurrentUser(ctx).ID, r.PathValue("expenseId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{e})
}

// update changes the fields given and rewrites the expense's charges.
func (h handler) update(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("expenseId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in expenses.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	e, err := h.store.Update(ctx, auth.CurrentUser(ctx).ID, id, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{e})
}

func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.store.Delete(ctx, auth.CurrentUser(ctx).ID, r.PathValue("expenseId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// charges answers a page of the user's materialised charges, newest first.
func (h handler) charges(w http.ResponseWriter, r *http.Request) {
	q, err := expenses.ParseQuery(r.URL.Query())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	page, err := h.store.Charges(ctx, auth.CurrentUser(ctx).ID, q)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, page)
}

// summary totals the charges of from..to by category and by month, each
// converted into the display currency.
func (h handler) summary(w http.ResponseWriter, r *http.Request) {
	var p journal.Problems
	q := r.URL.Query()
	for name := range q {
		if name != "from" && name != "to" {
			p.Add(name, "is not a parameter of the summary (from, to)")
		}
	}
	f := expenses.ParseFilter(q, &p)
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	s, err := h.store.Summary(ctx, auth.CurrentUser(ctx), f.From, f.To)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, s)
}

// export answers the user's expenses as CSV, the file the import reads
// back.
func (h handler) export(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	var buf bytes.Buffer
	if err := h.store.ExportCSV(ctx, auth.CurrentUser(ctx).ID, &buf); err != nil {
		httpx.Error(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/csv; charset=utf-8")
	hd.Set("Content-Disposition", `attachment; filename="tradejournal-expenses-`+h.app.Now().Format("2006-01-02")+`.csv"`)
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

var (
	errImportMedia = apperr.New(apperr.UnsupportedMedia, "send the CSV as text/csv, or as multipart/form-data with a part named file")
	errImportSize  = apperr.New(apperr.PayloadTooLarge, "the file is larger than %d bytes; split it into several imports", expenses.MaxImportBytes)
)

// importCSV records every row of the CSV (the body as text/csv, or the
// part named file of a multipart body) as a new expense, all or nothing.
func (h handler) importCSV(w http.ResponseWriter, r *http.Request) {
	file, err := csvBody(w, r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	rows, err := expenses.ParseCSV(bytes.NewReader(file))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	n, err := h.store.Import(ctx, auth.CurrentUser(ctx).ID, rows)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, map[string]int{"imported": n})
}

// csvBody reads the import's file, at most MaxImportBytes (counted on
// the bytes read, whatever Content-Length says).
func csvBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, errImportMedia
	}
	var file io.Reader
	switch mt {
	case "text/csv", "text/plain", "application/csv":
		file = http.MaxBytesReader(w, r.Body, expenses.MaxImportBytes)
	case "multipart/form-data":
		if params["boundary"] == "" {
			return nil, errImportMedia
		}
		r.Body = http.MaxBytesReader(w, r.Body, expenses.MaxImportBytes+multipartSlack)
		mr, err := r.MultipartReader()
		if err != nil {
			return nil, errImportMedia
		}
		for file == nil {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				return nil, apperr.Invalid("file", "is required: a part named file")
			}
			if err != nil {
				return nil, readError(err)
			}
			if part.FormName() == "file" {
				file = part
			}
		}
	default:
		return nil, errImportMedia
	}
	raw, err := io.ReadAll(io.LimitReader(file, expenses.MaxImportBytes+1))
	if err != nil {
		return nil, readError(err)
	}
	if len(raw) > expenses.MaxImportBytes {
		return nil, errImportSize
	}
	return raw, nil
}

// multipartSlack is what a multipart body may hold beyond its file's
// cap: boundaries, part headers and small other parts.
const multipartSlack = 64 << 10

// readError turns a body read past its cap into 413, and a broken one
// into 400.
func readError(err error) error {
	if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
		return errImportSize
	}
	return apperr.Invalid("file", "the body could not be read (cut short or malformed)")
}

type categoryEnvelope struct {
	Category expenses.Category `json:"category"`
}

// categories lists the built-in categories, then the user's own by name.
func (h handler) categories(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	list, err := h.store.Categories(ctx, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": list})
}

func (h handler) createCategory(w http.ResponseWriter, r *http.Request) {
	var in expenses.CategoryInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	c, err := h.store.CreateCategory(ctx, auth.CurrentUser(ctx).ID, in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, categoryEnvelope{c})
}

func (h handler) renameCategory(w http.ResponseWriter, r *http.Request) {
	var in expenses.CategoryInput
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	c, err := h.store.RenameCategory(ctx, auth.CurrentUser(ctx).ID, r.PathValue("categoryId"), in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, categoryEnvelope{c})
}

// deleteCategory deletes a category of the user's own; its expenses move
// to "other" (the answer says how many).
func (h handler) deleteCategory(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	moved, err := h.store.DeleteCategory(ctx, auth.CurrentUser(ctx).ID, r.PathValue("categoryId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]int{"movedToOther": moved})
}
