package market

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// Bar is one price bar: the open, high, low and close of the interval that
// starts at Time (decimal strings), and its volume.
type Bar struct {
	Time   time.Time       `json:"time"`
	Open   decimal.Decimal `json:"open"`
	High   decimal.Decimal `json:"high"`
	Low    decimal.Decimal `json:"low"`
	Close  decimal.Decimal `json:"close"`
	Volume decimal.Decimal `json:"volume"`
}

// Resolution is a bar length the provider serves: Code is its name there.
type Resolution struct {
	Code string
	Step time.Duration
}

// Resolutions are the provider's bar lengths, finest first.
var Resolutions = []Resolution{
	{"1", time.Minute}, {"5", 5 * time.Minute}, {"15", 15 * time.Minute}, {"30", 30 * time.Minute},
	{"60", time.Hour}, {"D", 24 * time.Hour}, {"W", 7 * 24 * time.Hour},
}

// barsPerHold is how many bars at most a holding period spans at the
// resolution chosen for it: enough to see the trade, few enough for one
// small provider answer.
const barsPerHold = 120

// maxBars bounds the bars read from one answer.
const maxBars = 2000

// Window is the span of bars shown around a trade.
type Window struct {
	Resolution Resolution
	From, To   time.Time
}

// WindowFor picks the bars shown around a trade held from open to end: the
// finest resolution that shows the hold in at most barsPerHold bars (weekly
// past that), and a margin of half the hold, at least 20 bars, on each
// side. The ends fall on whole bars, so every look-up of a trade within one
// bar asks for the same bars (and an open trade's shares the cache).
func WindowFor(open, end time.Time) Window {
	hold := max(end.Sub(open), 0)
	return HoldWindow(open, end, finest(func(r Resolution) bool { return hold/r.Step <= barsPerHold }))
}

type providerBars struct {
	S string            `json:"s"`
	T []json.RawMessage `json:"t"`
	O []json.RawMessage `json:"o"`
	H []json.RawMessage `json:"h"`
	L []json.RawMessage `json:"l"`
	C []json.RawMessage `json:"c"`
	V []json.RawMessage `json:"v"`
}

// parseBars reads Finnhub's candle answer, refusing anything that is not
// whole: columns of unequal length, a time that is not one, a value that
// is not a number, and bars CheckBars refuses.
func parseBars(body []byte) ([]Bar, error) {
	var p providerBars
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, errors.New("answer is not the expected JSON object")
	}
	switch p.S {
	case "no_data":
		return []Bar{}, nil
	case "ok":
	default:
		return nil, fmt.Errorf("status %q", p.S)
	}
	n := len(p.T)
	if len(p.O) != n || len(p.H) != n || len(p.L) != n || len(p.C) != n || len(p.V) != n {
		return nil, errors.New("columns of unequal length")
	}
	if n > maxBars {
		return nil, fmt.Errorf("%d bars", n)
	}
	bars := make([]Bar, n)
	for i := range n {
		t, ok := number(p.T[i])
		if !ok {
			return nil, fmt.Errorf("t[%d] is not a number", i)
		}
		unix, err := strconv.ParseInt(t.String(), 10, 64)
		if err != nil || unix <= 0 || unix > 1<<40 {
			return nil, fmt.Errorf("t[%d] is not a time", i)
		}
		bars[i].Time = time.Unix(unix, 0).UTC()
		if err := readOHLCV(&bars[i], p.O[i], p.H[i], p.L[i], p.C[i], p.V[i]); err != nil {
			return nil, err
		}
	}
	if err := CheckBars(bars, maxBars); err != nil {
		return nil, err
	}
	return bars, nil
}
