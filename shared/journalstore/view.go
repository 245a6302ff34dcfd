package journalstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
)

// Summary is a position as the list shows it: everything but the notes and
// the fills. Prices and quantities are decimal strings as exact as stored
// (no trailing zeros); money figures (P&L, fees, initial risk) and the R
// multiple are 4-place strings. Derived figures are computed from the fills,
// never typed in.
type Summary struct {
	ID           string  `json:"id"`
	AccountID    string  `json:"accountId"`
	Symbol       string  `json:"symbol"`
	AssetType    string  `json:"assetType"`
	Underlying   *string `json:"underlying"`
	OptionExpiry *string `json:"optionExpiry"`
	OptionRight  *string `json:"optionRight"`
	OptionStrike *string `json:"optionStrike"`
	// ContractMonth is a future's contract month, "2024-12"; underlying
	// holds its root.
	ContractMonth *string `json:"contractMonth"`
	// Multiplier is a JSON number: 1 for stock, 100 for options, a
	// future's point value (0.5 for MYM). P&L is (exit - entry) x quantity
	// x multiplier.
	Multiplier  json.Number `json:"multiplier"`
	Side        string      `json:"side"`
	Status      string      `json:"status"`
	StopLoss    *string     `json:"stopLoss"`
	TargetPrice *string     `json:"targetPrice"`

	OpenedAt      *time.Time `json:"openedAt"`
	ClosedAt      *time.Time `json:"closedAt"`
	EntryQuantity string     `json:"entryQuantity"`
	ExitQuantity  string     `json:"exitQuantity"`
	OpenQuantity  string     `json:"openQuantity"`
	AvgEntryPrice *string    `json:"avgEntryPrice"`
	AvgExitPrice  *string    `json:"avgExitPrice"`
	GrossPnl      string     `json:"grossPnl"`
	Fees          string     `json:"fees"`
	NetPnl        string     `json:"netPnl"`
	InitialRisk   *string    `json:"initialRisk"`
	RMultiple     *string    `json:"rMultiple"`

	// BaseCurrency and QuoteCurrency are a pair's ("EUR", "USD" of
	// EUR/USD) and a CFD's currency when it is not the account's; null
	// else. A quoted position's prices and QuoteGrossPnl are in
	// QuoteCurrency; grossPnl, fees and netPnl are in the account's
	// currency, each exit converted at its fill's rate.
	BaseCurrency  *string `json:"baseCurrency"`
	QuoteCurrency *string `json:"quoteCurrency"`
	QuoteGrossPnl *string `json:"quoteGrossPnl"`
	// AwaitingRate says an exit has no rate of the quote currency into the
	// account's yet: the account-currency figures leave it out, and the
	// statistics leave the position out, until the trader stores a rate
	// (Exchange rates) or gives one on the fill. RateNeeded names the pair
	// ("GBP/USD": 1 GBP in USD).
	AwaitingRate bool    `json:"awaitingRate"`
	RateNeeded   *string `json:"rateNeeded"`

	// ReversalOf is the position this one continues: the one whose
	// reversal opened it (null for a position opened on its own).
	ReversalOf *string `json:"reversalOf"`
	// StrategyID is the strategy this position is a leg of, or null.
	StrategyID *string `json:"strategyId"`

	Tags      []journal.Tag `json:"tags"`
	CreatedAt time.Time     `json:"createdAt"`
	UpdatedAt time.Time     `json:"updatedAt"`

	// AwaitingExpiry says that the position is an open option past its
	// expiry day that the option-expiry job closes at its next run
	// (ExpireDue): a read shows the journal as it is and never writes, so
	// until then the option is open, and says why. Set by SetAwaitingExpiry.
	AwaitingExpiry bool `json:"awaitingExpiry"`
	// lastFill is the latest fill's time of an open option (nil otherwise),
	// what SetAwaitingExpiry needs besides the expiry.
	lastFill *time.Time
}

// SetAwaitingExpiry sets AwaitingExpiry as of now (the store's clock): a
// read-time figure, like a hold time.
func (s *Summary) SetAwaitingExpiry(now time.Time) {
	s.AwaitingExpiry = false
	if s.Status != journal.StatusOpen || !instrument.Expires(s.AssetType) || s.OptionExpiry == nil || s.lastFill == nil {
		return
	}
	expiry, err := time.Parse(time.DateOnly, *s.OptionExpiry)
	s.AwaitingExpiry = err == nil && dueForExpiry(expiry, *s.lastFill, now)
}

