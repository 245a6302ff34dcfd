// Package tradebars finds the price bars around a position's hold and
// measures its excursions from them: the bars route (functions/positions)
// and the excursions job (shared/jobs) share it. Bars come from the
// provider of the position's asset type (market.Feeds, BARS_PROVIDERS),
// or, when it has none or they have no bars, from the bars the trader
// uploaded for the symbol (also when the provider fails).
package tradebars

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
)

// Service looks bars up and records what they say.
type Service struct {
	feeds   *market.Feeds
	pool    *pgxpool.Pool
	journal *journalstore.Store
	// JobCalls bounds the provider look-ups of one run of the excursions
	// job (MeasureDue); JobCalls by default.
	JobCalls int
}

// New returns the service over feeds, the database and the journal's store.
func New(feeds *market.Feeds, pool *pgxpool.Pool, store *journalstore.Store) *Service {
	return &Service{feeds: feeds, pool: pool, journal: store, JobCalls: JobCalls}
}

// Instrument is what p's chart shows: the asset type whose provider serves
// it and the symbol asked for (an option's or a futures option's
// underlying; the position's own symbol otherwise, a stock's valid by
// market.ValidSymbol). ok is false when there is none (a stock symbol the
// providers do not take).
func Instrument(p journalstore.Summary) (assetType, symbol string, ok bool) {
	assetType, symbol = p.AssetType, p.Symbol
	if (assetType == instrument.AssetOption || assetType == instrument.AssetFutureOption) && p.Underlying != nil {
		symbol = *p.Underlying
	}
	if assetType == instrument.AssetStock || assetType == instrument.AssetOption {
		symbol, ok = market.ValidSymbol(symbol)
		return assetType, symbol, ok
	}
	return assetType, symbol, symbol != ""
}

// Bars are the bars around a position's hold and what they say of it.
type Bars struct {
	Symbol   string
	Window   market.Window // its Resolution is the bars' length
	Bars     []market.Bar
	Source   string // the provider's name, or market.SourceUploaded
	HeldFrom time.Time
	HeldTo   time.Time // the close, or now while open
	// Excursions are nil when no bar overlaps the hold, and for options
	// (whose chart is the underlying's).
	Excursions *market.Excursions
}

// ErrNoFills answers a look-up of bars for a draft: no holding period yet.
var ErrNoFills = &apperr.Error{Code: apperr.NotFound, Message: "the position has no fills yet, so no holding period to show"}

// ErrNoBars answers a position no provider serves and whose symbol has no
// uploaded bars.
var ErrNoBars = &apperr.Error{Code: apperr.NotFound,
	Message: "no price bars for this symbol: upload a bars file (CSV) exported from your platform, or ask the administrator to set up a provider"}

// WindowChooser picks the bars shown around a hold from its start to its
// end; nil is market.WindowFor.
type WindowChooser func(open, end time.Time) (market.Window, error)

// For returns the bars around p's hold (to now while open) in the window
// choose picks, and the excursions they imply. Errors are *apperr.Error
// values: ErrNoFills, ErrNoBars, a provider's 502 or 504, or choose's.
func (s *Service) For(ctx context.Context, userID string, p journalstore.Position, now time.Time, choose WindowChooser) (Bars, error) {
	if p.OpenedAt == nil {
		return Bars{}, ErrNoFills
	}
	assetType, symbol, ok := Instrument(p.Summary)
	if !ok {
		return Bars{}, ErrNoBars
	}
	out := Bars{Symbol: symbol, HeldFrom: p.OpenedAt.UTC(), HeldTo: now.UTC()}
	if p.Status == journal.StatusClosed && p.ClosedAt != nil {
		out.HeldTo = p.ClosedAt.UTC()
	}
	out.Window = market.WindowFor(out.HeldFrom, out.HeldTo)
	if choose != nil {
		var err error
		if out.Window, err = choose(out.HeldFrom, out.HeldTo); err != nil {
			return Bars{}, err
		}
	}
	// A provider's failure (an outage, its limit, a refused key) still
	// leaves the trader's uploaded bars to show; its words are the answer
	// only when there are none.
	var providerErr error
	if src, ok := s.feeds.Source(assetType); ok {
		bars, err := s.feeds.Bars(ctx, assetType, symbol, out.Window)
		if err != nil {
			providerErr = err
		} else {
			out.Bars, out.Source = bars, src.Name()
		}
	}
	measureBars, measureStep := out.Bars, out.Window.Resolution.Step
	if len(out.Bars) == 0 {
		up, ok, err := market.UploadedBars(ctx, s.pool, userID, symbol, out.Window)
		switch {
		case err != nil:
			return Bars{}, err
		case ok && (len(up.Bars) > 0 || providerErr == nil):
			// Measured from the bars as uploaded, finer than or as fine as
			// those shown. An upload with none of the hold does not stand
			// in for a failed provider: its error stays the answer, so the
			// job tries again rather than record no bars.
			measureBars, measureStep = up.Bars, up.Step
			out.Bars, out.Window, out.Source = up.Shown, up.Window, market.SourceUploaded
		case providerErr != nil:
			return Bars{}, providerErr
		case out.Source == "":
			return Bars{}, ErrNoBars
		}
	}
	if measurable(assetType) {
		if ex, ok := market.Measure(tradeOf(p, out.HeldFrom, out.HeldTo), measureBars, measureStep); ok {
			out.Excursions = &ex
		}
	}
	return out, nil
}

