package journalstore

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
)

// MaxStrategyLegs bounds a strategy's positions: four legs of a condor and
// the rolls of a few months.
const MaxStrategyLegs = 24

// StrategyInput is the body of POST and PATCH /api/strategies: absent
// fields keep their value on a PATCH; positionIds replaces the legs.
type StrategyInput struct {
	AccountID   *string       `json:"accountId"`
	Name        *string       `json:"name"`
	PlannedRisk journal.Field `json:"plannedRisk,omitzero"`
	PositionIDs []string      `json:"positionIds"`
	// Legs are new positions to record and make legs, in the same
	// transaction (the strategy builder's "record this trade"); create only.
	Legs []NewPosition `json:"legs"`
}

// Strategy is a multi-leg position as the API shows it: the legs (each a
// position of its own) and what the strategy engine makes of them.
type Strategy struct {
	ID          string  `json:"id"`
	AccountID   string  `json:"accountId"`
	Name        string  `json:"name"`
	PlannedRisk *string `json:"plannedRisk"`
	Underlying  *string `json:"underlying"`
	// Kind is the engine's name of the structure (iron-condor, vertical,
	// ..., custom) and Label the trader's words for it ("Short iron
	// condor"); the structure is the legs open now, or for a closed
	// strategy those it opened with (in its first minute).
	Kind  *string `json:"kind"`
	Label *string `json:"label"`
	// Status: draft while no leg has a fill, open while one is open,
	// closed when every leg is.
	Status   string     `json:"status"`
	OpenedAt *time.Time `json:"openedAt"`
	ClosedAt *time.Time `json:"closedAt"`
	GrossPnl string     `json:"grossPnl"`
	Fees     string     `json:"fees"`
	NetPnl   string     `json:"netPnl"`
	// RMultiple is the net P&L over the planned risk (or the max loss when
	// none is set and it is defined), once closed.
	RMultiple *string `json:"rMultiple"`
	// NetDebit, MaxProfit, MaxLoss and Breakevens are the structure's at
	// expiry (null max: unlimited, or NoPayoff says why there is none);
	// Payoff is its P&L at expiry at each breakpoint.
	NetDebit   *string       `json:"netDebit"`
	MaxProfit  *string       `json:"maxProfit"`
	MaxLoss    *string       `json:"maxLoss"`
	Breakevens []string      `json:"breakevens"`
	Payoff     []PayoffPoint `json:"payoff"`
	NoPayoff   *string       `json:"noPayoff"`
	Legs       []Summary     `json:"legs"`
	CreatedAt  time.Time     `json:"createdAt"`
	UpdatedAt  time.Time     `json:"updatedAt"`
}

// PayoffPoint is the strategy's P&L at expiry with the underlying at Price.
type PayoffPoint struct {
	Price string `json:"price"`
	Value string `json:"value"`
}

// CreateStrategy groups positions of one account and underlying into a
// strategy.
func (s *Store) CreateStrategy(ctx context.Context, userID string, in StrategyInput) (Strategy, error) {
	var p journal.Problems
	if in.AccountID == nil {
		p.Add("accountId", "is required")
	} else if !db.ValidUUID(*in.AccountID) {
		p.Add("accountId", "is not one of your accounts")
	}
	name, risk := strategyFields(&p, in)
	if in.PositionIDs == nil && in.Legs == nil {
		p.Add("positionIds", "is required: the positions that are the strategy's legs")
	}
	if len(in.Legs) > MaxStrategyLegs {
		p.Add("legs", "must hold at most "+strconv.Itoa(MaxStrategyLegs)+" legs")
	}
	if err := p.Err(); err != nil {
		return Strategy{}, err
	}
	runs := make([]*run, len(in.Legs))
	for i, leg := range in.Legs {
		if leg.AccountID == nil {
			leg.AccountID = in.AccountID
		}
		ru, err := s.newRun(userID, leg)
		if e, ok := apperr.As(err); ok && e.Code == apperr.Validation {
			for k := range e.Details {
				e.Details[k].Field = "legs[" + strconv.Itoa(i) + "]." + e.Details[k].Field
			}
			return Strategy{}, e
		}
		if err != nil {
			return Strategy{}, err
		}
		runs[i] = ru
	}
	var id string
	err := s.write(ctx, userID, func(w *writeTx) error {
		err := w.QueryRow(ctx, `INSERT INTO strategies (user_id, account_id, name, planned_risk)
			SELECT $1, a.id, $3, $4 FROM accounts a WHERE a.id = $2 AND a.user_id = $1 RETURNING id::text`,
			userID, *in.AccountID, deref(name), risk).Scan(&id)
		if err == pgx.ErrNoRows {
			return apperr.Invalid("accountId", "is not one of your accounts")
		}
		if err != nil {
			return classify(err)
		}
		ids := slices.Clone(in.PositionIDs)
		if len(runs) > 0 {
			b := w.batch()
			if _, err := s.createRuns(ctx, w, b, runs); err != nil {
				return err
			}
			if err := b.flush(ctx); err != nil {
				return err
			}
			for _, ru := range runs {
				ids = append(ids, ru.placed[0].id)
			}
		}
		return setLegs(ctx, w, id, *in.AccountID, ids)
	})
	if err != nil {
		return Strategy{}, err
	}
	return s.Strategy(ctx, userID, id)
}