// Position is one position in full: the summary, the notes, the fills in
// time order and the number of images.
type Position struct {
	Summary
	Notes      string `json:"notes"`
	Fills      []Fill `json:"fills"`
	ImageCount int    `json:"imageCount"`
	// ReversedInto is the position this one's reversal opened (the next of
	// its run), null when there is none.
	ReversedInto *string `json:"reversedInto"`
	// MaePrice and MfePrice are the maximum adverse and favourable
	// excursions the trader entered (or took from the price bars).
	MaePrice *string `json:"maePrice"`
	MfePrice *string `json:"mfePrice"`
	// Measured is what price bars said of the closed position (the
	// excursions job, or its bars looked up), null until measured to its
	// current close.
	Measured *MeasuredView `json:"measured"`
	Review   Review        `json:"review"`

	trade   journal.Trade   // what the figures are computed from
	figures journal.Figures // nil-valued when the stored fills do not compute
}

// Review is the review figures of a position (journal.Review): the hold in
// seconds (to now while open), the planned reward:risk (2 places) and the
// MAE and MFE as price, money (4 places) and R (2 places).
type Review struct {
	HoldSeconds *int64         `json:"holdSeconds"`
	PlannedRR   *string        `json:"plannedRR"`
	MAE         *ExcursionView `json:"mae"`
	MFE         *ExcursionView `json:"mfe"`
}

// ExcursionView is a journal.Excursion as the API shows it, with where
// its price came from: "typed" (the trader's, which wins) or the measured
// bars' source.
type ExcursionView struct {
	Price  string  `json:"price"`
	Amount string  `json:"amount"`
	R      *string `json:"r"`
	Source string  `json:"source"`
}

// MeasuredView is a closed position's excursions measured from price
// bars: the prices (null without bars), which of the stop and target the
// price reached first ("target", "stop", "none"; null without bars), the
// bars' source (a provider's name or "uploaded"; null: no bars were
// found) and when.
type MeasuredView struct {
	MaePrice   *string   `json:"maePrice"`
	MfePrice   *string   `json:"mfePrice"`
	FirstHit   *string   `json:"firstHit"`
	Source     *string   `json:"source"`
	MeasuredAt time.Time `json:"measuredAt"`
}

// Unrealized is the P&L of what is open at price (journal.Unrealized); ok
// is false when nothing is open.
func (p Position) Unrealized(price decimal.Decimal) (string, bool) {
	pnl, ok := journal.Unrealized(p.trade, p.figures, price)
	return money.RoundN(pnl, 4), ok
}

// review formats journal.Review's figures; maeSource and mfeSource say
// where each excursion's price came from.
func review(r journal.ReviewFigures, maeSource, mfeSource string) Review {
	var out Review
	if r.Hold != nil {
		s := int64(r.Hold.Seconds())
		out.HoldSeconds = &s
	}
	if r.PlannedRR != nil {
		s := money.RoundN(*r.PlannedRR, 2)
		out.PlannedRR = &s
	}
	view := func(e *journal.Excursion, source string) *ExcursionView {
		if e == nil {
			return nil
		}
		v := &ExcursionView{Price: e.Price.String(), Amount: money.RoundN(e.Amount, 4), Source: source}
		if e.R != nil {
			s := money.RoundN(*e.R, 2)
			v.R = &s
		}
		return v
	}
	out.MAE, out.MFE = view(r.MAE, maeSource), view(r.MFE, mfeSource)
	return out
}

// SourceTyped is the source of an excursion the trader typed.
const SourceTyped = "typed"

// optionalDecimal parses a column read as text; nil stays nil.
func optionalDecimal(s *string) (*decimal.Decimal, error) {
	if s == nil {
		return nil, nil
	}
	d, err := decimal.NewFromString(*s)
	return &d, err
}

