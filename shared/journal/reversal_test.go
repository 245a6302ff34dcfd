package journal

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestSplitFees(t *testing.T) {
	for _, c := range []struct{ fees, closed, qty, closing, opening string }{
		{"4", "25", "100", "1", "3"},
		{"1", "1", "3", "0.3333", "0.6667"},
		{"1", "2", "3", "0.6667", "0.3333"},
		{"0", "5", "7", "0", "0"},
		{"0.0001", "1", "2", "0.0001", "0"}, // half away from zero
	} {
		closing, opening := SplitFees(decimal.RequireFromString(c.fees), decimal.RequireFromString(c.closed), decimal.RequireFromString(c.qty))
		if !closing.Equal(decimal.RequireFromString(c.closing)) || !opening.Equal(decimal.RequireFromString(c.opening)) {
			t.Errorf("SplitFees(%s, %s/%s) = %s, %s; want %s, %s", c.fees, c.closed, c.qty, closing, opening, c.closing, c.opening)
		}
	}
}

// FuzzDerive: any run of executions derives into positions that Compute
// accepts, all closed but the last, each on the other side of the one
// before, whose parts add up to the executions; or an exit before any
// entry is refused. Each byte pair is a buy or sell of 1 to 128 units.
func FuzzDerive(f *testing.F) {
	for _, s := range []string{"\x05\x85", "\x05\x8a\x0a", "\x01\x81\x81\x01", "\x85", "\x10\x90\x90\x10\x10\x90\x90"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, b []byte, fee uint8) {
		if len(b) > 200 {
			return
		}
		at := time.Date(2024, 1, 2, 15, 0, 0, 0, time.UTC)
		execs := make([]Execution, len(b))
		for i, x := range b {
			execs[i] = Execution{Buy: x < 0x80, Price: decimal.NewFromInt(int64(100 + i%7)), Quantity: decimal.NewFromInt(int64(x&0x7f) + 1),
				Fees: decimal.New(int64(fee), -2), FilledAt: at.Add(time.Duration(i) * time.Minute), Ref: i}
		}
		segs, err := Derive(SideLong, execs)
		if err != nil {
			if len(b) == 0 || b[0] < 0x80 {
				t.Fatalf("refused a run that starts with a buy: %v", err)
			}
			return
		}
		qty := make([]decimal.Decimal, len(execs))
		fees := make([]decimal.Decimal, len(execs))
		for k, s := range segs {
			if k > 0 && s.Side == segs[k-1].Side {
				t.Fatalf("segment %d on the side of the one before", k)
			}
			fig, err := Compute(s.Trade(decimal.NewFromInt(1), nil, false))
			if err != nil {
				t.Fatalf("segment %d: %v", k, err)
			}
			if k < len(segs)-1 && fig.Status != StatusClosed {
				t.Fatalf("segment %d of %d is %s", k, len(segs), fig.Status)
			}
			for _, l := range s.Legs {
				qty[l.Ref] = qty[l.Ref].Add(l.Quantity)
				fees[l.Ref] = fees[l.Ref].Add(l.Fees)
			}
		}
		for i, e := range execs {
			if !qty[i].Equal(e.Quantity) || !fees[i].Equal(e.Fees) {
				t.Fatalf("execution %d: parts %s/%s of %s/%s", i, qty[i], fees[i], e.Quantity, e.Fees)
			}
		}
	})
}