// UpdateStrategy renames a strategy, sets or clears its planned risk
// (plannedRisk null), or replaces its legs (a roll: the new leg added, the
// closed one kept or taken out). The account does not change.
func (s *Store) UpdateStrategy(ctx context.Context, userID, id string, in StrategyInput) (Strategy, error) {
	if !db.ValidUUID(id) {
		return Strategy{}, apperr.ErrNotFound
	}
	var p journal.Problems
	if in.AccountID != nil {
		p.Add("accountId", "cannot change: a strategy's legs are positions of its account")
	}
	if in.Legs != nil {
		p.Add("legs", "are recorded only with a new strategy: record the position, then list it in positionIds")
	}
	name, risk := strategyFields(&p, in)
	if err := p.Err(); err != nil {
		return Strategy{}, err
	}
	err := s.write(ctx, userID, func(w *writeTx) error {
		var account string
		err := w.QueryRow(ctx, `UPDATE strategies SET name = coalesce($3, name),
				planned_risk = CASE WHEN $4 THEN $5 ELSE planned_risk END, updated_at = now()
			WHERE id = $1 AND user_id = $2 RETURNING account_id::text`,
			id, userID, name, in.PlannedRisk.Set, risk).Scan(&account)
		if err == pgx.ErrNoRows {
			return apperr.ErrNotFound
		}
		if err != nil {
			return classify(err)
		}
		w.touchStrategy(id, account) // a new planned risk is a new R
		if in.PositionIDs != nil {
			return setLegs(ctx, w, id, account, in.PositionIDs)
		}
		return nil
	})
	if err != nil {
		return Strategy{}, err
	}
	return s.Strategy(ctx, userID, id)
}

// DeleteStrategy ungroups a strategy: its legs stay, as positions of their
// own, each a trade in the statistics again.
func (s *Store) DeleteStrategy(ctx context.Context, userID, id string) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	return s.write(ctx, userID, func(w *writeTx) error {
		// Its legs first (they leave it: their rows and its record change).
		if _, err := w.lockPositions(ctx, `p.strategy_id = $2`, id); err != nil {
			return err
		}
		tag, err := w.Exec(ctx, `DELETE FROM strategies WHERE id = $1 AND user_id = $2`, id, userID)
		if err != nil {
			return classify(err)
		}
		if tag.RowsAffected() == 0 {
			return apperr.ErrNotFound
		}
		return nil
	})
}