// Fill is a fill as the API shows it. realizedPnl is what an exit booked
// (4 places, average-cost method, x multiplier); null for entries.
type Fill struct {
	ID           string    `json:"id"`
	Type         string    `json:"type"`
	Price        string    `json:"price"`
	Quantity     string    `json:"quantity"`
	Fees         string    `json:"fees"`
	FeeEstimated bool      `json:"feeEstimated"`
	FilledAt     time.Time `json:"filledAt"`
	RealizedPnl  *string   `json:"realizedPnl"`
	// Rate is a forex, crypto or CFD fill's rate of the quote currency in
	// the account's (null when none is known yet, and for other assets);
	// RateGiven says the trader or the broker's file gave it, rather than
	// the journal finding it (1, 1/price, or a stored exchange rate).
	Rate      *string `json:"rate"`
	RateGiven bool    `json:"rateGiven"`
	// FeeAsset is the coin or currency fees is in when it is not the
	// account's (a crypto fee in BNB), fees then exact in it; null else.
	FeeAsset *string `json:"feeAsset"`
	// Reversal says which part of a reversal's fill this is: "closing" (the
	// quantity that was open) or "opening" (the remainder, which opened the
	// next position); null for a whole fill.
	Reversal *string `json:"reversal"`
	// TradeQuantity and TradeFees are, on a part of a reversal, the whole
	// trade's (both parts'): what an edit of either part changes.
	TradeQuantity *string `json:"tradeQuantity"`
	TradeFees     *string `json:"tradeFees"`
}

// Changes names the positions a write opened, closed, reopened or removed
// besides keeping the one it was asked to write: a reversal opens the
// opposite position, and editing a fill of a run derives it again.
type Changes struct {
	Opened   []string `json:"opened"`   // created by a reversal (or an opposite trade after a close)
	Closed   []string `json:"closed"`   // open or draft before, closed now
	Reopened []string `json:"reopened"` // closed before, open now
	Removed  []string `json:"removed"`  // no longer needed by the run: deleted with their notes, tags and images
}

// Result is the answer of a write to a position: the position as it is now
// (the one that holds the fill written, when a fill moved) and the changes.
type Result struct {
	Position Position `json:"position"`
	Changes  Changes  `json:"changes"`
}

// SummaryColumns select a Summary. Decimals come back as text formatted by
// PostgreSQL (trim_scale for prices and quantities; the 4-place scale of the
// money columns as is), which is exactly the API's form and costs far less
// than decoding NUMERIC into decimals and formatting them again: on a page
// of 50 it was most of the server time. Tags are read by TagsOf, for a
// whole page at once (a per-row JSON subquery costs 20 times the page query).
// The last column is an open option's (or futures option's) latest fill
// (one probe of fills_position_id_idx, for those only), for SetAwaitingExpiry.
const SummaryColumns = `p.id::text, p.account_id::text, p.symbol, p.asset_type, p.underlying,
	to_char(p.option_expiry, 'YYYY-MM-DD'), p.option_right, trim_scale(p.option_strike)::text,
	to_char(p.contract_month, 'YYYY-MM'), trim_scale(p.multiplier)::text,
	p.side, p.status, trim_scale(p.stop_loss)::text, trim_scale(p.target_price)::text,
	p.opened_at, p.closed_at, trim_scale(p.entry_quantity)::text, trim_scale(p.exit_quantity)::text,
	trim_scale(p.open_quantity)::text, trim_scale(p.avg_entry_price)::text, trim_scale(p.avg_exit_price)::text,
	p.gross_pnl::text, p.fees::text, p.net_pnl::text, p.initial_risk::text, p.r_multiple::text,
	p.reversal_of::text, p.strategy_id::text, p.created_at, p.updated_at,
	p.base_currency, p.quote_currency, p.quote_gross_pnl::text, p.awaiting_rate,
	CASE WHEN p.awaiting_rate THEN coalesce(
			(SELECT p.quote_currency FROM fills rf WHERE rf.position_id = p.id AND rf.type = 'exit' AND rf.rate IS NULL LIMIT 1),
			(SELECT rf.fee_asset FROM fills rf WHERE rf.position_id = p.id AND rf.fee_asset IS NOT NULL AND rf.fee_rate IS NULL LIMIT 1),
			p.quote_currency) || '/' || (SELECT a.currency FROM accounts a WHERE a.id = p.account_id) END,
	CASE WHEN p.status = 'open' AND p.asset_type IN ('option', 'future_option')
		THEN (SELECT max(lf.filled_at) FROM fills lf WHERE lf.position_id = p.id) END`

