// Package accounts is the route group of a trader's accounts and what hangs
// off them: the brokerages (fee schedules) an account may point at, the
// account ledger (deposits and withdrawals beside the realised P&L and fees
// its fills book), the prop-firm plan an account may carry (shared/propfirm)
// and the tags positions carry.
//
// Every record is scoped to its owner: another user's id is the same
// codeless 404 as a missing one, and so is a malformed id in a path.
package accounts

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/analytics"
	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/money"
	"tradejournal/shared/plans"
)

// Caps on how many of each record one user may have: lists of accounts,
// brokerages and tags come back whole.
const (
	MaxAccounts   = 200
	MaxBrokerages = 100
	MaxTags       = 500
)

// DefaultTimezone is an account's trading-day zone unless chosen.
const DefaultTimezone = "America/New_York"

type handler struct {
	app     *app.App
	journal *journalstore.Store // deposits and withdrawals are the journal's writes
	days    *dayjournal.Store   // the demo journal's day entry
}

// Group returns the accounts route group: accounts and their ledger,
// brokerages and tags.
func Group(a *app.App) httpx.Group {
	h := handler{app: a, journal: journalstore.New(a.DB, a.Keyring, a.Now), days: dayjournal.New(a.DB, a.Keyring, a.Now)}
	require := a.Sessions.Require
	return httpx.Group{
		Name: "accounts",
		Mounts: []string{"/api/accounts", "/api/accounts/", "/api/brokerages", "/api/brokerages/", "/api/tags", "/api/tags/",
			"/api/demo-journal", "/api/prop-firm/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/accounts", Handler: require(h.listAccounts)},
			{Pattern: "POST /api/accounts", Handler: require(h.createAccount)},
			{Pattern: "GET /api/accounts/{accountId}", Handler: require(h.getAccount)},
			{Pattern: "PATCH /api/accounts/{accountId}", Handler: require(h.updateAccount)},
			{Pattern: "DELETE /api/accounts/{accountId}", Handler: require(h.deleteAccount)},
			{Pattern: "GET /api/accounts/{accountId}/ledger", Handler: require(h.listLedger)},
			{Pattern: "POST /api/accounts/{accountId}/ledger", Handler: require(h.addLedgerEntry)},
			{Pattern: "DELETE /api/accounts/{accountId}/ledger/{entryId}", Handler: require(h.deleteLedgerEntry)},
			{Pattern: "POST /api/accounts/{accountId}/ledger/reconcile", Handler: require(h.reconcileLedger)},
			{Pattern: "GET /api/accounts/position-counts", Handler: require(h.positionCounts)},
			{Pattern: "GET /api/accounts/{accountId}/prop-firm", Handler: require(h.getPropFirm)},
			{Pattern: "PUT /api/accounts/{accountId}/prop-firm", Handler: require(h.putPropFirm)},
			{Pattern: "DELETE /api/accounts/{accountId}/prop-firm", Handler: require(h.deletePropFirm)},
			{Pattern: "GET /api/accounts/{accountId}/prop-firm/status", Handler: require(h.propFirmStatus)},
			{Pattern: "GET /api/prop-firm/status", Handler: require(h.allPropFirmStatuses)},
			{Pattern: "GET /api/prop-firm/templates", Handler: require(h.propFirmTemplates)},

			{Pattern: "GET /api/brokerages", Handler: require(h.listBrokerages)},
			{Pattern: "POST /api/brokerages", Handler: require(h.createBrokerage)},
			{Pattern: "GET /api/brokerages/{brokerageId}", Handler: require(h.getBrokerage)},
			{Pattern: "PATCH /api/brokerages/{brokerageId}", Handler: require(h.updateBrokerage)},
			{Pattern: "DELETE /api/brokerages/{brokerageId}", Handler: require(h.deleteBrokerage)},
			{Pattern: "POST /api/brokerages/{brokerageId}/duplicate", Handler: require(h.duplicateBrokerage)},

			{Pattern: "GET /api/tags", Handler: require(h.listTags)},
			{Pattern: "POST /api/tags", Handler: require(h.createTag)},
			{Pattern: "GET /api/tags/{tagId}", Handler: require(h.getTag)},
			{Pattern: "PATCH /api/tags/{tagId}", Handler: require(h.updateTag)},
			{Pattern: "DELETE /api/tags/{tagId}", Handler: require(h.deleteTag)},

			{Pattern: "POST /api/demo-journal", Handler: require(h.loadDemo)},
			{Pattern: "DELETE /api/demo-journal", Handler: require(h.removeDemo)},
		},
	}
}

