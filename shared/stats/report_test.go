package stats

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestCmpNet: the float shortcut orders what floats tell apart, and exact
// arithmetic decides what they do not.
func TestCmpNet(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.5", "2.5", -1},
		{"-3", "-2.9999", -1},
		{"10", "10.0000", 0},
		{"1000000000000.0002", "1000000000000.0001", 1}, // the same float64
		{"0.333333333333333333333333333334", "0.333333333333333333333333333333", 1},
		{"-0.0001", "0", -1},
		{"123456789012345678901234.5", "123456789012345678901234.4", 1}, // more than 18 digits
		{"5e-40", "4e-40", 1},
	} {
		x := bucketAgg{net: decimal.RequireFromString(tc.a)}
		y := bucketAgg{net: decimal.RequireFromString(tc.b)}
		x.approx, y.approx = approx(x.net), approx(y.net)
		if got := x.cmpNet(&y); got != tc.want {
			t.Errorf("cmpNet(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := y.cmpNet(&x); got != -tc.want {
			t.Errorf("cmpNet(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

// TestPercent: half up to 2 places, as decimal division rounds it.
func TestPercent(t *testing.T) {
	for n := int64(0); n <= 300; n++ {
		for _, d := range []int64{1, 3, 6, 7, 8, 16, 300, 997} {
			if n > d {
				continue
			}
			want := decimal.NewFromInt(n*100).DivRound(decimal.NewFromInt(d), 2).StringFixed(2)
			if got := *percent(n, d); got != want {
				t.Fatalf("percent(%d, %d) = %s, want %s", n, d, got, want)
			}
		}
	}
	if percent(0, 0) != nil {
		t.Fatal("percent of no trades must be null")
	}
}

func TestSumDays(t *testing.T) {
	b, err := SumDays([]DayBucket{{Date: "2024-01-02", Bucket: Bucket{Trades: 3, Wins: 2, Losses: 1, NetPnl: "10.5000"}},
		{Date: "2024-01-03", Bucket: Bucket{Trades: 1, Losses: 1, NetPnl: "-20.2500"}}})
	if err != nil || b.Trades != 4 || b.Wins != 2 || b.Losses != 2 || *b.WinRate != "50.00" || b.NetPnl != "-9.7500" {
		t.Fatalf("%+v %v", b, err)
	}
	b, _ = SumDays(nil)
	if b.Trades != 0 || b.WinRate != nil || b.NetPnl != "0.0000" {
		t.Fatalf("no days: %+v", b)
	}
	if _, err := SumDays([]DayBucket{{Bucket: Bucket{NetPnl: "x"}}}); err == nil {
		t.Fatal("a bad amount should fail")
	}
}