// ScanSummary returns the scan destinations of SummaryColumns (then extra).
func ScanSummary(s *Summary, extra ...any) []any {
	return append([]any{&s.ID, &s.AccountID, &s.Symbol, &s.AssetType, &s.Underlying,
		&s.OptionExpiry, &s.OptionRight, &s.OptionStrike, &s.ContractMonth, &s.Multiplier,
		&s.Side, &s.Status, &s.StopLoss, &s.TargetPrice,
		&s.OpenedAt, &s.ClosedAt, &s.EntryQuantity, &s.ExitQuantity,
		&s.OpenQuantity, &s.AvgEntryPrice, &s.AvgExitPrice,
		&s.GrossPnl, &s.Fees, &s.NetPnl, &s.InitialRisk, &s.RMultiple,
		&s.ReversalOf, &s.StrategyID, &s.CreatedAt, &s.UpdatedAt,
		&s.BaseCurrency, &s.QuoteCurrency, &s.QuoteGrossPnl, &s.AwaitingRate, &s.RateNeeded, &s.lastFill}, extra...)
}

// amount formats a money figure with 4 places; nil stays nil.
func amount(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := money.RoundN(*d, 4)
	return &s
}

// loadPosition queues the read of the user's position in full (the
// position, its fills and its tags) into b, read into p once b is sent: a
// malformed id is apperr.ErrNotFound at once, a missing or foreign one
// when b is sent. Inside a write it runs on the transaction, so the
// answer is what the transaction wrote.
func loadPosition(b *pgx.Batch, k *encrypt.Keyring, userID, id string, now time.Time, p *Position) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	const sql = `SELECT ` + SummaryColumns + `, p.notes,
			(SELECT count(*) FROM position_images i WHERE i.position_id = p.id),
			(SELECT n.id::text FROM positions n WHERE n.reversal_of = p.id),
			trim_scale(p.mae_price)::text, trim_scale(p.mfe_price)::text,
			p.bars_measured_at IS NOT NULL AND p.status = 'closed' AND p.bars_closed_at = p.closed_at,
			trim_scale(p.bars_mae_price)::text, trim_scale(p.bars_mfe_price)::text, p.bars_first_hit, p.bars_source, p.bars_measured_at
		FROM positions p WHERE p.id = $1 AND p.user_id = $2`
	// The fills and tags are read by the position's id alone: another
	// user's are never answered, since the position's read finds nothing.
	const fillsQ = `SELECT f.id::text, f.type, f.price, f.quantity, f.fees, f.fee_estimated, f.filled_at,
			CASE WHEN f.split_of IS NOT NULL THEN 'opening' WHEN o.id IS NOT NULL THEN 'closing' END,
			trim_scale(f.quantity + o.quantity)::text,
			CASE WHEN f.fee_asset IS NULL THEN round(f.fees + o.fees, 4) ELSE trim_scale(f.fees + o.fees) END::text, f.rate, f.rate_given,
			coalesce(f.fee_asset, ''), f.fee_rate
		FROM fills f LEFT JOIN fills o ON o.id = f.split_of OR o.split_of = f.id
		WHERE f.position_id = $1 ORDER BY f.filled_at, f.id`
	var (
		trade    journal.Trade
		current  bool
		measured MeasuredView
		at       *time.Time
	)
	b.Queue(sql, id, userID).QueryRow(func(row pgx.Row) error {
		if err := row.Scan(ScanSummary(&p.Summary, &p.Notes, &p.ImageCount, &p.ReversedInto, &p.MaePrice, &p.MfePrice,
			&current, &measured.MaePrice, &measured.MfePrice, &measured.FirstHit, &measured.Source, &at)...); err != nil {
			return db.Classify(err)
		}
		if current {
			measured.MeasuredAt = at.UTC()
			p.Measured = &measured
		}
		notes, err := k.Open(encrypt.PositionNotes, p.Notes)
		if err != nil {
			return err
		}
		p.Notes = notes
		p.Tags = []journal.Tag{}
		p.SetAwaitingExpiry(now)
		trade = journal.Trade{Side: p.Side, Quoted: instrument.QuotedApart(p.AssetType)}
		if trade.Multiplier, err = decimal.NewFromString(p.Multiplier.String()); err != nil {
			return err
		}
		trade.StopLoss, err = optionalDecimal(p.StopLoss)
		return err
	})
	b.Queue(fillsQ, id).Query(func(rows pgx.Rows) error {
		var (
			f         journal.Fill
			estimated bool
			est       []bool
			part      Fill // its reversal and rate fields
			parts     []Fill
		)
		_, err := pgx.ForEachRow(rows, []any{&f.ID, &f.Type, &f.Price, &f.Quantity, &f.Fees, &estimated, &f.FilledAt,
			&part.Reversal, &part.TradeQuantity, &part.TradeFees, &f.Rate, &part.RateGiven, &f.FeeAsset, &f.FeeRate}, func() error {
			trade.Fills = append(trade.Fills, f)
			est = append(est, estimated)
			parts = append(parts, part)
			f.Rate, f.FeeRate = nil, nil
			return nil
		})
		if err != nil {
			return db.Classify(err)
		}
		// The stored fills made these figures when they were written; Compute
		// runs again only for each exit's realised P&L.
		fig, figErr := journal.Compute(trade)
		p.Fills = make([]Fill, len(trade.Fills))
		for i, f := range trade.Fills {
			p.Fills[i] = Fill{ID: f.ID, Type: f.Type, Price: f.Price.String(), Quantity: f.Quantity.String(),
				Fees: money.RoundN(f.Fees, 4), FeeEstimated: est[i], FilledAt: f.FilledAt,
				Reversal: parts[i].Reversal, TradeQuantity: parts[i].TradeQuantity, TradeFees: parts[i].TradeFees,
				RateGiven: parts[i].RateGiven}
			if f.Rate != nil {
				r := f.Rate.String()
				p.Fills[i].Rate = &r
			}
			if f.FeeAsset != "" {
				p.Fills[i].Fees, p.Fills[i].FeeAsset = f.Fees.String(), &trade.Fills[i].FeeAsset
			}
			if f.Type == journal.FillExit && figErr == nil && (!trade.Quoted || f.Rate != nil) {
				p.Fills[i].RealizedPnl = amount(&fig.Realized[i])
			}
		}
		if figErr != nil {
			return nil
		}
		// A typed excursion wins over a measured one.
		maeText, mfeText, maeSource, mfeSource := p.MaePrice, p.MfePrice, SourceTyped, SourceTyped
		if m := p.Measured; m != nil && m.Source != nil {
			if maeText == nil {
				maeText, maeSource = m.MaePrice, *m.Source
			}
			if mfeText == nil {
				mfeText, mfeSource = m.MfePrice, *m.Source
			}
		}
		var target, mae, mfe *decimal.Decimal
		for _, c := range []struct {
			s *string
			d **decimal.Decimal
		}{{p.TargetPrice, &target}, {maeText, &mae}, {mfeText, &mfe}} {
			if *c.d, err = optionalDecimal(c.s); err != nil {
				return err
			}
		}
		p.trade, p.figures = trade, fig
		p.Review = review(journal.Review(trade, fig, target, mae, mfe, now), maeSource, mfeSource)
		return nil
	})
	b.Queue(positionTagsSQL, id).Query(func(rows pgx.Rows) error {
		tags, err := readTags(rows, nil)
		if t := tags[id]; t != nil {
			p.Tags = t
		}
		return err
	})
	return nil
}

