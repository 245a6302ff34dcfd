package accounts

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/propfirm"
)

// PropFirm is an account's prop-firm plan as stored.
type PropFirm struct {
	AccountID string        `json:"accountId"`
	Plan      propfirm.Plan `json:"plan"`
	UpdatedAt time.Time     `json:"updatedAt"`
}

// PropFirmStatus is a plan's status now, with its account and the phase
// it is in (prop_firm_plans.phase).
type PropFirmStatus struct {
	AccountID string          `json:"accountId"`
	Name      string          `json:"name"`
	Currency  string          `json:"currency"`
	Phase     propfirm.Phase  `json:"phase"`
	Plan      propfirm.Plan   `json:"plan"`
	Status    propfirm.Status `json:"status"`
}

// PropFirmGlance is what the dashboard's banner shows of a plan's status:
// whether it failed and on what, and today's loss against the daily
// limit; not the days' history the status page charts.
type PropFirmGlance struct {
	AccountID     string              `json:"accountId"`
	Name          string              `json:"name"`
	Currency      string              `json:"currency"`
	Phase         propfirm.Phase      `json:"phase"`
	WarnAtPercent int                 `json:"warnAtPercent"`
	Result        propfirm.Result     `json:"result"`
	Breach        *propfirm.Violation `json:"breach"`
	DailyLoss     *propfirm.Limit     `json:"dailyLoss"`
}

// errNoPlan answers the status of an account without a plan.
var errNoPlan = &apperr.Error{Code: apperr.NotFound, Message: "this account has no prop-firm plan"}

// getPropFirm answers the account's plan, {"propFirm": null} without one.
func (h handler) getPropFirm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	if _, err := accountByID(ctx, h.app.DB, userID, r.PathValue("accountId"), false); err != nil {
		httpx.Error(w, r, err)
		return
	}
	p, err := planOf(ctx, h.app.DB, userID, r.PathValue("accountId"))
	if err != nil && !errors.Is(err, errNoPlan) {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"propFirm": p})
}

// planOf reads the account's plan; errNoPlan without one.
func planOf(ctx context.Context, q db.Querier, userID, accountID string) (*PropFirm, error) {
	var (
		p   = PropFirm{AccountID: accountID}
		raw []byte
	)
	const sql = `SELECT plan, updated_at FROM prop_firm_plans WHERE account_id = $1 AND user_id = $2`
	err := q.QueryRow(ctx, sql, accountID, userID).Scan(&raw, &p.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNoPlan
	}
	if err != nil {
		return nil, db.Classify(err)
	}
	if p.Plan, err = propfirm.Parse(raw); err != nil {
		return nil, err
	}
	return &p, nil
}

// putPropFirm sets the account's plan, replacing any.
func (h handler) putPropFirm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in propfirm.Input
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	plan, err := propfirm.Validate(in)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := PropFirm{AccountID: id, Plan: plan}
	const upsert = `INSERT INTO prop_firm_plans (account_id, user_id, phase, plan)
		SELECT a.id, a.user_id, $3, $4 FROM accounts a WHERE a.id = $1 AND a.user_id = $2
		ON CONFLICT (account_id) DO UPDATE SET phase = EXCLUDED.phase, plan = EXCLUDED.plan, updated_at = now()
		RETURNING updated_at`
	err = h.app.DB.QueryRow(ctx, upsert, id, userID, plan.Phase, plan).Scan(&out.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		err = apperr.ErrNotFound
	}
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"propFirm": out})
}

// deletePropFirm removes the account's plan (its trades stay): 204, also
// when there was none.
func (h handler) deletePropFirm(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("accountId")
	if _, err := accountByID(ctx, h.app.DB, userID, id, false); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if _, err := h.app.DB.Exec(ctx, `DELETE FROM prop_firm_plans WHERE account_id = $1 AND user_id = $2`, id, userID); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.NoContent(w)
}

