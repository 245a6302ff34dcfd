package tradebars_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
	"tradejournal/shared/tradebars"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"
)

const (
	alpacaID     = "PKTEST1234"
	alpacaSecret = "alpaca-secret-5678"
)

var (
	entryAt = time.Date(2025, 6, 2, 14, 7, 0, 0, time.UTC)
	exitAt  = entryAt.Add(5 * time.Minute)
	now     = entryAt.Add(24 * time.Hour)
)

// hour are one-minute bars from 13:40 to 14:40: 14:09 down to 9.4, 14:11
// up to 11.35, otherwise 10 to 10.5.
var hour = markettest.Minutes(entryAt.Add(-27*time.Minute), 61, map[int][2]string{29: {"9.4", "10.5"}, 31: {"10", "11.35"}})

// rig is a journal with one user and account, and a stand-in of Alpaca
// serving AAPL's hour (others have none); symbols from DOWN answer 500
// (an outage), from LIMIT 429.
type rig struct {
	ctx      context.Context
	pool     *pgxpool.Pool
	store    *journalstore.Store
	svc      *tradebars.Service
	provider *markettest.Provider
	user     string
	account  string
	// down makes every symbol answer 500 while set.
	down atomic.Bool
	// clock is the time now, moved on between the job's runs as their
	// schedule does (the providers' cache keeps a failure for a while).
	clock atomic.Int64
}

// now is the rig's time.
func (r *rig) now() time.Time { return time.Unix(0, r.clock.Load()).UTC() }

// later moves the rig's time on by d and answers it.
func (r *rig) later(d time.Duration) time.Time {
	r.clock.Add(int64(d))
	return r.now()
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{ctx: context.Background(), pool: dbtest.New(t)}
	alpaca := markettest.Alpaca(alpacaID, alpacaSecret, map[string][]markettest.Candle{"AAPL": hour, "MSFT": hour}, 1000)
	r.provider = markettest.NewProvider(t, func(w http.ResponseWriter, req *http.Request) {
		switch {
		case r.down.Load() || strings.Contains(req.URL.Path, "/DOWN"):
			w.WriteHeader(http.StatusInternalServerError)
		case strings.Contains(req.URL.Path, "/LIMIT"):
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			alpaca(w, req)
		}
	})
	cfg := config.Market{Bars: config.Bars{Providers: map[string]string{"stock": config.BarsAlpaca},
		AlpacaKeyID: alpacaID, AlpacaSecretKey: alpacaSecret, AlpacaURL: r.provider.URL, AlpacaFeed: "iex"}}
	r.clock.Store(now.UnixNano())
	feeds := market.NewFeeds(cfg, nil, r.now, nil)
	r.store = journalstore.New(r.pool, nil, r.now)
	r.svc = tradebars.New(feeds, r.pool, r.store)
	if err := r.pool.QueryRow(r.ctx, `INSERT INTO users (email, password_hash) VALUES ('bars@example.com', 'x') RETURNING id::text`).Scan(&r.user); err != nil {
		t.Fatal(err)
	}
	if err := r.pool.QueryRow(r.ctx, `INSERT INTO accounts (user_id, name, currency, starting_balance, balance)
		VALUES ($1, 'Main', 'USD', 10000, 10000) RETURNING id::text`, r.user).Scan(&r.account); err != nil {
		t.Fatal(err)
	}
	return r
}

// closed records a closed long of symbol (asset type asset; an option's
// symbol is OCC's) bought at 10 at entryAt and sold at 11 at exitAt, stop
// 9, target 12.
func (r *rig) closed(t *testing.T, asset, symbol string) journalstore.Position {
	t.Helper()
	return r.held(t, asset, symbol, entryAt, exitAt)
}