// tagsSQL reads the tags of positions ($1), by name; positionTagsSQL
// those of one position: PostgreSQL plans a statement of an array
// parameter again at every call (its generic plan costs the array at a
// guessed length), which cost a create more than the read itself.
const (
	tagsSQL         = tagsSelect + `pt.position_id = ANY($1::uuid[])` + tagsOrder
	positionTagsSQL = tagsSelect + `pt.position_id = $1` + tagsOrder
	tagsSelect      = `SELECT pt.position_id::text, t.id::text, t.name, t.category
	FROM position_tags pt JOIN tags t ON t.id = pt.tag_id WHERE `
	tagsOrder = ` ORDER BY lower(t.name), t.id`
)

// TagsOf returns the tags of each position, by name.
func TagsOf(ctx context.Context, q db.Querier, ids []string) (map[string][]journal.Tag, error) {
	return readTags(q.Query(ctx, tagsSQL, ids))
}

func readTags(rows pgx.Rows, err error) (map[string][]journal.Tag, error) {
	if err != nil {
		return nil, db.Classify(err)
	}
	out := map[string][]journal.Tag{}
	var (
		pid string
		t   journal.Tag
	)
	_, err = pgx.ForEachRow(rows, []any{&pid, &t.ID, &t.Name, &t.Category}, func() error {
		out[pid] = append(out[pid], t)
		return nil
	})
	return out, db.Classify(err)
}
