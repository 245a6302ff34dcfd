package journalstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// AssignmentInput is the body of POST /api/positions/{id}/assignment: how
// many contracts were exercised or assigned (all that are open when left
// out) and when (the expiry moment when left out, or now before it).
type AssignmentInput struct {
	Quantity journal.Field `json:"quantity,omitzero"`
	FilledAt *string       `json:"filledAt"`
}

// Assigned is the answer: the option as it is now and the position in the
// underlying the shares went into or came out of.
type Assigned struct {
	Position   Position `json:"position"`
	Underlying Position `json:"underlying"`
}

// Assign records the exercise (a long option) or assignment (a short one)
// of an open option: the contracts leave the option position by an exit at
// 0, and the shares change hands at the strike in the account's position of
// the underlying (a call bought or a put sold takes the shares in; a put
// bought or a call sold delivers them), all in one transaction through the
// import's planning, so the shares continue, close or reverse what the
// account holds in the underlying like any trade (a covered call's shares
// are called away). A futures option goes into its future the same way:
// one contract of the future a contract, at the strike, in the account's
// position of that contract month. The option's premium stays in the
// option's P&L. No fee is charged: a broker's assignment fee is added to a
// fill by hand.
func (s *Store) Assign(ctx context.Context, userID, positionID string, in AssignmentInput) (Assigned, error) {
	opt, err := s.Position(ctx, userID, positionID)
	if err != nil {
		return Assigned{}, err
	}
	if !instrument.Expires(opt.AssetType) || opt.OptionStrike == nil || opt.OptionExpiry == nil || opt.Underlying == nil {
		return Assigned{}, apperr.New(apperr.Conflict, "only an option is exercised or assigned; this position is a %s", opt.AssetType)
	}
	expired, err := s.expiryExit(ctx, userID, opt)
	if err != nil {
		return Assigned{}, err
	}
	if expired != "" {
		// Closed at 0 by ExpireDue while it was in fact assigned: that
		// exit goes first (should the rest fail, the next run of the
		// option-expiry job expires the option again, so nothing is lost).
		if _, err := s.DeleteFill(ctx, userID, positionID, expired); err != nil {
			return Assigned{}, err
		}
		if opt, err = s.Position(ctx, userID, positionID); err != nil {
			return Assigned{}, err
		}
	}
	open := decimal.RequireFromString(opt.OpenQuantity)
	if opt.Status != journal.StatusOpen || !open.IsPositive() {
		return Assigned{}, apperr.New(apperr.Conflict, "this option has no open contracts to exercise or assign")
	}
	var p journal.Problems
	qty := open
	if q, ok := p.Decimal("quantity", in.Quantity, journal.QuantityRule); ok {
		switch {
		case !q.Equal(q.Truncate(0)):
			p.Add("quantity", "must be a whole number of contracts")
		case q.GreaterThan(open):
			p.Add("quantity", "must be at most the "+open.String()+" contracts open")
		default:
			qty = q
		}
	}
	expiry, _ := time.Parse(time.DateOnly, *opt.OptionExpiry)
	now := s.now()
	at := ExpiryMoment(expiry).UTC()
	if now.Before(at) {
		at = now.UTC().Truncate(time.Microsecond) // exercised early
	}
	if in.FilledAt != nil {
		if t, err := journal.ParseTime("filledAt", *in.FilledAt, now); err != nil {
			p.Merge(err)
		} else {
			at = t
		}
	}
	if opt.OpenedAt != nil && at.Before(*opt.OpenedAt) {
		p.Add("filledAt", "must not be before the option was opened")
	}
	if err := p.Err(); err != nil {
		return Assigned{}, err
	}

	mult := decimal.RequireFromString(opt.Multiplier.String())
	takesShares := (*opt.OptionRight == "C") == (opt.Side == journal.SideLong)
	closeSide, shareSide := brokerfile.Sell, brokerfile.Sell
	if opt.Side == journal.SideShort {
		closeSide = brokerfile.Buy
	}
	if takesShares {
		shareSide = brokerfile.Buy
	}
	// The underlying: shares, multiplier per contract; or a futures
	// option's future, one a contract at the future's point value.
	under := brokerfile.Fill{Row: 2, Symbol: *opt.Underlying, AssetType: instrument.AssetStock, Multiplier: decimal.NewFromInt(1),
		Side: shareSide, Price: decimal.RequireFromString(*opt.OptionStrike), Quantity: qty.Mul(mult), FeesGiven: true, FilledAt: at}
	if opt.AssetType == instrument.AssetFutureOption {
		fut, err := underlyingFuture(opt)
		if err != nil {
			return Assigned{}, err
		}
		under.Symbol, under.AssetType, under.Multiplier, under.Quantity = fut, instrument.AssetFuture, mult, qty
	}
	fills := []brokerfile.Fill{
		{Row: 1, Symbol: opt.Symbol, AssetType: opt.AssetType, Multiplier: mult, Side: closeSide, Effect: brokerfile.EffectClose,
			Price: decimal.Zero, Quantity: qty, FeesGiven: true, FilledAt: at},
		under,
	}
	before := decimal.RequireFromString(opt.ExitQuantity)
	// The option's own exit must land on this position (not open a new one
	// because it closed meanwhile): checked inside the transaction.
	landed := func(ctx context.Context, tx pgx.Tx) error {
		var exited decimal.Decimal
		if err := tx.QueryRow(ctx, `SELECT exit_quantity FROM positions WHERE id = $1`, positionID).Scan(&exited); err != nil {
			return classify(err)
		}
		if !exited.Equal(before.Add(qty)) {
			return apperr.New(apperr.Conflict, "the option changed meanwhile; reload it and try again")
		}
		return nil
	}
	done, err := s.Import(ctx, userID, opt.AccountID, fills, brokerfile.BuildOptions{ConfirmDuplicates: true}, landed)
	var planErr *PlanError
	if errors.As(err, &planErr) {
		msg := "the shares do not fit the account's position in " + under.Symbol
		if len(planErr.Problems) > 0 {
			msg += ": " + planErr.Problems[0].Message
		}
		return Assigned{}, apperr.New(apperr.Conflict, "%s", msg)
	}
	if err != nil {
		return Assigned{}, err
	}
	var out Assigned
	if out.Position, err = s.Position(ctx, userID, positionID); err != nil {
		return Assigned{}, err
	}
	// The shares' position: the last one the import wrote that is not the option.
	ids := slices.DeleteFunc(append(slices.Clone(done.Continued), done.Created...), func(id string) bool { return id == positionID })
	if len(ids) == 0 {
		return Assigned{}, errors.New("journalstore: an assignment wrote no position of the underlying")
	}
	out.Underlying, err = s.Position(ctx, userID, ids[len(ids)-1])
	return out, err
}

