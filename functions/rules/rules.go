// Package rules is the route group of a user's trading rules: their list
// and edits (/api/rules), and each trading day's compliance with them
// (/api/rules/compliance), judged by shared/rules over the trades the
// journal store reads for them (journalstore.RuleTrades).
package rules

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/rules"
	"tradejournal/shared/rules/rulesdb"
)

// MaxRules bounds one user's rules: the list is answered whole.
const MaxRules = 100

type handler struct{ app *app.App }

// Group returns the rules route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	req := a.Sessions.Require
	return httpx.Group{
		Name:   "rules",
		Mounts: []string{"/api/rules", "/api/rules/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/rules", Handler: req(h.list)},
			{Pattern: "POST /api/rules", Handler: req(h.create)},
			{Pattern: "GET /api/rules/compliance", Handler: req(h.compliance)},
			{Pattern: "GET /api/rules/compliance/positions/{positionId}", Handler: req(h.positionCompliance)},
			{Pattern: "GET /api/rules/{ruleId}", Handler: req(h.get)},
			{Pattern: "PATCH /api/rules/{ruleId}", Handler: req(h.update)},
			{Pattern: "DELETE /api/rules/{ruleId}", Handler: req(h.delete)},
		},
	}
}

type envelope struct {
	Rule rulesdb.Rule `json:"rule"`
}

// request is the body of POST and PATCH: absent keeps (PATCH), a null
// accountId makes the rule every account's, a null tagId every position's.
type request struct {
	Type      *string         `json:"type"`
	Params    json.RawMessage `json:"params"`
	Enabled   *bool           `json:"enabled"`
	AccountID journal.Field   `json:"accountId"`
	Weight    journal.Field   `json:"weight"`
	TagID     journal.Field   `json:"tagId"`
}

func (h handler) list(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	items, err := rulesdb.Read(ctx, h.app.DB, auth.CurrentUser(ctx).ID, false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": items})
}

// checked is a request's rule as it is to be written.
type checked struct {
	typ       rules.Type
	params    rules.Params
	enabled   bool
	accountID *string
	weight    rules.Weight
	tagID     *string
}

// validate merges in into the rule before (the zero value for a create)
// and checks it: the type's parameters, and an account of the user.
func validate(ctx context.Context, q db.Querier, userID string, in request, before checked, create bool) (checked, error) {
	out := before
	var p journal.Problems
	switch {
	case in.Type != nil:
		if !rules.ValidType(*in.Type) {
			p.Add("type", "is not a rule type")
		}
		out.typ = rules.Type(*in.Type)
	case create:
		p.Add("type", "is required")
	}
	if in.Enabled != nil {
		out.enabled = *in.Enabled
	}
	if in.AccountID.Set {
		switch {
		case in.AccountID.Null:
			out.accountID = nil
		case in.AccountID.NotString || !db.ValidUUID(in.AccountID.Str):
			p.Add("accountId", "must be the id of one of your accounts, or null for every account")
		default:
			var ok bool
			if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE id = $1 AND user_id = $2)`, in.AccountID.Str, userID).Scan(&ok); err != nil {
				return checked{}, db.Classify(err)
			}
			if !ok {
				p.Add("accountId", "must be the id of one of your accounts, or null for every account")
			}
			id := in.AccountID.Str
			out.accountID = &id
		}
	}
	if in.Weight.Set {
		w, ok := rules.ParseWeight(in.Weight.Str)
		if in.Weight.Null || in.Weight.NotString || !ok {
			p.Add("weight", "must be critical, important or niceToHave")
		}
		out.weight = w
	}
	if in.TagID.Set {
		switch {
		case in.TagID.Null:
			out.tagID = nil
		case in.TagID.NotString || !db.ValidUUID(in.TagID.Str):
			p.Add("tagId", "must be the id of one of your tags, or null for every position")
		default:
			var ok bool
			if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM tags WHERE id = $1 AND user_id = $2)`, in.TagID.Str, userID).Scan(&ok); err != nil {
				return checked{}, db.Classify(err)
			}
			if !ok {
				p.Add("tagId", "must be the id of one of your tags, or null for every position")
			}
			id := in.TagID.Str
			out.tagID = &id
		}
	}
	if err := p.Err(); err != nil {
		return checked{}, err
	}
	if in.Params != nil || in.Type != nil {
		params, err := rules.ParseParams(out.typ, in.Params)
		if err != nil {
			return checked{}, err
		}
		out.params = params
	}
	return out, nil
}

// create adds a rule (enabled unless told otherwise); 409 past MaxRules.
func (h handler) create(w http.ResponseWriter, r *http.Request) {
	var in request
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var out rulesdb.Rule
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		c, err := validate(ctx, tx, userID, in, checked{enabled: true, weight: rules.DefaultWeight}, true)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID); err != nil {
			return db.Classify(err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM trading_rules WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n >= MaxRules {
			return apperr.New(apperr.Conflict, "you have %d rules, the most one user may have; delete one first", n)
		}
		out, err = rulesdb.Scan(tx.QueryRow(ctx, `INSERT INTO trading_rules (user_id, type, params, enabled, account_id, weight, tag_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+rulesdb.Columns,
			userID, c.typ, c.params, c.enabled, c.accountID, int(c.weight), c.tagID))
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, envelope{out})
}

// byID reads one of the user's rules; a malformed, missing or foreign id
// is the same codeless 404.
func byID(ctx context.Context, q db.Querier, userID, id string, lock bool) (rulesdb.Rule, error) {
	if !db.ValidUUID(id) {
		return rulesdb.Rule{}, apperr.ErrNotFound
	}
	sql := `SELECT ` + rulesdb.Columns + ` FROM trading_rules WHERE id = $1 AND user_id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	return rulesdb.Scan(q.QueryRow(ctx, sql, id, userID))
}

func (h handler) get(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rule, err := byID(ctx, h.app.DB, auth.CurrentUser(ctx).ID, r.PathValue("ruleId"), false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{rule})
}

// update changes a rule; a new type needs its own parameters.
func (h handler) update(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	id := r.PathValue("ruleId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in request
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var out rulesdb.Rule
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		old, err := byID(ctx, tx, userID, id, true)
		if err != nil {
			return err
		}
		c, err := validate(ctx, tx, userID, in, checked{typ: old.Type, params: old.Params, enabled: old.Enabled, accountID: old.AccountID, weight: old.Weight, tagID: old.TagID}, false)
		if err != nil {
			return err
		}
		out, err = rulesdb.Scan(tx.QueryRow(ctx, `UPDATE trading_rules SET type = $3, params = $4, enabled = $5, account_id = $6, weight = $7, tag_id = $8, updated_at = now()
WHERE id = $1 AND user_id = $2 RETURNING `+rulesdb.Columns, id, userID, c.typ, c.params, c.enabled, c.accountID, int(c.weight), c.tagID))
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, envelope{out})
}

func (h handler) delete(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := db.DeleteOwned(ctx, h.app.DB, "trading_rules", r.PathValue("ruleId"), auth.CurrentUser(ctx).ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
