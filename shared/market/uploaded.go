package market

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
)

// SourceUploaded names uploaded bars as a source of excursions.
const SourceUploaded = "uploaded"

// Upload is what a user's bars of one symbol are: their length, count and
// span.
type Upload struct {
	Symbol      string    `json:"symbol"`
	StepSeconds int64     `json:"stepSeconds"`
	BarCount    int       `json:"barCount"`
	FirstAt     time.Time `json:"firstAt"`
	LastAt      time.Time `json:"lastAt"`
	UploadedAt  time.Time `json:"uploadedAt"`
}

// Uploaded are a user's uploaded bars of a symbol around a trade.
type Uploaded struct {
	// Bars are the bars as uploaded, of length Step: excursions are
	// measured from them.
	Bars []Bar
	Step time.Duration
	// Shown are Bars joined into Window's resolution, the chart's.
	Shown  []Bar
	Window Window
}

// UploadedBars returns the user's uploaded bars of symbol in w, and the
// bars shown of them: in w, or, when the upload's bars are coarser than
// w's, in w widened by 20 bars each side at the finest resolution they
// join into whole (uploadResolution). ok is false when the user has no
// bars of symbol.
func UploadedBars(ctx context.Context, q db.Querier, userID, symbol string, w Window) (up Uploaded, ok bool, err error) {
	const stepQ = `SELECT step_seconds FROM bar_uploads WHERE user_id = $1 AND symbol = $2`
	var secs int64
	if err := q.QueryRow(ctx, stepQ, userID, symbol).Scan(&secs); err != nil {
		if err == pgx.ErrNoRows {
			return up, false, nil
		}
		return up, false, db.Classify(err)
	}
	up.Step = time.Duration(secs) * time.Second
	res := uploadResolution(up.Step, w.Resolution.Step)
	if res.Step > w.Resolution.Step {
		pad := 20 * res.Step
		w = Window{Resolution: res, From: w.From.Add(-pad).Truncate(res.Step), To: w.To.Add(pad + res.Step - 1).Truncate(res.Step)}
	}
	up.Window = w
	const barsQ = `SELECT at, open, high, low, close, volume FROM uploaded_bars
		WHERE user_id = $1 AND symbol = $2 AND at >= $3 AND at <= $4 ORDER BY at`
	rows, err := q.Query(ctx, barsQ, userID, symbol, w.From, w.To)
	if err != nil {
		return up, false, db.Classify(err)
	}
	var b Bar
	_, err = pgx.ForEachRow(rows, []any{&b.Time, &b.Open, &b.High, &b.Low, &b.Close, &b.Volume}, func() error {
		b.Time = b.Time.UTC()
		up.Bars = append(up.Bars, b)
		return nil
	})
	if err != nil {
		return up, false, db.Classify(err)
	}
	up.Bars, up.Shown = orEmpty(up.Bars), up.Bars
	if res.Step > up.Step {
		up.Shown = Resample(up.Bars, res.Step)
	}
	up.Shown = orEmpty(up.Shown)
	return up, true, nil
}

// uploadResolution is the finest resolution at least as coarse as atLeast
// that bars of length step join into whole: a multiple of step, so no
// joined bar holds part of a bar beyond its end (every length
// ParseBarsCSV takes divides a week, so the week is one).
func uploadResolution(step, atLeast time.Duration) Resolution {
	return finest(func(r Resolution) bool { return r.Step >= max(step, atLeast) && r.Step%step == 0 })
}

// Resample joins bars (oldest first) into bars of length step, a multiple
// of theirs, each starting on a multiple of step since Go's zero time
// (weeks on Mondays): the first open, the highest high, the lowest low,
// the last close, the volumes summed.
func Resample(bars []Bar, step time.Duration) []Bar {
	var out []Bar
	for _, b := range bars {
		start := b.Time.Truncate(step)
		if n := len(out); n > 0 && out[n-1].Time.Equal(start) {
			o := &out[n-1]
			if b.High.GreaterThan(o.High) {
				o.High = b.High
			}
			if b.Low.LessThan(o.Low) {
				o.Low = b.Low
			}
			o.Close, o.Volume = b.Close, o.Volume.Add(b.Volume)
			continue
		}
		b.Time = start
		out = append(out, b)
	}
	return out
}