// Account is an account as the API shows it. Amounts are 4-place strings.
type Account struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	Currency           string  `json:"currency"`
	Timezone           string  `json:"timezone"`
	StartingBalance    string  `json:"startingBalance"`
	Balance            string  `json:"balance"`
	DefaultRiskPercent *string `json:"defaultRiskPercent"`
	BrokerageID        *string `json:"brokerageId"`
	// BuyingPower is the stored figure the calculator caps a position
	// against when this account is chosen (the broker's buying power,
	// margin included); null when none is stored.
	BuyingPower *string `json:"buyingPower"`
	Archived    bool    `json:"archived"`
	// Demo marks the demo journal's account (POST /api/demo-journal),
	// removed with DELETE /api/demo-journal.
	Demo      bool      `json:"demo"`
	CreatedAt time.Time `json:"createdAt"`
}

type accountEnvelope struct {
	Account Account `json:"account"`
}

// list is the shape of every list: the items and the next page's cursor
// (always null for lists that come back whole).
type list[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// pageOf is the list of one bounded page (listquery.PageOf).
func pageOf[T any](rows []T, page listquery.BoundedPage, keys func(T) []string) list[T] {
	items, next := listquery.PageOf(rows, page, keys)
	return list[T]{Items: items, NextCursor: next}
}

const accountColumns = `id::text, name, currency, timezone, starting_balance, balance,
	default_risk_percent, brokerage_id::text, buying_power, archived, demo, created_at`

func scanAccount(row pgx.Row) (Account, error) {
	var (
		a             Account
		start, bal    decimal.Decimal
		risk, power   *decimal.Decimal
		currencyBlank string
	)
	err := row.Scan(&a.ID, &a.Name, &currencyBlank, &a.Timezone, &start, &bal, &risk, &a.BrokerageID, &power, &a.Archived, &a.Demo, &a.CreatedAt)
	a.Currency = strings.TrimSpace(currencyBlank)
	a.StartingBalance = money.RoundN(start, 4)
	a.Balance = money.RoundN(bal, 4)
	if risk != nil {
		s := risk.String()
		a.DefaultRiskPercent = &s
	}
	if power != nil {
		s := money.RoundN(*power, 4)
		a.BuyingPower = &s
	}
	return a, err
}

// accountRequest is the body of POST and PATCH /api/accounts. On PATCH an
// absent field keeps its value; null clears defaultRiskPercent,
// brokerageId and buyingPower.
type accountRequest struct {
	Name               *string       `json:"name"`
	Currency           *string       `json:"currency"`
	Timezone           *string       `json:"timezone"`
	StartingBalance    journal.Field `json:"startingBalance,omitzero"`
	DefaultRiskPercent journal.Field `json:"defaultRiskPercent,omitzero"`
	BrokerageID        journal.Field `json:"brokerageId,omitzero"`
	BuyingPower        journal.Field `json:"buyingPower,omitzero"`
	Archived           *bool         `json:"archived"`
}

// accountValues is a validated accountRequest: nil pointers keep (PATCH) or
// take the default (POST).
type accountValues struct {
	name, currency, timezone *string
	startingBalance          *decimal.Decimal
	riskSet                  bool
	risk                     *decimal.Decimal
	brokerageSet             bool
	brokerageID              *string
	powerSet                 bool
	power                    *decimal.Decimal
	archived                 *bool
}

func validateAccount(in accountRequest, create bool) (accountValues, error) {
	var (
		p journal.Problems
		v accountValues
	)
	switch {
	case in.Name != nil:
		if name, err := journal.Name("name", *in.Name, journal.MaxNameChars); err != nil {
			p.Merge(err)
		} else {
			v.name = &name
		}
	case create:
		p.Add("name", "is required")
	}
	switch {
	case in.Currency != nil:
		c := strings.ToUpper(strings.TrimSpace(*in.Currency))
		if !money.ValidCurrency(c) {
			p.Add("currency", "must be an ISO 4217 currency code such as USD or EUR")
		} else {
			v.currency = &c
		}
	case create:
		p.Add("currency", "is required")
	}
	if in.Timezone != nil {
		if msg := auth.CheckTimezone(*in.Timezone); msg != "" {
			p.Add("timezone", msg)
		} else {
			v.timezone = in.Timezone
		}
	}
	if in.StartingBalance.Set {
		if in.StartingBalance.Blank() && !create {
			p.Add("startingBalance", "must be a decimal string like \"10000.00\"; use \"0\" for none")
		} else if d, ok := p.Decimal("startingBalance", in.StartingBalance, journal.BalanceRule); ok {
			v.startingBalance = &d
		}
	}
	if in.DefaultRiskPercent.Set {
		v.riskSet = true
		if d, ok := p.Decimal("defaultRiskPercent", in.DefaultRiskPercent, journal.PercentRule); ok {
			v.risk = &d
		}
	}
	if f := in.BrokerageID; f.Set {
		v.brokerageSet = true
		switch {
		case f.Null:
		case f.NotString || !db.ValidUUID(f.Str):
			p.Add("brokerageId", "must be a brokerage id")
		default:
			v.brokerageID = &f.Str
		}
	}
	if in.BuyingPower.Set {
		// The calculator's buyingPower: sign-agnostic, the balance domain.
		v.powerSet = true
		if d, ok := p.Decimal("buyingPower", in.BuyingPower, journal.BalanceRule); ok {
			v.power = &d
		}
	}
	v.archived = in.Archived
	return v, p.Err()
}

// checkBrokerage refuses a brokerage id that is neither built in nor the
// user's.
func checkBrokerage(ctx context.Context, q db.Querier, userID string, id *string) error {
	if id == nil {
		return nil
	}
	var ok bool
	const sql = `SELECT EXISTS (SELECT 1 FROM brokerages WHERE id = $1 AND (user_id IS NULL OR user_id = $2))`
	if err := q.QueryRow(ctx, sql, *id, userID).Scan(&ok); err != nil {
		return db.Classify(err)
	}
	if !ok {
		return apperr.Invalid("brokerageId", "must be a built-in brokerage or one of yours")
	}
	return nil
}

// accountOrder is the order of the accounts list: oldest first.
var accountOrder = []listquery.SortKey{listquery.TimeKey("created_at"), listquery.IDKey}

func (h handler) listAccounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	page, err := listquery.ParseBoundedPage(r.URL.Query(), accountOrder)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	sql, args := page.Query(`SELECT `+accountColumns+` FROM accounts WHERE user_id = $1`, []any{auth.CurrentUser(ctx).ID}, accountOrder)
	rows, err := h.app.DB.Query(ctx, sql, args...)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Account, error) { return scanAccount(row) })
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, pageOf(items, page, func(a Account) []string {
		return []string{listquery.TimeKeyOf(a.CreatedAt), a.ID}
	}))
}

