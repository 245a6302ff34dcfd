package journal

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

// tradeFromBytes decodes fuzz input into a trade: a header byte (side,
// option, stop) and 9 bytes per fill (type, price, quantity, fees, time
// offset), so the fuzzer reaches exits before entries, oversized exits,
// ties in time, zero and negative values.
func tradeFromBytes(data []byte) Trade {
	t := Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1)}
	if len(data) == 0 {
		return t
	}
	h := data[0]
	data = data[1:]
	if h&1 != 0 {
		t.Side = SideShort
	}
	if h&2 != 0 {
		t.Multiplier = decimal.NewFromInt(instrument.OptionMultiplier)
	}
	if h&4 != 0 {
		stop := decimal.New(int64(h>>3)+1, -1)
		t.StopLoss = &stop
	}
	for len(data) >= 9 && len(t.Fills) < 64 {
		b := data[:9]
		data = data[9:]
		f := Fill{ID: "f", Type: FillEntry}
		if b[0]&1 != 0 {
			f.Type = FillExit
		}
		if b[0]&0x80 != 0 {
			f.Type = "junk"
		}
		// Prices and quantities with up to 8 places, occasionally zero or
		// negative; fees occasionally negative.
		f.Price = decimal.New(int64(int16(binary.BigEndian.Uint16(b[1:3]))), -int32(b[0]>>1&7))
		f.Quantity = decimal.New(int64(int16(binary.BigEndian.Uint16(b[3:5]))), -int32(b[0]>>4&7))
		f.Fees = decimal.New(int64(int8(b[5])), -2)
		f.FilledAt = t0.Add(time.Duration(binary.BigEndian.Uint16(b[6:8])%512) * time.Minute)
		if b[8]&1 != 0 {
			f.FilledAt = f.FilledAt.Add(time.Nanosecond * time.Duration(b[8]))
		}
		t.Fills = append(t.Fills, f)
	}
	return t
}

// FuzzCompute holds Compute to its invariants on any fills: it never
// panics; an accepted trade has open = entry - exit >= 0, net = gross -
// fees, realised amounts summing to gross, a status that matches the
// quantities, and a closed trade's gross exactly its exit value minus its
// entry value (x multiplier, signed by side, 4 places).
func FuzzCompute(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{4, 0, 0, 100, 0, 10, 0, 0, 0, 0, 1, 0, 120, 0, 10, 0, 0, 1, 0})
	f.Add([]byte{3, 0, 0, 150, 0, 2, 5, 0, 0, 0, 1, 0, 200, 0, 1, 5, 0, 2, 0, 1, 0, 200, 0, 1, 5, 0, 3, 0})
	f.Add([]byte{1, 1, 0, 100, 0, 10, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 100, 0, 3, 0, 0, 0, 0, 0, 0, 101, 0, 6, 0, 0, 1, 0, 1, 0, 110, 0, 1, 0, 0, 2, 0, 1, 0, 110, 0, 8, 0, 0, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		trade := tradeFromBytes(data)
		fig, err := Compute(trade)
		if err != nil {
			var fe *FillError
			if errors.As(err, &fe) && (fe.Index < 0 || fe.Index >= len(trade.Fills) || fe.Message == "" || fe.Field == "") {
				t.Fatalf("FillError without a fill: %+v", fe)
			}
			return
		}
		if !fig.OpenQuantity.Equal(fig.EntryQuantity.Sub(fig.ExitQuantity)) {
			t.Fatalf("open %s != entry %s - exit %s", fig.OpenQuantity, fig.EntryQuantity, fig.ExitQuantity)
		}
		if fig.OpenQuantity.IsNegative() {
			t.Fatalf("open %s < 0", fig.OpenQuantity)
		}
		if !fig.NetPnL.Equal(fig.GrossPnL.Sub(fig.Fees)) {
			t.Fatalf("net %s != gross %s - fees %s", fig.NetPnL, fig.GrossPnL, fig.Fees)
		}
		var sum, fees, entryValue, exitValue decimal.Decimal
		for i, r := range fig.Realized {
			sum = sum.Add(r)
			fl := trade.Fills[i]
			fees = fees.Add(fl.Fees)
			if fl.Type == FillEntry {
				entryValue = entryValue.Add(fl.Price.Mul(fl.Quantity))
				if !r.IsZero() {
					t.Fatalf("entry %d realised %s", i, r)
				}
			} else {
				exitValue = exitValue.Add(fl.Price.Mul(fl.Quantity))
			}
		}
		if !sum.Equal(fig.GrossPnL) {
			t.Fatalf("realised sum %s != gross %s", sum, fig.GrossPnL)
		}
		if !fees.Equal(fig.Fees) {
			t.Fatalf("fees %s != %s", fig.Fees, fees)
		}
		switch fig.Status {
		case StatusDraft:
			if len(trade.Fills) != 0 {
				t.Fatal("draft with fills")
			}
		case StatusOpen:
			if !fig.OpenQuantity.IsPositive() || fig.ClosedAt != nil || fig.RMultiple != nil {
				t.Fatalf("open with %s open, closedAt %v", fig.OpenQuantity, fig.ClosedAt)
			}
		case StatusClosed:
			if !fig.OpenQuantity.IsZero() || fig.ClosedAt == nil || fig.OpenedAt == nil || fig.ClosedAt.Before(*fig.OpenedAt) {
				t.Fatalf("closed with %s open, %v..%v", fig.OpenQuantity, fig.OpenedAt, fig.ClosedAt)
			}
			exact := exitValue.Sub(entryValue).Mul(trade.Multiplier)
			if trade.Side == SideShort {
				exact = exact.Neg()
			}
			if !fig.GrossPnL.Equal(exact.Round(4)) {
				t.Fatalf("closed gross %s != exact %s", fig.GrossPnL, exact)
			}
		default:
			t.Fatalf("status %q", fig.Status)
		}
		if len(trade.Fills) > 0 && fig.OpenedAt == nil {
			t.Fatal("no openedAt")
		}
	})
}