// measurable reports whether bars measure the excursions of a position of
// assetType: an option's bars are its underlying's, whose prices are not
// its premiums.
func measurable(assetType string) bool {
	return assetType != instrument.AssetOption && assetType != instrument.AssetFutureOption
}

// tradeOf is what market.Measure reads of p.
func tradeOf(p journalstore.Position, from, to time.Time) market.Trade {
	t := market.Trade{Short: p.Side == journal.SideShort, Entry: from, Exit: to}
	for _, f := range p.Fills {
		if d, err := decimal.NewFromString(f.Price); err == nil {
			t.FillPrices = append(t.FillPrices, d)
		}
	}
	for _, c := range []struct {
		s *string
		d **decimal.Decimal
	}{{p.StopLoss, &t.Stop}, {p.TargetPrice, &t.Target}} {
		if c.s != nil {
			if d, err := decimal.NewFromString(*c.s); err == nil {
				*c.d = &d
			}
		}
	}
	return t
}

// record stores what b says of p when p is closed (RecordMeasured); an
// open position's excursions still move, so nothing is stored.
func (s *Service) record(ctx context.Context, userID string, p journalstore.Position, b Bars) error {
	if p.Status != journal.StatusClosed || p.ClosedAt == nil {
		return nil
	}
	_, err := s.journal.RecordMeasured(ctx, userID, p.ID, *p.ClosedAt, measured(b))
	return err
}

// measured is b's excursions as the journal stores them: none without a
// bar in the hold.
func measured(b Bars) journalstore.Measured {
	if b.Excursions == nil {
		return journalstore.Measured{}
	}
	e := b.Excursions
	hit := e.FirstHit
	if hit == "" {
		hit = "none"
	}
	return journalstore.Measured{MAE: &e.MAE, MFE: &e.MFE, FirstHit: hit, Source: b.Source}
}

// JobCalls bounds the provider look-ups of one run of the excursions job:
// a free plan's minute of calls (Twelve Data's is 8). Each is bounded in
// time by the providers' timeout (market.DefaultQuoteTimeout), so a run
// whose provider hangs ends within JobCalls of it.
const JobCalls = 8

// jobBatch is how many due positions one run reads: those needing no
// provider look-up (options, asset types without a provider) spend none
// of JobCalls, so a run reads more than it may look up.
const jobBatch = 4 * JobCalls

// MeasureDue measures the closed positions whose excursions were never
// measured to their close, up to JobCalls provider look-ups and jobBatch
// positions, the least recently tried first: the excursions job
// (shared/jobs).
//
// An option is recorded as measured without bars without a look-up (its
// chart is its underlying's). A position without bars (ErrNoBars, or a
// provider's empty answer) is recorded as measured without them: it is
// due again once bars of its symbol are uploaded (journalstore.Unmeasured).
// A provider's failure on one position (an outage, an answer it could not
// read, no answer in time) records only the attempt
// (journalstore.RecordAttempt), so the next runs try the others first and
// it again after them; a provider's refusal of every look-up (its rate
// limit, a bad key) ends the run. It returns how many it recorded, and
// the last failure when a position was left.
func (s *Service) MeasureDue(ctx context.Context, now time.Time) (int, error) {
	due, err := s.journal.Unmeasured(ctx, jobBatch)
	if err != nil {
		return 0, err
	}
	n, calls := 0, 0
	var left error
	for _, u := range due {
		p, err := s.journal.Position(ctx, u.UserID, u.PositionID)
		if errors.Is(err, apperr.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return n, err
		}
		var b Bars
		if assetType, _, known := Instrument(p.Summary); measurable(assetType) {
			if _, ok := s.feeds.Source(assetType); ok && known {
				if calls == s.JobCalls {
					continue // the run's look-ups are spent: a later run's
				}
				calls++
			}
			b, err = s.For(ctx, u.UserID, p, now, nil)
		}
		if ae, ok := apperr.As(err); ok && !market.Refused(err) {
			switch ae.Code {
			case apperr.NotFound:
				b, err = Bars{}, nil // no bars: measured without them
			case apperr.BadGateway, apperr.GatewayTimeout:
				left = err // this position's look-up failed: tried again after the others
				if err := s.journal.RecordAttempt(ctx, u.UserID, p.ID, now); err != nil {
					return n, err
				}
				continue
			}
		}
		if err != nil {
			return n, err
		}
		if err := s.record(ctx, u.UserID, p, b); err != nil {
			return n, err
		}
		n++
	}
	return n, left
}
