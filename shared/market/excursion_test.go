package market_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/market"
)

// bar is a hand-made bar at minute m after barsStart: open, high, low, close.
func bar(m int, o, h, l, c string) market.Bar {
	return market.Bar{Time: barsStart.Add(time.Duration(m) * time.Minute), Open: decimal.RequireFromString(o),
		High: decimal.RequireFromString(h), Low: decimal.RequireFromString(l), Close: decimal.RequireFromString(c)}
}

func dec(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

func at(m float64) time.Time { return barsStart.Add(time.Duration(m * float64(time.Minute))) }

// TestMeasure: MAE and MFE from hand-made 5-minute bars, worked by hand.
func TestMeasure(t *testing.T) {
	// 14:00 10 11.5 8 10.5    straddles an entry at 14:02:30
	// 14:05 10.5 12 10 11     inside
	// 14:10 11 11.2 9.8 10    inside
	// (14:15 missing: a gap)
	// 14:20 12 13 11.5 12.5   inside
	// 14:25 12.5 14 12.4 13   straddles an exit at 14:27
	bars := []market.Bar{
		bar(0, "10", "11.5", "8", "10.5"), bar(5, "10.5", "12", "10", "11"), bar(10, "11", "11.2", "9.8", "10"),
		bar(20, "12", "13", "11.5", "12.5"), bar(25, "12.5", "14", "12.4", "13"),
	}
	step := 5 * time.Minute
	for _, tc := range []struct {
		name         string
		trade        market.Trade
		mae, mfe     string
		hit          string
		ok           bool
		bars         []market.Bar
		barsOverride bool
	}{
		// The 14:00 bar's low of 8 may be before the entry: only its close
		// (10.5) counts; the 14:25 bar's high of 14 may be after the exit:
		// only its open (12.5). The fills 10.2 and 12.8 count. Low 9.8
		// (14:10), high 13 (14:20).
		{name: "Long", trade: market.Trade{Entry: at(2.5), Exit: at(27), FillPrices: []decimal.Decimal{*dec("10.2"), *dec("12.8")}},
			mae: "9.8", mfe: "13", ok: true},
		{name: "Short", trade: market.Trade{Short: true, Entry: at(2.5), Exit: at(27), FillPrices: []decimal.Decimal{*dec("10.2"), *dec("12.8")}},
			mae: "13", mfe: "9.8", ok: true},
		// A fill outside every bar's range widens it.
		{name: "FillBeyond", trade: market.Trade{Entry: at(2.5), Exit: at(27), FillPrices: []decimal.Decimal{*dec("9.5"), *dec("13.2")}},
			mae: "9.5", mfe: "13.2", ok: true},
		// Entry and exit inside the 14:05 bar: nothing of the bar is
		// attributable, only the fills.
		{name: "OneBar", trade: market.Trade{Entry: at(6), Exit: at(8), FillPrices: []decimal.Decimal{*dec("10.7"), *dec("11.1")}},
			mae: "10.7", mfe: "11.1", ok: true},
		// Held through the gap only: no bar overlaps the hold.
		{name: "InTheGap", trade: market.Trade{Entry: at(15.5), Exit: at(19), FillPrices: []decimal.Decimal{*dec("11")}}},
		// Stop 9.9 and target 12.9 of a long: the stop (9.8 at 14:10)
		// comes before the target (13 at 14:20).
		{name: "StopFirst", trade: market.Trade{Entry: at(2.5), Exit: at(27), Stop: dec("9.9"), Target: dec("12.9")},
			mae: "9.8", mfe: "13", hit: market.HitStop, ok: true},
		// Target 11.9: reached at 14:05 (high 12), before the stop.
		{name: "TargetFirst", trade: market.Trade{Entry: at(2.5), Exit: at(27), Stop: dec("9.9"), Target: dec("11.9")},
			mae: "9.8", mfe: "13", hit: market.HitTarget, ok: true},
		// One bar reaching both: the stop, the cautious reading.
		{name: "BothInOneBar", trade: market.Trade{Entry: at(5), Exit: at(27), Stop: dec("10"), Target: dec("12")},
			mae: "9.8", mfe: "13", hit: market.HitStop, ok: true},
		// A short's stop is above: 13.5 never reached; target 10 reached
		// at 14:10 (low 9.8).
		{name: "ShortTarget", trade: market.Trade{Short: true, Entry: at(2.5), Exit: at(27), Stop: dec("13.5"), Target: dec("10")},
			mae: "13", mfe: "9.8", hit: market.HitTarget, ok: true},
		// Neither reached.
		{name: "Neither", trade: market.Trade{Entry: at(2.5), Exit: at(27), Stop: dec("5"), Target: dec("20")},
			mae: "9.8", mfe: "13", ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, ok := market.Measure(tc.trade, bars, step)
			if ok != tc.ok {
				t.Fatalf("ok %v", ok)
			}
			if ok && (ex.MAE.String() != tc.mae || ex.MFE.String() != tc.mfe || ex.FirstHit != tc.hit) {
				t.Fatalf("MAE %s MFE %s hit %q", ex.MAE, ex.MFE, ex.FirstHit)
			}
		})
	}
}

// TestResample: 1-minute bars joined into 5-minute ones.
func TestResample(t *testing.T) {
	got := market.Resample([]market.Bar{bar(0, "10", "11", "9", "10.5"), bar(1, "10.5", "12", "10", "11"), bar(4, "11", "11", "8", "9"),
		bar(5, "9", "9.5", "8.5", "9.2")}, 5*time.Minute)
	if len(got) != 2 || got[0].Open.String() != "10" || got[0].High.String() != "12" || got[0].Low.String() != "8" ||
		got[0].Close.String() != "9" || !got[1].Time.Equal(barsStart.Add(5*time.Minute)) {
		t.Fatalf("%+v", got)
	}
}
