package market_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/market"
)

var newYork, _ = time.LoadLocation("America/New_York")

func TestParseBarsCSV(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		n          int
		step       time.Duration
		first      time.Time
	}{
		{"ISO", "time,open,high,low,close,volume\n2025-06-02T14:00:00Z,10,11,9,10.5,100\n2025-06-02T14:01:00Z,10.5,11,10,10.8,50\n",
			2, time.Minute, barsStart},
		// NinjaTrader-style: semicolons, a zoneless time read in the zone,
		// newest first.
		{"Semicolons", "Date Time;Open;High;Low;Close;Volume\n2025-06-02 10:05:00;10;11;9;10;1\n2025-06-02 10:00:00;10;11;9;10;1\n",
			2, 5 * time.Minute, barsStart},
		// MetaTrader's export: separate <DATE> and <TIME>, tab-separated, no volume column read.
		{"MetaTrader", "<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\n2025.06.02\t10:00:00\t1.1\t1.2\t1.0\t1.15\t300\n2025.06.02\t11:00:00\t1.15\t1.2\t1.1\t1.12\t200\n",
			2, time.Hour, barsStart},
		{"DailyNoVolume", "\ufeffDate,Open,High,Low,Close\n2025-06-02,10,11,9,10\n2025-06-03,10,11,9,10\n\n2025-06-05,10,11,9,10\n",
			3, 24 * time.Hour, time.Date(2025, 6, 2, 4, 0, 0, 0, time.UTC)},
		// A European export: semicolons, decimal commas.
		{"DecimalCommas", "Time;Open;High;Low;Close;Volume\n2025-06-02 10:00;101,25;102,5;100,75;101;1200\n2025-06-02 10:01;101;101,5;100;100,5;800\n",
			2, time.Minute, barsStart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bars, step, err := market.ParseBarsCSV([]byte(tc.file), newYork)
			if err != nil || len(bars) != tc.n || step != tc.step || !bars[0].Time.Equal(tc.first) {
				t.Fatalf("%d bars of %v from %v: %v", len(bars), step, bars, err)
			}
		})
	}
}

// TestParseBarsCSVDecimalCommas: a file separated by semicolons reads a
// decimal comma as the point; one separated by commas does not (a quoted
// "101,25" there is refused, not read as 10125).
func TestParseBarsCSVDecimalCommas(t *testing.T) {
	bars, _, err := market.ParseBarsCSV([]byte("Time;Open;High;Low;Close;Volume\n2025-06-02 10:00;101,25;102,5;100,75;101;1200\n"), newYork)
	if err != nil || bars[0].Open.String() != "101.25" || bars[0].High.String() != "102.5" || bars[0].Low.String() != "100.75" ||
		bars[0].Close.String() != "101" || bars[0].Volume.String() != "1200" {
		t.Fatalf("%+v %v", bars, err)
	}
	_, _, err = market.ParseBarsCSV([]byte("time,open,high,low,close\n2025-06-02 10:00,\"101,25\",102,100,101\n"), newYork)
	if err == nil || !strings.Contains(err.Error(), `the open "101,25" is not a number (write it with a point for decimals`) {
		t.Fatalf("comma-separated: %v", err)
	}
}

// TestParseBarsCSVRefused: every refusal is a 400 on "file" naming the
// line and what to do.
func TestParseBarsCSVRefused(t *testing.T) {
	const head = "time,open,high,low,close\n"
	for _, tc := range []struct{ file, words string }{
		{"", "is empty"},
		{"a,b,c\n1,2,3\n", "line 1: no time column"},
		{"time,open,high,low\n2025-06-02 10:00,1,1,1\n", "line 1: no close column"},
		{head, "no bars"},
		{head + "2025-06-02 10:00,1,1,1,1\nyesterday,1,1,1,1\n", `line 3: "yesterday" is not a time`},
		{head + "2025-06-02 10:00,1,2,3,1\n", "line 2: the high 2 is below the low 3"},
		{head + "2025-06-02 10:00,1,1,1,1\n2025-06-02 10:00,1,1,1,1\n", "line 3: a second bar at 2025-06-02T14:00:00Z (the first is on line 2)"},
		{head + "2025-06-02 10:00,1,1,1,0\n", "line 2: the close 0 must be positive"},
		{head + "2025-06-02 10:00,1,1,1,\"1\n", "line 2: is not a well-formed CSV row"},
		{head + "2025-06-02 10:00,1,1,1,1e3\n", "line 2: the close \"1e3\" is not a number"},
		{head + "2025-06-02 10:00,3,2,1,1.5\n", "line 2: the open or close is above the high"},
		{head + "2025-06-02 10:00:00,1,1,1,1\n2025-06-02 10:00:30,1,1,1,1\n", "30s apart"},
		{"time;open;high;low;close\n2025-06-02 10:00;1.234,5;1300;1200;1250\n", `line 2: the open "1.234,5" is not a number (write it as 101.25 or 101,25, without a thousands separator)`},
		{head + "2025-06-02 10:00:00,1,1,1,1\n2025-06-02 10:11:00,1,1,1,1\n", "11m0s apart at the closest: bars are whole minutes apart and a whole number of them make a week"},
	} {
		_, _, err := market.ParseBarsCSV([]byte(tc.file), newYork)
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Validation || len(e.Details) != 1 || e.Details[0].Field != "file" || !strings.Contains(e.Details[0].Message, tc.words) {
			t.Errorf("%q: %v", tc.file, err)
		}
	}
	var many strings.Builder
	many.WriteString(head)
	for i := range market.MaxUploadRows + 1 {
		many.WriteString(barsStart.Add(time.Duration(i) * time.Minute).Format(time.RFC3339))
		many.WriteString(",1,1,1,1\n")
	}
	if _, _, err := market.ParseBarsCSV([]byte(many.String()), time.UTC); err == nil || !strings.Contains(err.Error(), "more than 100000 bars") {
		t.Fatalf("too many: %v", err)
	}
}

// FuzzParseBarsCSV holds the bars file parser: it never panics, refuses
// with a 400 on "file", and what it accepts is whole (positive prices,
// open and close within high and low, times rising, a step of whole
// minutes). The seeds are kept under testdata/barscsv.
func FuzzParseBarsCSV(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/barscsv/*.csv")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bars, step, err := market.ParseBarsCSV(data, newYork)
		if err != nil {
			if e, ok := apperr.As(err); !ok || e.Code != apperr.Validation || e.Details[0].Field != "file" {
				t.Fatalf("error %v", err)
			}
			return
		}
		if len(bars) == 0 || step <= 0 || step%time.Minute != 0 {
			t.Fatalf("%d bars of %v", len(bars), step)
		}
		for i, b := range bars {
			if !b.Low.IsPositive() || b.High.LessThan(b.Open) || b.High.LessThan(b.Close) || b.Low.GreaterThan(b.Open) ||
				b.Low.GreaterThan(b.Close) || b.Volume.IsNegative() || i > 0 && !b.Time.After(bars[i-1].Time) {
				t.Fatalf("accepted bar %d %+v", i, b)
			}
		}
	})
}