// propFirmStatus answers the status of the account's plan; 404 without one.
func (h handler) propFirmStatus(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("accountId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	items, err := statuses(ctx, h.app.DB, auth.CurrentUser(ctx).ID, &id, h.app.Now())
	if err == nil && len(items) == 0 {
		err = errNoPlan
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, items[0])
}

// allPropFirmStatuses answers the standing of every account with a plan
// at a glance (the dashboard's warning), the accounts in name order.
func (h handler) allPropFirmStatuses(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	items, err := statuses(ctx, h.app.DB, auth.CurrentUser(ctx).ID, nil, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	out := make([]PropFirmGlance, len(items))
	for i, it := range items {
		out[i] = PropFirmGlance{AccountID: it.AccountID, Name: it.Name, Currency: it.Currency, Phase: it.Phase,
			WarnAtPercent: it.Plan.WarnAtPercent, Result: it.Status.Result, Breach: it.Status.Breach, DailyLoss: it.Status.DailyLoss}
	}
	httpx.JSON(w, http.StatusOK, map[string]any{"items": out, "notice": propfirm.Notice})
}

// propFirmTemplates answers the example plans.
func (h handler) propFirmTemplates(w http.ResponseWriter, r *http.Request) {
	httpx.JSON(w, http.StatusOK, map[string]any{"items": propfirm.Templates(), "notice": propfirm.Notice})
}

// statuses evaluates the plans of the user's accounts (only accountID's
// when given) over their trades, read in one snapshot.
func statuses(ctx context.Context, pool db.TxBeginner, userID string, accountID *string, now time.Time) ([]PropFirmStatus, error) {
	out := []PropFirmStatus{}
	err := db.InSnapshot(ctx, pool, func(tx pgx.Tx) error {
		const plans = `SELECT a.id::text, a.name, a.currency::text, p.phase, p.plan FROM prop_firm_plans p JOIN accounts a ON a.id = p.account_id
			WHERE p.user_id = $1 AND ($2::uuid IS NULL OR p.account_id = $2) ORDER BY lower(a.name), a.id`
		rows, err := tx.Query(ctx, plans, userID, accountID)
		if err != nil {
			return db.Classify(err)
		}
		var (
			item PropFirmStatus
			raw  []byte
		)
		_, err = pgx.ForEachRow(rows, []any{&item.AccountID, &item.Name, &item.Currency, &item.Phase, &raw}, func() error {
			plan, err := propfirm.Parse(raw)
			item.Plan = plan
			out = append(out, item)
			return err
		})
		if err != nil {
			return db.Classify(err)
		}
		if len(out) == 0 {
			return nil
		}
		trades, err := propFirmTrades(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		for i := range out {
			if out[i].Status, err = propfirm.Evaluate(out[i].Plan, trades[out[i].AccountID], now); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// propFirmTradesSQL is the positions with an entry of the user's accounts
// with a plan (only $2's when given), with their account: the entry
// fills' times, the close, what the entries opened, the net P&L and what
// the recorded excursions need (journal.Review prices them).
const propFirmTradesSQL = `SELECT p.account_id::text, p.id::text, p.side, p.asset_type, p.multiplier::numeric, p.closed_at, p.entry_quantity, p.net_pnl,
	p.avg_entry_price, p.mae_price, p.mfe_price,
	array(SELECT f.filled_at FROM fills f WHERE f.position_id = p.id AND f.type = 'entry' ORDER BY f.filled_at, f.id),
	` + journalstore.FirstEntryRate + `
FROM positions p JOIN prop_firm_plans pf ON pf.account_id = p.account_id
WHERE pf.user_id = $1 AND ($2::uuid IS NULL OR pf.account_id = $2) AND p.status <> 'draft'`

// propFirmTrades reads the trades of the user's accounts with a plan
// (only accountID's when given) in one query, by account. A closed
// position's excursions are priced as the position page prices them
// (journal.Review: price move x entry quantity x multiplier).
func propFirmTrades(ctx context.Context, q db.Querier, userID string, accountID *string) (map[string][]propfirm.Trade, error) {
	rows, err := q.Query(ctx, propFirmTradesSQL, userID, accountID)
	if err != nil {
		return nil, db.Classify(err)
	}
	var (
		out             = map[string][]propfirm.Trade{}
		account         string
		t               propfirm.Trade
		side, asset     string
		firstRate       *decimal.Decimal
		mult, qty, net  decimal.Decimal
		closedAt        *time.Time
		entry, mae, mfe *decimal.Decimal
		entries         []time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&account, &t.PositionID, &side, &asset, &mult, &closedAt, &qty, &net, &entry, &mae, &mfe, &entries, &firstRate}, func() error {
		tr := propfirm.Trade{PositionID: t.PositionID, Entries: entries, ClosedAt: closedAt, Quantity: qty, Net: net}
		if closedAt != nil {
			fig := journal.Figures{Status: journal.StatusClosed, ClosedAt: closedAt, EntryQuantity: qty, AvgEntryPrice: entry, FirstRate: firstRate}
			rev := journal.Review(journal.Trade{Side: side, Multiplier: mult, Quoted: instrument.QuotedApart(asset)}, fig, nil, mae, mfe, *closedAt)
			if rev.MAE != nil {
				tr.MAE = &rev.MAE.Amount
			}
			if rev.MFE != nil {
				tr.MFE = &rev.MFE.Amount
			}
		}
		out[account] = append(out[account], tr)
		entries, closedAt, entry, mae, mfe = nil, nil, nil, nil, nil
		return nil
	})
	return out, db.Classify(err)
}
