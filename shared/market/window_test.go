package market_test

import (
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/market"
)

func TestParseResolution(t *testing.T) {
	for _, r := range market.Resolutions {
		if got, ok := market.ParseResolution(r.Code); !ok || got != r {
			t.Errorf("%s: %v %v", r.Code, got, ok)
		}
	}
	for _, code := range []string{"", "2", "d", "M", "60 ", "1m"} {
		if _, ok := market.ParseResolution(code); ok {
			t.Errorf("%q was accepted", code)
		}
	}
}

func TestHoldWindow(t *testing.T) {
	// A 40-minute hold the trader asks at 5 minutes: 20 bars of margin (100 minutes) each side.
	w := market.HoldWindow(barsStart, barsStart.Add(40*time.Minute), market.Resolutions[1])
	if w.Resolution.Code != "5" || !w.From.Equal(barsStart.Add(-100*time.Minute)) || !w.To.Equal(barsStart.Add(140*time.Minute)) {
		t.Errorf("%s %v %v", w.Resolution.Code, w.From, w.To)
	}
	// WindowFor is HoldWindow at the resolution it picks.
	if got, want := market.WindowFor(barsStart, barsStart.Add(6*time.Hour)), market.HoldWindow(barsStart, barsStart.Add(6*time.Hour), market.Resolutions[1]); got != want {
		t.Errorf("%v != %v", got, want)
	}
}

func TestSessionWindow(t *testing.T) {
	day := 24 * time.Hour
	midnight := time.Date(2025, 6, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name      string
		open, end time.Time
		res       *market.Resolution
		code      string
		from, to  time.Time
		zone      string // the trader's; UTC when empty
	}{
		// 40 minutes on one day: that day and the one before, 48 hours, at 15 minutes (192 bars).
		{"intraday", barsStart, barsStart.Add(40 * time.Minute), nil, "15", midnight.Add(-day), midnight.Add(day), ""},
		// Overnight: three days, at 15 minutes (288 bars).
		{"overnight", barsStart, barsStart.Add(20 * time.Hour), nil, "15", midnight.Add(-day), midnight.Add(2 * day), ""},
		// Held 30 days (to July 2, 14:00): 32 days, daily (768 hourly bars are too many).
		{"month", barsStart, barsStart.Add(30 * day), nil, "D", midnight.Add(-day), midnight.Add(31 * day), ""},
		// The trader's resolution is kept.
		{"chosen", barsStart, barsStart.Add(40 * time.Minute), &market.Resolutions[1], "5", midnight.Add(-day), midnight.Add(day), ""},
		// An open in another zone's evening is the trader's day of the instant.
		{"zone", time.Date(2025, 6, 2, 23, 30, 0, 0, time.FixedZone("NY", -4*3600)), time.Date(2025, 6, 3, 3, 45, 0, 0, time.UTC), nil, "15", midnight, midnight.Add(2 * day), ""},
		// Los Angeles' evening of June 2 (17:30 PDT) is June 3 in UTC: the
		// session is its June 1 and 2, 07:00 UTC to 07:00 UTC.
		{"losAngeles", time.Date(2025, 6, 3, 0, 30, 0, 0, time.UTC), time.Date(2025, 6, 3, 0, 50, 0, 0, time.UTC), nil, "15",
			midnight.Add(-day + 7*time.Hour), midnight.Add(day + 7*time.Hour), "America/Los_Angeles"},
		// Tokyo's morning of June 3 (08:30 JST) is June 2 in UTC: its June 2
		// and 3, 15:00 UTC to 15:00 UTC.
		{"tokyo", time.Date(2025, 6, 2, 23, 30, 0, 0, time.UTC), time.Date(2025, 6, 2, 23, 50, 0, 0, time.UTC), nil, "15",
			midnight.Add(-9 * time.Hour), midnight.Add(2*day - 9*time.Hour), "Asia/Tokyo"},
		// A daylight-saving change inside the days (New York, March 9 2025:
		// a 23-hour day): still whole local days.
		{"dst", time.Date(2025, 3, 9, 15, 0, 0, 0, time.UTC), time.Date(2025, 3, 9, 15, 20, 0, 0, time.UTC), nil, "15",
			time.Date(2025, 3, 8, 5, 0, 0, 0, time.UTC), time.Date(2025, 3, 10, 4, 0, 0, 0, time.UTC), "America/New_York"},
	} {
		loc := time.UTC
		if tc.zone != "" {
			var err error
			if loc, err = time.LoadLocation(tc.zone); err != nil {
				t.Fatal(err)
			}
		}
		w := market.SessionWindow(tc.open, tc.end, tc.res, loc)
		if w.Resolution.Code != tc.code || !w.From.Equal(tc.from) || !w.To.Equal(tc.to) {
			t.Errorf("%s: %s %v %v", tc.name, w.Resolution.Code, w.From, w.To)
		}
		if err := w.CheckSize(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestCheckSize(t *testing.T) {
	// A week's hold at 1 minute, with half a week of margin each side, is 20160 bars:
	// refused, naming the finest that fits (5: 4032, 15: 1344).
	w := market.HoldWindow(barsStart, barsStart.Add(7*24*time.Hour), market.Resolutions[0])
	err := w.CheckSize()
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.Validation || len(e.Details) != 1 || e.Details[0].Field != "resolution" {
		t.Fatalf("%v", err)
	}
	if want := "is too fine for this span: 20160 bars, at most 2000; choose 15 or coarser"; e.Details[0].Message != want {
		t.Errorf("%q", e.Details[0].Message)
	}
	// Exactly at the bound passes.
	w = market.Window{Resolution: market.Resolutions[0], From: barsStart, To: barsStart.Add(2000 * time.Minute)}
	if err := w.CheckSize(); err != nil || w.Bars() != 2000 {
		t.Errorf("%d bars: %v", w.Bars(), err)
	}
}
