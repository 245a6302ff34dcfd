package tax

import (
	"context"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/tax"
)

// Settings are the tax report's settings: the user's jurisdiction (null
// until chosen) and each account's own where it differs, with how the
// account's broker reports cost basis (the Form 8949 box).
type Settings struct {
	Jurisdiction *string           `json:"jurisdiction"`
	Accounts     []AccountSettings `json:"accounts"`
}

// AccountSettings are one account's tax settings. Jurisdiction null
// follows the user's.
type AccountSettings struct {
	AccountID      string  `json:"accountId"`
	Name           string  `json:"name"`
	Currency       string  `json:"currency"`
	Jurisdiction   *string `json:"jurisdiction"`
	BasisReporting string  `json:"basisReporting"`
}

// settingsRequest is the body of PUT /api/tax/settings: an absent field
// keeps its value; accounts lists only the accounts that change.
type settingsRequest struct {
	Jurisdiction journal.Field `json:"jurisdiction,omitzero"`
	Accounts     []struct {
		AccountID      string        `json:"accountId"`
		Jurisdiction   journal.Field `json:"jurisdiction,omitzero"`
		BasisReporting *string       `json:"basisReporting"`
	} `json:"accounts"`
}

// maxAccountSettings bounds a request's account list (an account may
// appear once; the user's accounts are far fewer).
const maxAccountSettings = 200

func validJurisdiction(s string) bool {
	switch tax.Jurisdiction(s) {
	case tax.US, tax.UK, tax.Other:
		return true
	}
	return false
}

func validReporting(s string) bool {
	switch tax.BasisReporting(s) {
	case tax.BasisReported, tax.BasisNotReported, tax.NoForm1099B:
		return true
	}
	return false
}

// jurisdictionOf reads an optional jurisdiction field: set reports whether
// it was given, value is nil for null.
func jurisdictionOf(f journal.Field, name string, p *journal.Problems) (set bool, value *string) {
	if !f.Set {
		return false, nil
	}
	if f.Null {
		return true, nil
	}
	s := f.Str
	if f.NotString || !validJurisdiction(s) {
		p.Add(name, "must be us, uk, other or null")
		return false, nil
	}
	return true, &s
}

func (h handler) getSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := readSettings(ctx, h.app.DB, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, s)
}

func (h handler) putSettings(w http.ResponseWriter, r *http.Request) {
	var in settingsRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p journal.Problems
	userSet, user := jurisdictionOf(in.Jurisdiction, "jurisdiction", &p)
	if len(in.Accounts) > maxAccountSettings {
		p.Add("accounts", "must list at most 200 accounts")
	}
	type accountChange struct {
		id         string
		set        bool
		value      *string
		reporting  *string
		reportsSet bool
	}
	var changes []accountChange
	seen := map[string]bool{}
	for i, a := range in.Accounts {
		field := func(name string) string { return "accounts[" + strconv.Itoa(i) + "]." + name }
		if !db.ValidUUID(a.AccountID) || seen[a.AccountID] {
			p.Add(field("accountId"), "must be one of your accounts, listed once")
			continue
		}
		seen[a.AccountID] = true
		set, value := jurisdictionOf(a.Jurisdiction, field("jurisdiction"), &p)
		if a.BasisReporting != nil && !validReporting(*a.BasisReporting) {
			p.Add(field("basisReporting"), "must be reported, not_reported or none")
		}
		changes = append(changes, accountChange{a.AccountID, set, value, a.BasisReporting, a.BasisReporting != nil})
	}
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var out Settings
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if userSet {
			if _, err := tx.Exec(ctx, `UPDATE users SET tax_jurisdiction = $2 WHERE id = $1`, userID, user); err != nil {
				return err
			}
		}
		for i, c := range changes {
			tag, err := tx.Exec(ctx, `UPDATE accounts SET
					tax_jurisdiction = CASE WHEN $3 THEN $4 ELSE tax_jurisdiction END,
					tax_basis_reporting = coalesce($5, tax_basis_reporting)
				WHERE id = $1 AND user_id = $2`, c.id, userID, c.set, c.value, c.reporting)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return apperr.Invalid("accounts["+strconv.Itoa(i)+"].accountId", "must be one of your accounts, listed once")
			}
		}
		var err error
		out, err = readSettings(ctx, tx, userID)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}

// readSettings reads the user's tax settings, accounts by name.
func readSettings(ctx context.Context, q db.Querier, userID string) (Settings, error) {
	s := Settings{Accounts: []AccountSettings{}}
	if err := q.QueryRow(ctx, `SELECT tax_jurisdiction FROM users WHERE id = $1`, userID).Scan(&s.Jurisdiction); err != nil {
		return Settings{}, err
	}
	rows, err := q.Query(ctx, `SELECT id::text, name, currency::text, tax_jurisdiction, tax_basis_reporting
		FROM accounts WHERE user_id = $1 ORDER BY lower(name), id`, userID)
	if err != nil {
		return Settings{}, err
	}
	accounts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AccountSettings, error) {
		var a AccountSettings
		err := row.Scan(&a.AccountID, &a.Name, &a.Currency, &a.Jurisdiction, &a.BasisReporting)
		return a, err
	})
	if err != nil {
		return Settings{}, err
	}
	s.Accounts = append(s.Accounts, accounts...)
	return s, nil
}
