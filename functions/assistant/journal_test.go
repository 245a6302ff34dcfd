package assistant

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"tradejournal/shared/stats"
)

// statisticsReport has more months, symbols and tags than the prompt
// keeps, with ties in trade counts, so the cuts and the order show.
func statisticsReport() stats.Report {
	rate := "50.00"
	blk := stats.Block{Currency: "USD", Summary: stats.Summary{Trades: 40, NetPnl: "12.50", GrossPnl: "20.00", Fees: "7.50", MaxDrawdown: "-3.00"}}
	for i, d := range []string{"2024-05-06", "2024-05-07", "2024-05-13", "not a date"} {
		blk.ByDay = append(blk.ByDay, stats.DayBucket{Date: d, Bucket: stats.Bucket{Trades: int64(i + 1), Wins: 1, NetPnl: fmt.Sprintf("%d.25", i)}})
	}
	for m := 1; m <= 14; m++ {
		blk.ByMonth = append(blk.ByMonth, stats.MonthBucket{Month: fmt.Sprintf("%d-%02d", 2023+(m-1)/12, (m-1)%12+1), Breakdown: stats.Breakdown{Bucket: stats.Bucket{Trades: int64(m), NetPnl: "1.00"}}})
	}
	for i := range 12 {
		blk.BySymbol = append(blk.BySymbol, stats.SymbolBucket{Symbol: fmt.Sprintf("SYM%02d", i), Breakdown: stats.Breakdown{Bucket: stats.Bucket{Trades: int64(i % 4), WinRate: &rate, NetPnl: "2.00"}}})
	}
	blk.ByTag = []stats.TagBucket{
		{Name: "short", Category: "setup", Breakdown: stats.Breakdown{Bucket: stats.Bucket{Trades: 1, NetPnl: "1.00"}}},
		{Name: strings.Repeat("a very long tag name ", 4), Category: "mistake", Breakdown: stats.Breakdown{Bucket: stats.Bucket{Trades: 3, WinRate: &rate, NetPnl: "-1.00"}}},
	}
	return stats.Report{ByCurrency: []stats.Block{blk}}
}

// The statistics lines are pinned to the letter: the prompt is what the
// model reads.
func TestWriteStatistics(t *testing.T) {
	var b strings.Builder
	writeStatistics(&b, statisticsReport())
	want, err := os.ReadFile("testdata/statistics.golden")
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("statistics:\n%s\nwant:\n%s", b.String(), want)
	}
}