// expiryExit returns the id of the exit ExpireDue wrote on a closed
// option, or "": its last fill, an exit at 0 with no fee at the expiry
// moment, with no trade of the underlying's shares in the account at that
// instant (which an assignment recorded here always writes).
func (s *Store) expiryExit(ctx context.Context, userID string, p Position) (string, error) {
	if p.Status != journal.StatusClosed || p.OptionExpiry == nil || p.Underlying == nil || len(p.Fills) == 0 {
		return "", nil
	}
	last := p.Fills[len(p.Fills)-1]
	expiry, err := time.Parse(time.DateOnly, *p.OptionExpiry)
	if err != nil || last.Type != journal.FillExit || !last.FilledAt.Equal(ExpiryMoment(expiry)) ||
		!decimal.RequireFromString(last.Price).IsZero() || !decimal.RequireFromString(last.Fees).IsZero() {
		return "", nil
	}
	symbol, asset := *p.Underlying, instrument.AssetStock
	if p.AssetType == instrument.AssetFutureOption {
		if symbol, err = underlyingFuture(p); err != nil {
			return "", err
		}
		asset = instrument.AssetFuture
	}
	var assigned bool
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM fills f JOIN positions p ON p.id = f.position_id
		WHERE p.user_id = $1 AND p.account_id = $2 AND p.symbol = $3 AND p.asset_type = $5 AND f.filled_at = $4)`,
		userID, p.AccountID, symbol, last.FilledAt, asset).Scan(&assigned)
	if err != nil || assigned {
		return "", classify(err)
	}
	return last.ID, nil
}

// underlyingFuture is a futures option position's future, as its contract
// symbol ("ESZ24").
func underlyingFuture(p Position) (string, error) {
	at := p.CreatedAt
	if p.OpenedAt != nil {
		at = *p.OpenedAt
	}
	in, err := instrument.Parse(instrument.AssetFutureOption, p.Symbol, at)
	if err != nil || in.Contract() == nil {
		return "", fmt.Errorf("journalstore: stored futures option %q: %w", p.Symbol, err)
	}
	return in.Contract().Symbol(), nil
}