// held is closed with the entry at from and the exit at to.
func (r *rig) held(t *testing.T, asset, symbol string, from, to time.Time) journalstore.Position {
	t.Helper()
	entry, exit := journal.FillEntry, journal.FillExit
	in, out := from.Format(time.RFC3339), to.Format(time.RFC3339)
	side := journal.SideLong
	np := journalstore.NewPosition{AccountID: &r.account, Symbol: &symbol, AssetType: &asset, Side: &side,
		StopLoss: journal.S("9"), TargetPrice: journal.S("12"), Fills: []journal.FillInput{
			{Type: &entry, Price: journal.S("10"), Quantity: journal.S("100"), FilledAt: &in},
			{Type: &exit, Price: journal.S("11"), Quantity: journal.S("100"), FilledAt: &out}}}
	res, err := r.store.CreatePosition(r.ctx, r.user, np)
	if err != nil {
		t.Fatal(err)
	}
	return res.Position
}

// upload saves hour as the user's bars of symbol.
func (r *rig) upload(t *testing.T, symbol string) {
	t.Helper()
	r.uploadBars(t, symbol, hour, time.Minute)
}

// uploadBars saves candles, of length step, as the user's bars of symbol.
func (r *rig) uploadBars(t *testing.T, symbol string, candles []markettest.Candle, step time.Duration) {
	t.Helper()
	bars := make([]market.Bar, len(candles))
	for i, c := range candles {
		bars[i] = market.Bar{Time: time.Unix(c.T, 0).UTC(), Open: decimal.RequireFromString(c.O), High: decimal.RequireFromString(c.H),
			Low: decimal.RequireFromString(c.L), Close: decimal.RequireFromString(c.C), Volume: decimal.NewFromInt(c.V)}
	}
	if _, err := r.store.SaveBarUpload(r.ctx, r.user, symbol, bars, step, r.later(time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// measured is the position's measured source ("" for none, "-" when
// never measured to its close).
func (r *rig) measured(t *testing.T, id string) string {
	t.Helper()
	var source *string
	var done bool
	if err := r.pool.QueryRow(r.ctx, `SELECT bars_source, bars_closed_at IS NOT DISTINCT FROM closed_at FROM positions WHERE id = $1`, id).Scan(&source, &done); err != nil {
		t.Fatal(err)
	}
	switch {
	case !done:
		return "-"
	case source == nil:
		return ""
	}
	return *source
}

// TestFallback: the provider's bars first; the uploaded bars when the
// provider has none or fails; the provider's words when neither has bars;
// ErrNoBars when there is no provider and no upload.
func TestFallback(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct {
		name, asset, symbol string
		upload              bool
		elsewhere           bool // the upload holds none of the hold
		source              string
		err                 string
	}{
		{"Provider", "stock", "AAPL", true, false, "Alpaca", ""},
		{"ProviderHasNone", "stock", "ZZZ", true, false, market.SourceUploaded, ""},
		{"ProviderFails", "stock", "DOWN", true, false, market.SourceUploaded, ""},
		{"ProviderRefuses", "stock", "LIMIT", true, false, market.SourceUploaded, ""},
		{"ProviderFailsNoUpload", "stock", "DOWN2", false, false, "", "Alpaca did not answer usably"},
		{"ProviderRefusesNoUpload", "stock", "LIMIT2", false, false, "", "request limit"},
		{"ProviderFailsUploadElsewhere", "stock", "DOWN3", true, true, "", "Alpaca did not answer usably"},
		{"NoProvider", "future", "ESU25", true, false, market.SourceUploaded, ""},
		{"NothingAtAll", "future", "NQU25", false, false, "", tradebars.ErrNoBars.Message},
	} {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.elsewhere:
				r.uploadBars(t, tc.symbol, markettest.Minutes(entryAt.AddDate(0, 0, -30), 61, nil), time.Minute)
			case tc.upload:
				r.upload(t, tc.symbol)
			}
			p := r.closed(t, tc.asset, tc.symbol)
			b, err := r.svc.For(r.ctx, r.user, p, now, nil)
			if tc.err != "" {
				if _, ok := apperr.As(err); !ok || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Source != tc.source || b.Excursions == nil || b.Excursions.MAE.String() != "9.4" || b.Excursions.MFE.String() != "11.35" {
				t.Fatalf("source %q excursions %+v", b.Source, b.Excursions)
			}
		})
	}
}

// TestUploadedCoarser: 2-minute bars are shown joined into 30-minute ones
// (5 and 15 minutes are not whole numbers of them), and the excursions
// are measured from the 2-minute bars: the one straddling the exit at
// 14:25, whose low of 9 may have come after it, adds only its open.
func TestUploadedCoarser(t *testing.T) {
	r := newRig(t)
	start := time.Date(2025, 6, 2, 13, 0, 0, 0, time.UTC)
	var twos []markettest.Candle
	for at := start; at.Before(start.Add(2 * time.Hour)); at = at.Add(2 * time.Minute) {
		low := "10"
		if at.Equal(start.Add(84 * time.Minute)) { // 14:24
			low = "9"
		}
		twos = append(twos, markettest.Candle{T: at.Unix(), O: "10.2", H: "10.5", L: low, C: "10.3", V: 10})
	}
	r.uploadBars(t, "ESU25", twos, 2*time.Minute)
	p := r.held(t, "future", "ESU25", start.Add(time.Hour), start.Add(85*time.Minute))
	b, err := r.svc.For(r.ctx, r.user, p, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Window.Resolution.Code != "30" || len(b.Bars) != 4 || !b.Bars[1].Time.Equal(start.Add(30*time.Minute)) || b.Bars[1].Low.String() != "10" {
		t.Fatalf("shown at %s: %+v", b.Window.Resolution.Code, b.Bars)
	}
	if b.Excursions == nil || b.Excursions.MAE.String() != "10" || b.Excursions.MFE.String() != "11" {
		t.Fatalf("excursions %+v", b.Excursions)
	}
}

// TestMeasureDue: the job records the excursions of the bars it finds,
// marks a position without any bars as measured without them (due again
// once bars are uploaded), leaves a position whose provider failed for
// the next run, and ends the run on a provider's refusal.
func TestMeasureDue(t *testing.T) {
	r := newRig(t)
	found := r.closed(t, "stock", "AAPL")
	none := r.closed(t, "stock", "ZZZ")
	r.down.Store(true)
	// The outage fails both look-ups: neither is marked, both are due again.
	if n, err := r.svc.MeasureDue(r.ctx, now); n != 0 || err == nil {
		t.Fatalf("during an outage: %d %v", n, err)
	}
	for _, id := range []string{found.ID, none.ID} {
		if got := r.measured(t, id); got != "-" {
			t.Fatalf("%s marked %q during an outage", id, got)
		}
	}
	r.down.Store(false)
	if n, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute)); n != 2 || err != nil {
		t.Fatalf("after the outage: %d %v", n, err)
	}
	if got := r.measured(t, found.ID); got != "Alpaca" {
		t.Fatalf("AAPL measured from %q", got)
	}
	if got := r.measured(t, none.ID); got != "" {
		t.Fatalf("ZZZ measured from %q", got)
	}
	if n, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute)); n != 0 || err != nil {
		t.Fatalf("again: %d %v", n, err)
	}
	// Bars of ZZZ uploaded: due again, measured from them.
	r.upload(t, "ZZZ")
	if n, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute)); n != 1 || err != nil {
		t.Fatalf("after the upload: %d %v", n, err)
	}
	if got := r.measured(t, none.ID); got != market.SourceUploaded {
		t.Fatalf("ZZZ measured from %q after its upload", got)
	}

	t.Run("Refused", func(t *testing.T) {
		limited := r.closed(t, "stock", "LIMIT")
		n, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute))
		if n != 0 || !market.Refused(err) {
			t.Fatalf("refused: %d %v", n, err)
		}
		if got := r.measured(t, limited.ID); got != "-" {
			t.Fatalf("refused marked %q", got)
		}
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.RetryAfterSeconds == 0 {
			t.Fatalf("refusal %v", err)
		}
	})
}

