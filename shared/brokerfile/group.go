package brokerfile

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/sizing"
)

// Seed is a position open in the journal's account that the file may
// continue: its later fills join it instead of opening a new position.
type Seed struct {
	PositionID string
	Symbol     string
	AssetType  string
	Side       string // journal.SideLong or journal.SideShort
	Multiplier decimal.Decimal
	StopLoss   *decimal.Decimal
	Fills      []journal.Fill // the position's fills so far
}

// Journal is what the account already holds that matters to an import.
type Journal struct {
	// Seeds are the account's open positions.
	Seeds []Seed
	// Has holds the keys of the fills already in the account in the file's
	// time range.
	Has map[Key]bool
	// Currency is the account's currency and Rates the user's exchange
	// rates: a forex, crypto or CFD fill's rate and a fee charged in a
	// coin are worked out as the journal's write will (fx.FillRate,
	// fx.FeeFactor), so the preview's figures are the commit's. Without a
	// currency those positions' figures stay in their quote currency.
	Currency string
	Rates    []fx.Rate
}

// Position is a position the import creates, or an open one it continues.
type Position struct {
	ExistingID string // the continued position; "" for a new one
	Symbol     string
	AssetType  string
	Side       string
	Multiplier decimal.Decimal
	// Fills are indexes into the fills given to Build, in time order, and
	// Types their entry or exit. A reversal's fill is in two positions:
	// Quantities and Fees hold each position's part of it (the whole fill's
	// elsewhere).
	Fills      []int
	Types      []string
	Quantities []decimal.Decimal
	Fees       []decimal.Decimal
	// ReversalOf is 1 + the index of the position whose reversal opened
	// this one; 0 when it opened on its own.
	ReversalOf int
	// Figures are the position's figures after the import (journal.Compute
	// over its earlier fills and the new ones); zero when Build ran with
	// SummaryOnly.
	Figures journal.Figures
	// Before are a continued position's figures before the import.
	Before *journal.Figures

	existing int // fills a continued position already has
}

// Summary counts what an import proposes. The P&L figures are what the
// imported fills book: a new position's whole figures, and for a continued
// one the change.
type Summary struct {
	Rows               int // data rows of the file
	SkippedRows        int // rows that are not fills
	Fills              int // fills read
	ImportFills        int // the file's fills the commit writes (a reversal's once)
	Positions          int // positions written (new and continued)
	NewPositions       int
	ContinuedPositions int
	OpenPositions      int // of those, open after the import
	DuplicateFills     int // fills already in the journal
	DuplicatesInFile   int // rows repeating an earlier row
	Reversals          int // fills that closed a position and opened the opposite one
	GrossPnL           decimal.Decimal
	Fees               decimal.Decimal
	NetPnL             decimal.Decimal
}

// Plan is Build's proposal: the positions, and every problem found.
type Plan struct {
	Positions []Position
	Errors    []Problem
	Warnings  []Problem
	Summary   Summary
}

// CanCommit reports a plan without errors that writes something.
func (p *Plan) CanCommit() bool { return len(p.Errors) == 0 && len(p.Positions) > 0 }

// EstimateFees sets the fee of every fill whose row gave none from the
// account's fee schedule (journal.EstimateFee; 0 without a schedule) and
// returns the warnings that say so.
func EstimateFees(fills []Fill, hasFeesColumn bool, s *sizing.FeeSchedule) []Problem {
	missing := 0
	for i := range fills {
		f := &fills[i]
		// A forex, crypto or CFD fill without a fee has none: a fee
		// schedule's per-share commission is not a currency's.
		if f.FeesGiven || instrument.QuotedApart(f.AssetType) {
			continue
		}
		missing++
		f.Fees, f.FeeEstimated = journal.EstimateFee(s, instrument.Contracts(f.AssetType), f.Quantity)
	}
	if missing == 0 {
		return nil
	}
	how := "estimated from the account's fee schedule"
	if s == nil {
		how = "0: the account has no brokerage fee schedule to estimate them from"
	}
	if !hasFeesColumn {
		return []Problem{{Code: CodeNoFeesColumn, Message: fmt.Sprintf("the file has no fee or commission column: the fees of its %d fills are %s", missing, how)}}
	}
	return []Problem{{Code: CodeFeesEstimated, Message: fmt.Sprintf("%d fills have no fee in the file: their fees are %s", missing, how)}}
}

// BuildOptions shape Build.
type BuildOptions struct {
	// ConfirmDuplicates imports fills the journal already has.
	ConfirmDuplicates bool
	// Header names columns in problems (nil: numbers only).
	Header []string
	// SummaryOnly keeps each position's figures in the summary only, not
	// on the position (nor the rate warnings they imply): the commit derives
	// every position again as it writes it, and a 10,000-row commit holding
	// both sets of figures came within 5 MiB of its heap target
	// (TestImportHeap).
	SummaryOnly bool
}