// createAccount creates an account. The first account of a user without a
// display currency sets it to the account's currency, in the same
// transaction.
func (h handler) createAccount(w http.ResponseWriter, r *http.Request) {
	var in accountRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	v, err := validateAccount(in, true)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	tz := DefaultTimezone
	if v.timezone != nil {
		tz = *v.timezone
	}
	start := decimal.Zero
	if v.startingBalance != nil {
		start = *v.startingBalance
	}
	archived := v.archived != nil && *v.archived

	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var acc Account
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, userID, "accounts", MaxAccounts); err != nil {
			return err
		}
		if !archived {
			if err := plans.New(h.app.Config, h.app.Now).Check(ctx, tx, userID, plans.Accounts, 1); err != nil {
				return err
			}
		}
		if err := checkBrokerage(ctx, tx, userID, v.brokerageID); err != nil {
			return err
		}
		const ins = `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance,
				default_risk_percent, brokerage_id, archived, buying_power)
			VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9) RETURNING ` + accountColumns
		var err error
		acc, err = scanAccount(tx.QueryRow(ctx, ins, userID, *v.name, *v.currency, tz, start, v.risk, v.brokerageID, archived, v.power))
		if err != nil {
			return nameTaken(err)
		}
		_, err = tx.Exec(ctx, `UPDATE users SET display_currency = $2 WHERE id = $1 AND display_currency IS NULL`, userID, acc.Currency)
		return db.Classify(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	h.app.Analytics.Capture(userID, analytics.EventAccountCreated, analytics.Props{"withBrokerage": v.brokerageID != nil})
	httpx.JSON(w, http.StatusCreated, accountEnvelope{acc})
}

// accountNameKey is the unique index on (user_id, lower(name))
// (migrations/0019_account_names.sql): two of a user's accounts cannot share
// a name, ignoring case.
const accountNameKey = "accounts_user_name_key"

var errNameTaken = apperr.Invalid("name", "is already the name of another of your accounts")

// nameTaken turns the name index's violation into errNameTaken, and any
// other error into its class (nil stays nil).
func nameTaken(err error) error {
	if db.IsUniqueViolation(err, accountNameKey) {
		return errNameTaken
	}
	return db.Classify(err)
}