func strategyFields(p *journal.Problems, in StrategyInput) (name *string, risk *decimal.Decimal) {
	if in.Name != nil {
		if n := []rune(*in.Name); len(n) > 100 {
			p.Add("name", "must be at most 100 characters")
		}
		name = in.Name
	}
	if d, ok := p.Decimal("plannedRisk", in.PlannedRisk, journal.AmountRule); ok {
		risk = &d
	}
	return name, risk
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// setLegs makes ids the strategy's legs: each one of the user's positions
// in the strategy's account, options on one underlying or its shares, and
// in no other strategy. The rows are claimed in one UPDATE whose condition
// is the check, so two requests cannot put a position in two strategies.
func setLegs(ctx context.Context, w *writeTx, strategyID, accountID string, ids []string) error {
	var p journal.Problems
	if len(ids) == 0 || len(ids) > MaxStrategyLegs {
		p.Add("positionIds", "must hold 1 to "+strconv.Itoa(MaxStrategyLegs)+" positions")
	}
	seen := map[string]bool{}
	for i, id := range ids {
		field := "positionIds[" + strconv.Itoa(i) + "]"
		switch {
		case !db.ValidUUID(id):
			p.Add(field, "is not one of your positions")
		case seen[id]:
			p.Add(field, "is listed twice")
		}
		seen[id] = true
	}
	if err := p.Err(); err != nil {
		return err
	}
	// The legs it has and those it takes, locked (their rows change).
	if _, err := w.lockPositions(ctx, `p.strategy_id = $2 OR p.id = ANY($3::uuid[])`, strategyID, ids); err != nil {
		return err
	}
	rows, err := w.Query(ctx, `SELECT id::text, account_id::text, asset_type, coalesce(underlying, symbol), strategy_id::text
		FROM positions WHERE id = ANY($1::uuid[]) AND user_id = $2`, ids, w.userID)
	if err != nil {
		return classify(err)
	}
	type leg struct{ account, asset, underlying string }
	found := map[string]leg{}
	var id, account, asset, underlying string
	var other *string
	if _, err := pgx.ForEachRow(rows, []any{&id, &account, &asset, &underlying, &other}, func() error {
		found[id] = leg{account, asset, underlying}
		if other != nil && *other != strategyID {
			p.Add("positionIds["+strconv.Itoa(slices.Index(ids, id))+"]", "is already a leg of another strategy: take it out there first")
		}
		return nil
	}); err != nil {
		return classify(err)
	}
	var root string
	onFuture := false // the legs are futures options
	for i, id := range ids {
		field := "positionIds[" + strconv.Itoa(i) + "]"
		l, ok := found[id]
		switch {
		case !ok:
			p.Add(field, "is not one of your positions")
		case l.account != accountID:
			p.Add(field, "is in another account: a strategy's legs are in one account")
		case l.asset == instrument.AssetFuture:
			p.Add(field, "is a future: a strategy holds options and their underlying's shares")
		case root == "":
			root, onFuture = l.underlying, l.asset == instrument.AssetFutureOption
		case onFuture != (l.asset == instrument.AssetFutureOption):
			p.Add(field, "mixes options on futures with options or shares on "+root+": a strategy's legs share one underlying")
		case l.underlying != root:
			p.Add(field, "is on "+l.underlying+", not "+root+": a strategy's legs share one underlying")
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	if _, err := w.Exec(ctx, `UPDATE positions SET strategy_id = NULL WHERE strategy_id = $1 AND NOT (id = ANY($2::uuid[]))`, strategyID, ids); err != nil {
		return classify(err)
	}
	_, err = w.Exec(ctx, `UPDATE positions SET strategy_id = $1 WHERE id = ANY($2::uuid[]) AND user_id = $3`, strategyID, ids, w.userID)
	return classify(err)
}

// Strategy reads one of the user's strategies with its legs.
func (s *Store) Strategy(ctx context.Context, userID, id string) (Strategy, error) {
	if !db.ValidUUID(id) {
		return Strategy{}, apperr.ErrNotFound
	}
	list, err := s.strategies(ctx, `s.id = $1 AND s.user_id = $2`, id, userID)
	if err != nil {
		return Strategy{}, err
	}
	if len(list) == 0 {
		return Strategy{}, apperr.ErrNotFound
	}
	return list[0], nil
}

// Strategies lists the user's strategies newest first, limit a page, after
// the strategy with id after ("" for the first page).
func (s *Store) Strategies(ctx context.Context, userID, after string, limit int) ([]Strategy, error) {
	if after == "" {
		return s.strategies(ctx, `s.user_id = $1 ORDER BY s.created_at DESC, s.id DESC LIMIT $2`, userID, limit)
	}
	if !db.ValidUUID(after) {
		return nil, apperr.Invalid("cursor", "is not a cursor this list gave")
	}
	return s.strategies(ctx, `s.user_id = $1 AND (s.created_at, s.id) < (SELECT created_at, id FROM strategies WHERE id = $3 AND user_id = $1)
		ORDER BY s.created_at DESC, s.id DESC LIMIT $2`, userID, limit, after)
}

// strategies reads the strategies a condition picks, then their legs and
// the legs' tags in two more queries, and computes each one's figures.
func (s *Store) strategies(ctx context.Context, where string, args ...any) ([]Strategy, error) {
	rows, err := s.pool.Query(ctx, `SELECT s.id::text, s.account_id::text, s.name, s.planned_risk::text, s.created_at, s.updated_at
		FROM strategies s WHERE `+where, args...)
	if err != nil {
		return nil, classify(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Strategy, error) {
		var st Strategy
		return st, r.Scan(&st.ID, &st.AccountID, &st.Name, &st.PlannedRisk, &st.CreatedAt, &st.UpdatedAt)
	})
	if err != nil || len(out) == 0 {
		return out, classify(err)
	}
	ids := make([]string, len(out))
	at := map[string]int{}
	for i, st := range out {
		ids[i], at[st.ID] = st.ID, i
	}
	rows, err = s.pool.Query(ctx, `SELECT `+SummaryColumns+` FROM positions p
		WHERE p.strategy_id = ANY($1::uuid[]) ORDER BY p.opened_at NULLS LAST, p.id`, ids)
	if err != nil {
		return nil, classify(err)
	}
	var leg Summary
	var legIDs []string
	if _, err := pgx.ForEachRow(rows, ScanSummary(&leg), func() error {
		st := &out[at[*leg.StrategyID]]
		leg.SetAwaitingExpiry(s.now())
		st.Legs = append(st.Legs, leg)
		legIDs = append(legIDs, leg.ID)
		return nil
	}); err != nil {
		return nil, classify(err)
	}
	tags, err := TagsOf(ctx, s.pool, legIDs)
	if err != nil {
		return nil, err
	}
	for i := range out {
		for k := range out[i].Legs {
			out[i].Legs[k].Tags = tags[out[i].Legs[k].ID]
			if out[i].Legs[k].Tags == nil {
				out[i].Legs[k].Tags = []journal.Tag{}
			}
		}
		out[i].figures()
	}
	return out, nil
}

// figures derives what a strategy's legs make (journal.OutcomeOf): status,
// times, P&L sums, and the engine's analysis of its structure, with R
// against the planned risk (or the defined max loss).
func (st *Strategy) figures() {
	st.Breakevens, st.Payoff = []string{}, []PayoffPoint{}
	if st.Legs == nil {
		st.Legs = []Summary{}
	}
	legs := make([]journal.StrategyPosition, len(st.Legs))
	for i, l := range st.Legs {
		legs[i] = strategyPosition(l)
		if st.Underlying == nil {
			u := l.Symbol
			if l.Underlying != nil {
				u = *l.Underlying
			}
			st.Underlying = &u
		}
	}
	var risk *decimal.Decimal
	if st.PlannedRisk != nil {
		r := decimal.RequireFromString(*st.PlannedRisk)
		risk = &r
	}
	o := journal.OutcomeOf(legs, risk)
	st.Status, st.OpenedAt, st.ClosedAt = o.Status, o.OpenedAt, o.ClosedAt
	st.GrossPnl, st.Fees, st.NetPnl = money.RoundN(o.Gross, 4), money.RoundN(o.Fees, 4), money.RoundN(o.Net, 4)
	if o.R != nil {
		r := money.RoundN(*o.R, 4)
		st.RMultiple = &r
	}
	a := o.Analysis
	if a == nil {
		return
	}
	kind, debit := string(a.Name), money.RoundN(a.NetDebit, 4)
	st.Kind, st.Label, st.NetDebit = &kind, &a.Label, &debit
	st.MaxProfit, st.MaxLoss = amount(a.MaxProfit), amount(a.MaxLoss)
	if a.NoPayoff != "" {
		st.NoPayoff = &a.NoPayoff
	}
	for _, b := range a.Breakevens {
		st.Breakevens = append(st.Breakevens, b.String())
	}
	if a.Payoff != nil {
		for _, pt := range a.Payoff.Points {
			st.Payoff = append(st.Payoff, PayoffPoint{Price: pt.Price.String(), Value: money.RoundN(pt.Value, 4)})
		}
	}
}

// strategyPosition is a leg as journal.OutcomeOf reads it.
func strategyPosition(l Summary) journal.StrategyPosition {
	p := journal.StrategyPosition{Side: l.Side, EntryQuantity: decimal.RequireFromString(l.EntryQuantity),
		OpenQuantity: decimal.RequireFromString(l.OpenQuantity), Multiplier: decimal.RequireFromString(l.Multiplier.String()),
		LegTotals: journal.LegTotals{Status: l.Status, OpenedAt: l.OpenedAt, ClosedAt: l.ClosedAt,
			Gross: decimal.RequireFromString(l.GrossPnl), Fees: decimal.RequireFromString(l.Fees), Net: decimal.RequireFromString(l.NetPnl)}}
	if l.AvgEntryPrice != nil {
		v := decimal.RequireFromString(*l.AvgEntryPrice)
		p.AvgEntryPrice = &v
	}
	if instrument.Expires(l.AssetType) {
		expiry, err := time.Parse(time.DateOnly, deref(l.OptionExpiry))
		strike, err2 := decimal.NewFromString(deref(l.OptionStrike))
		if err != nil || err2 != nil || l.OptionRight == nil {
			p.Unread = true
		} else {
			p.Option = &instrument.Option{Underlying: deref(l.Underlying), Expiry: expiry, Right: *l.OptionRight, Strike: strike}
		}
	}
	return p
}