// run is the state of one (symbol, asset type) while grouping.
type run struct {
	pos      int             // index in Plan.Positions; -1 when flat
	qty      decimal.Decimal // signed: > 0 long, < 0 short
	poisoned bool
	seed     *seedState
	seeds    int // open journal positions of the key
}

type seedState struct {
	Seed
	open decimal.Decimal // signed
	last time.Time
	used bool
}

// Build groups the fills into positions against what the journal holds.
// fills are in file order (as Parse returns them, after EstimateFees).
func Build(fills []Fill, j Journal, opt BuildOptions) *Plan {
	plan := &Plan{}
	sum := &plan.Summary
	sum.Fills = len(fills)
	colName := func(col int) string {
		if col >= 1 && col <= len(opt.Header) {
			return opt.Header[col-1]
		}
		return ""
	}
	errAt := func(f *Fill, col int, field, code, msg string) {
		plan.Errors = append(plan.Errors, Problem{Row: f.Row, Column: col, ColumnName: colName(col), Field: field, Code: code, Message: msg})
	}
	warnAt := func(f *Fill, col int, field, code, msg string) {
		plan.Warnings = append(plan.Warnings, Problem{Row: f.Row, Column: col, ColumnName: colName(col), Field: field, Code: code, Message: msg})
	}

	// What the journal cannot hold, duplicates within the file, and fills
	// the journal already has. Round trips go by their units (the rows
	// from flat to flat, joinTrips): a unit is skipped as a duplicate only
	// when the journal has all its fills.
	use := make([]int, 0, len(fills))
	// A row repeats an earlier one of the same account of the file: the
	// same fill in two of its accounts is a copy (a prop firm's copy
	// trading), not a repeat.
	type rowKey struct {
		Key
		account string
	}
	firstRow := make(map[rowKey]int, len(fills))
	tripDups, tripFills := map[int]int{}, map[int]int{}
	for i := range fills {
		if fills[i].Trip == 0 {
			continue
		}
		tripFills[fills[i].Trip]++
		if j.Has[fills[i].Key()] {
			tripDups[fills[i].Trip]++
		}
	}
	for i := range fills {
		f := &fills[i]
		k := f.Key()
		if r, seen := firstRow[rowKey{k, f.Account}]; seen && r != f.Row {
			sum.DuplicatesInFile++
			warnAt(f, 0, "", CodeDuplicateInFile, fmt.Sprintf("repeats row %d (same symbol, time, side, price and quantity); both are imported", r))
		} else if !seen {
			firstRow[rowKey{k, f.Account}] = f.Row
		}
		if j.Has[k] {
			if f.Trip != 0 && tripDups[f.Trip] < tripFills[f.Trip] {
				warnAt(f, 0, "", CodeDuplicateInJournal, "the journal already has this fill (same account, symbol, time, side, price and quantity), but not the rest of its round trip; imported")
				use = append(use, i)
				continue
			}
			sum.DuplicateFills++
			if opt.ConfirmDuplicates {
				warnAt(f, 0, "", CodeDuplicateInJournal, "the journal already has this fill (same account, symbol, time, side, price and quantity); imported again as confirmed")
				use = append(use, i)
			} else {
				warnAt(f, 0, "", CodeDuplicateInJournal, "the journal already has this fill (same account, symbol, time, side, price and quantity); skipped unless duplicates are confirmed")
			}
			continue
		}
		use = append(use, i)
	}

	// Time order. A file listed newest first (most brokers' order history)
	// keeps its same-instant fills in their true order by being read
	// backwards. Round trips come in their order already (joinTrips): their
	// same-instant fills keep it.
	execs, paired := make([]int, 0, len(use)), []int{}
	for _, i := range use {
		if fills[i].Trip == 0 {
			execs = append(execs, i)
		} else {
			paired = append(paired, i)
		}
	}
	up, down := 0, 0
	for k := 1; k < len(execs); k++ {
		switch fills[execs[k]].FilledAt.Compare(fills[execs[k-1]].FilledAt) {
		case 1:
			up++
		case -1:
			down++
		}
	}
	if down > up {
		slices.Reverse(execs)
	}
	use = append(execs, paired...)
	slices.SortStableFunc(use, func(a, b int) int { return fills[a].FilledAt.Compare(fills[b].FilledAt) })

	// A running quantity per (symbol, asset type) for executions, per unit
	// for round trips.
	runs := map[string]*run{}
	seedsOf := map[string][]*seedState{}
	for _, s := range j.Seeds {
		st := &seedState{Seed: s}
		for _, f := range s.Fills {
			q := f.Quantity
			if f.Type == journal.FillExit {
				q = q.Neg()
			}
			st.open = st.open.Add(q)
			if f.FilledAt.After(st.last) {
				st.last = f.FilledAt
			}
		}
		if s.Side == journal.SideShort {
			st.open = st.open.Neg()
		}
		k := s.Symbol + "\x00" + s.AssetType
		seedsOf[k] = append(seedsOf[k], st)
	}

	part := func(pos *Position, i int, typ string, qty, fees decimal.Decimal) bool {
		if pos.existing+len(pos.Fills) >= journal.MaxFills {
			f := &fills[i]
			errAt(f, 0, "", CodeTooManyFills, fmt.Sprintf("the %s position would hold more than %d fills; split it (later rows of %s were not checked)", f.Symbol, journal.MaxFills, f.Symbol))
			return false
		}
		pos.Fills = append(pos.Fills, i)
		pos.Types = append(pos.Types, typ)
		pos.Quantities = append(pos.Quantities, qty)
		pos.Fees = append(pos.Fees, fees)
		return true
	}
	add := func(pos *Position, i int, typ string) bool {
		return part(pos, i, typ, fills[i].Quantity, fills[i].Fees)
	}

	for _, i := range use {
		f := &fills[i]
		key := f.Symbol + "\x00" + f.AssetType
		if f.Trip != 0 {
			// A round trip's fills (a unit of paired rows from flat to
			// flat, joinTrips) run on their own, never continuing a
			// position open in the journal.
			key = "\x01" + strconv.Itoa(f.Trip)
		}
		r := runs[key]
		if r == nil {
			r = &run{pos: -1, seeds: len(seedsOf[key])}
			if len(seedsOf[key]) == 1 {
				r.seed = seedsOf[key][0]
			}
			runs[key] = r
		}
		if r.poisoned {
			continue
		}
		signed := f.Quantity
		if f.Side == Sell {
			signed = signed.Neg()
		}
		if r.qty.IsZero() && r.seed != nil && !r.seed.used && !f.FilledAt.Before(r.seed.last) {
			s := r.seed
			s.used = true
			plan.Positions = append(plan.Positions, Position{ExistingID: s.PositionID, Symbol: s.Symbol, AssetType: s.AssetType,
				Side: s.Side, Multiplier: s.Multiplier, existing: len(s.Fills)})
			r.pos, r.qty = len(plan.Positions)-1, s.open
			warnAt(f, 0, "", CodeContinuesPosition, fmt.Sprintf("continues the %s position open in the journal since %s (%s %s)",
				s.Symbol, s.Fills[0].FilledAt.UTC().Format(time.RFC3339), s.Side, s.open.Abs().String()))
		}
		if r.qty.IsZero() {
			if f.Effect == EffectClose {
				msg := fmt.Sprintf("closes a %s position, but none is open at this time in the file or the journal (was it opened before the file's first row?); later rows of %s were not checked", f.Symbol, f.Symbol)
				if r.seeds > 1 {
					msg = fmt.Sprintf("closes a %s position, but the journal has %d open %s positions in this account and the import cannot tell which; close all but one first", f.Symbol, r.seeds, f.Symbol)
				}
				errAt(f, f.SideColumn, FieldSide, CodeExitWithoutEntry, msg)
				r.poisoned = true
				continue
			}
			side := journal.SideLong
			if f.Side == Sell {
				side = journal.SideShort
				if f.Effect != EffectOpen {
					warnAt(f, f.SideColumn, FieldSide, CodeDirectionInferred, fmt.Sprintf("a sell of %s with nothing open: read as a short sale opening a short position", f.Symbol))
				}
			}
			plan.Positions = append(plan.Positions, Position{Symbol: f.Symbol, AssetType: f.AssetType, Side: side, Multiplier: f.Multiplier})
			r.pos, r.qty = len(plan.Positions)-1, decimal.Zero
		}
		pos := &plan.Positions[r.pos]
		if signed.Sign() == r.qty.Sign() || r.qty.IsZero() {
			if f.Effect == EffectClose {
				errAt(f, f.SideColumn, FieldSide, CodeEffectMismatch, fmt.Sprintf("is marked closing, but it adds to the open %s position of %s; later rows of %s were not checked", pos.Side, r.qty.Abs().String(), f.Symbol))
				r.poisoned = true
				continue
			}
			if !add(pos, i, journal.FillEntry) {
				r.poisoned = true
				continue
			}
			r.qty = r.qty.Add(signed)
			continue
		}
		if f.Effect == EffectOpen {
			errAt(f, f.SideColumn, FieldSide, CodeEffectMismatch, fmt.Sprintf("is marked opening, but it reduces the open %s position of %s; later rows of %s were not checked", pos.Side, r.qty.Abs().String(), f.Symbol))
			r.poisoned = true
			continue
		}
		if f.Quantity.GreaterThan(r.qty.Abs()) {
			// A reversal (journal.Derive's rule): the open quantity closes
			// this position, the rest opens the opposite one.
			open, side := r.qty.Abs(), pos.Side
			closing, opening := journal.SplitFees(f.Fees, open, f.Quantity)
			if !part(pos, i, journal.FillExit, open, closing) {
				r.poisoned = true
				continue
			}
			plan.Positions = append(plan.Positions, Position{Symbol: f.Symbol, AssetType: f.AssetType,
				Side: journal.Opposite(side), Multiplier: f.Multiplier, ReversalOf: r.pos + 1})
			r.pos = len(plan.Positions) - 1
			part(&plan.Positions[r.pos], i, journal.FillEntry, f.Quantity.Sub(open), opening)
			r.qty = r.qty.Add(signed)
			sum.Reversals++
			warnAt(f, f.QtyColumn, FieldQuantity, CodeReversal, fmt.Sprintf(
				"%s %s while %s %s were open: closes the %s position and opens a %s position of %s",
				verb(f.Side), f.Quantity.String(), open.String(), side, side, journal.Opposite(side), f.Quantity.Sub(open).String()))
			continue
		}
		if !add(pos, i, journal.FillExit) {
			r.poisoned = true
			continue
		}
		r.qty = r.qty.Add(signed)
		if r.qty.IsZero() {
			r.pos = -1
		}
	}
	// Forex, crypto and CFD fills: the rates of their quote and of their
	// fee's asset, as the commit will find them.
	conv := convertFills(fills, j)
	plan.figures(fills, seedsOf, conv, !opt.SummaryOnly)
	if !opt.SummaryOnly {
		plan.awaiting(fills, conv)
	}
	return plan
}

