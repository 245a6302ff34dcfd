package tax

import "testing"

func TestIsSection1256(t *testing.T) {
	for _, c := range []struct {
		asset, underlying string
		want              bool
	}{
		{"future", "ES", true},
		{"future_option", "ES", true},
		{"option", "SPX", true},
		{"option", "SPXW", true},
		{"option", "NDX", true},
		{"option", "SPY", false}, // an ETF's options are equity options
		{"option", "AAPL", false},
		{"stock", "SPX", false},
	} {
		if got := IsSection1256(c.asset, c.underlying); got != c.want {
			t.Errorf("IsSection1256(%q, %q) = %v, want %v", c.asset, c.underlying, got, c.want)
		}
	}
}