// TestDeleteUpload: deleting uploaded bars forgets the excursions measured
// from them (through the journal's store), so the job measures the
// position again: without bars now.
func TestDeleteUpload(t *testing.T) {
	r := newRig(t)
	r.upload(t, "ESU25")
	p := r.closed(t, "future", "ESU25")
	kept := r.closed(t, "stock", "AAPL") // measured from Alpaca: not the upload's
	if n, err := r.svc.MeasureDue(r.ctx, r.later(time.Minute)); n != 2 || err != nil || r.measured(t, p.ID) != market.SourceUploaded {
		t.Fatalf("measured %d %v %q", n, err, r.measured(t, p.ID))
	}
	if err := r.store.DeleteBarUpload(r.ctx, r.user, "ESU25"); err != nil {
		t.Fatal(err)
	}
	if got := r.measured(t, p.ID); got != "-" {
		t.Fatalf("after the delete: %q", got)
	}
	if got := r.measured(t, kept.ID); got != "Alpaca" {
		t.Fatalf("another's measure: %q", got)
	}
	if err := r.store.DeleteBarUpload(r.ctx, r.user, "ESU25"); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("again: %v", err)
	}
	if n, err := r.svc.MeasureDue(r.ctx, r.later(time.Minute)); n != 1 || err != nil || r.measured(t, p.ID) != "" {
		t.Fatalf("measured again %d %v %q", n, err, r.measured(t, p.ID))
	}
}