// lockUser serialises a user's creations of one kind of record (so the cap
// holds under concurrent requests) and refuses one past the cap.
func lockUser(ctx context.Context, tx pgx.Tx, userID, table string, max int) error {
	if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID); err != nil {
		return db.Classify(err)
	}
	var n int
	// table is one of three constants, never input.
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE user_id = $1`, userID).Scan(&n); err != nil {
		return db.Classify(err)
	}
	if n >= max {
		return apperr.New(apperr.Conflict, "you have %d %s, the most one user may have; delete one first", n, table)
	}
	return nil
}

// accountByID reads the user's account; a malformed, missing or foreign id
// is ErrNotFound. lock adds FOR UPDATE.
func accountByID(ctx context.Context, q db.Querier, userID, id string, lock bool) (Account, error) {
	if !db.ValidUUID(id) {
		return Account{}, apperr.ErrNotFound
	}
	sql := `SELECT ` + accountColumns + ` FROM accounts WHERE id = $1 AND user_id = $2`
	if lock {
		sql += ` FOR UPDATE`
	}
	a, err := scanAccount(q.QueryRow(ctx, sql, id, userID))
	return a, db.Classify(err)
}

func (h handler) getAccount(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	a, err := accountByID(ctx, h.app.DB, auth.CurrentUser(ctx).ID, r.PathValue("accountId"), false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, accountEnvelope{a})
}

// updateAccount changes an account. A new starting balance moves the
// balance by the same amount in the same statement (balance stays
// starting_balance + the ledger).
func (h handler) updateAccount(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in accountRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	v, err := validateAccount(in, false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	var acc Account
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := checkBrokerage(ctx, tx, userID, v.brokerageID); err != nil {
			return err
		}
		if v.archived != nil && !*v.archived {
			if err := h.checkUnarchive(ctx, tx, userID, id); err != nil {
				return err
			}
		}
		const upd = `UPDATE accounts SET
				name = coalesce($3, name),
				currency = coalesce($4, currency),
				timezone = coalesce($5, timezone),
				balance = CASE WHEN $6::numeric IS NULL THEN balance ELSE balance + ($6 - starting_balance) END,
				starting_balance = coalesce($6, starting_balance),
				default_risk_percent = CASE WHEN $7 THEN $8 ELSE default_risk_percent END,
				brokerage_id = CASE WHEN $9 THEN $10::uuid ELSE brokerage_id END,
				archived = coalesce($11, archived),
				buying_power = CASE WHEN $12 THEN $13 ELSE buying_power END
			WHERE id = $1 AND user_id = $2 RETURNING ` + accountColumns
		var err error
		acc, err = scanAccount(tx.QueryRow(ctx, upd, id, userID, v.name, v.currency, v.timezone, v.startingBalance,
			v.riskSet, v.risk, v.brokerageSet, v.brokerageID, v.archived, v.powerSet, v.power))
		return nameTaken(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, accountEnvelope{acc})
}

// checkUnarchive holds the free plan's limit of active accounts when an
// archived account is taken out of the archive (not when an active one is
// saved again with archived false).
func (h handler) checkUnarchive(ctx context.Context, tx pgx.Tx, userID, id string) error {
	var archived bool
	err := tx.QueryRow(ctx, `SELECT archived FROM accounts WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID).Scan(&archived)
	if err != nil || !archived {
		return db.Classify(err)
	}
	return plans.New(h.app.Config, h.app.Now).Check(ctx, tx, userID, plans.Accounts, 1)
}

// deleteAccount deletes an account with everything in it (positions, fills,
// images, ledger) in one transaction. An account that holds positions needs
// ?confirm=true; without it the answer is 409 CONFLICT saying how many
// positions would go.
func (h handler) deleteAccount(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var confirm bool
	switch c := r.URL.Query().Get("confirm"); c {
	case "", "false":
	case "true":
		confirm = true
	default:
		httpx.Error(w, r, apperr.Invalid("confirm", "must be true or false"))
		return
	}
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		// Positions first, then the account: the lock order of every fill
		// write, so a concurrent fill cannot deadlock with the delete.
		const lockPositions = `SELECT count(*) FROM (SELECT 1 FROM positions
			WHERE account_id = $1 AND user_id = $2 ORDER BY id FOR UPDATE) p`
		var n int
		if err := tx.QueryRow(ctx, lockPositions, id, userID).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if _, err := accountByID(ctx, tx, userID, id, true); err != nil {
			return err
		}
		// Re-count under the account lock: a position created meanwhile
		// (creation takes a key-share lock on the account) is counted too.
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM positions WHERE account_id = $1`, id).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n > 0 && !confirm {
			return apperr.New(apperr.Conflict,
				"this account holds %d position%s; deleting it deletes them with their fills, images and ledger: repeat with ?confirm=true",
				n, plural(n))
		}
		_, err := tx.Exec(ctx, `DELETE FROM accounts WHERE id = $1 AND user_id = $2`, id, userID)
		return db.Classify(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