func verb(side string) string {
	if side == Buy {
		return "buys"
	}
	return "sells"
}

// figures runs journal.Compute over each position and fills the summary,
// keeping each position's figures on it when keep is set.
func (p *Plan) figures(fills []Fill, seedsOf map[string][]*seedState, conv conversion, keep bool) {
	sum := &p.Summary
	for k := range p.Positions {
		pos := &p.Positions[k]
		trade := journal.Trade{Side: pos.Side, Multiplier: pos.Multiplier, Quoted: instrument.QuotedApart(pos.AssetType)}
		var seed *seedState
		var before *journal.Figures
		if pos.ExistingID != "" {
			for _, s := range seedsOf[pos.Symbol+"\x00"+pos.AssetType] {
				if s.PositionID == pos.ExistingID {
					seed = s
				}
			}
			trade.StopLoss = seed.StopLoss
			trade.Fills = slices.Clone(seed.Fills)
			if fig, err := journal.Compute(trade); err == nil {
				before = &fig
			}
		}
		existing := len(trade.Fills)
		for n, i := range pos.Fills {
			f := &fills[i]
			jf := journal.Fill{Type: pos.Types[n], Price: f.Price, Quantity: pos.Quantities[n], Fees: pos.Fees[n], FilledAt: f.FilledAt}
			if trade.Quoted {
				jf.Rate, jf.FeeRate = conv.rates[i], conv.feeRates[i]
				if conv.account != "" {
					jf.FeeAsset = f.FeeAsset
				}
			}
			trade.Fills = append(trade.Fills, jf)
		}
		fig, err := journal.Compute(trade)
		if err != nil {
			var fe *journal.FillError
			row := 0
			if errors.As(err, &fe) && fe.Index >= existing {
				row = fills[pos.Fills[fe.Index-existing]].Row
			}
			p.Errors = append(p.Errors, Problem{Row: row, Code: CodeOutOfRange, Message: err.Error()})
			continue
		}
		if keep {
			pos.Figures, pos.Before = fig, before
		}
		sum.ImportFills += len(pos.Fills)
		if pos.ReversalOf > 0 {
			sum.ImportFills-- // a reversal's fill is the previous position's too: the file's one row
		}
		if pos.ExistingID != "" {
			sum.ContinuedPositions++
			if before != nil {
				sum.GrossPnL = sum.GrossPnL.Add(fig.GrossPnL.Sub(before.GrossPnL))
				sum.Fees = sum.Fees.Add(fig.Fees.Sub(before.Fees))
				sum.NetPnL = sum.NetPnL.Add(fig.NetPnL.Sub(before.NetPnL))
			}
		} else {
			sum.NewPositions++
			sum.GrossPnL = sum.GrossPnL.Add(fig.GrossPnL)
			sum.Fees = sum.Fees.Add(fig.Fees)
			sum.NetPnL = sum.NetPnL.Add(fig.NetPnL)
		}
		if fig.Status == journal.StatusOpen {
			sum.OpenPositions++
		}
	}
	sum.Positions = sum.NewPositions + sum.ContinuedPositions
}