// TestMeasureDueBudget: a run looks up at most JobCalls positions' bars
// at the provider; an option is recorded as measured without bars and a
// position of an asset type without a provider as measured without them,
// neither with a look-up, so neither spends the budget; the rest are the
// next run's.
func TestMeasureDueBudget(t *testing.T) {
	r := newRig(t)
	r.svc.JobCalls = 3
	var stocks []string
	for _, symbol := range []string{"AAPL", "MSFT", "ZZA", "ZZB", "ZZC"} {
		stocks = append(stocks, r.closed(t, "stock", symbol).ID)
	}
	options := []string{r.closed(t, "option", "AAPL  250620C00200000").ID, r.closed(t, "option", "MSFT  250620P00300000").ID}
	future := r.closed(t, "future", "ESU25").ID

	if n, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute)); n != 3+len(options)+1 || err != nil {
		t.Fatalf("first run: %d %v", n, err)
	}
	if got := r.provider.Calls(); got != 3 {
		t.Fatalf("first run: %d provider calls, want 3", got)
	}
	for _, id := range append(options, future) {
		if got := r.measured(t, id); got != "" {
			t.Fatalf("%s measured %q, want without bars", id, got)
		}
	}
	left := 0
	for _, id := range stocks {
		if r.measured(t, id) == "-" {
			left++
		}
	}
	if left != 2 {
		t.Fatalf("%d stocks left after the first run, want 2", left)
	}
	if n, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute)); n != 2 || err != nil || r.provider.Calls() != 5 {
		t.Fatalf("second run: %d %v, %d calls", n, err, r.provider.Calls())
	}
	for _, id := range stocks {
		if got := r.measured(t, id); got == "-" {
			t.Fatalf("%s still unmeasured", id)
		}
	}
}

// TestMeasureDueNoStarvation: positions whose provider keeps failing,
// closed before a good one and more than a run looks up, do not keep it
// waiting: a failed position is tried again only after the others.
func TestMeasureDueNoStarvation(t *testing.T) {
	r := newRig(t)
	r.svc.JobCalls = 3
	var failing []string
	for i := range 4 {
		at := entryAt.Add(-time.Duration(i+1) * time.Hour) // closed before the good one
		failing = append(failing, r.held(t, "stock", fmt.Sprintf("DOWN%d", i), at, at.Add(5*time.Minute)).ID)
	}
	good := r.closed(t, "stock", "AAPL")
	for run := 1; r.measured(t, good.ID) == "-"; run++ {
		if run > 2 {
			t.Fatalf("AAPL still unmeasured after %d runs", run-1)
		}
		if _, err := r.svc.MeasureDue(r.ctx, r.later(10*time.Minute)); err == nil {
			t.Fatalf("run %d: no failure reported", run)
		}
	}
	if got := r.measured(t, good.ID); got != "Alpaca" {
		t.Fatalf("AAPL measured from %q", got)
	}
	for _, id := range failing {
		if got := r.measured(t, id); got != "-" {
			t.Fatalf("failing %s marked %q", id, got)
		}
	}
}
