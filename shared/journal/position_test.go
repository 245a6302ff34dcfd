package journal

import (
	"errors"
	"strings"
	"testing"
	"time"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

var t0 = time.Date(2024, 1, 19, 14, 30, 0, 0, time.UTC)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }
func dp(s string) *decimal.Decimal {
	v := d(s)
	return &v
}

// fill builds a fill at t0 + minutes.
func fill(typ, price, qty, fees string, minutes int) Fill {
	return Fill{ID: typ + "-" + price + "-" + qty, Type: typ, Price: d(price), Quantity: d(qty), Fees: d(fees),
		FilledAt: t0.Add(time.Duration(minutes) * time.Minute)}
}

func TestCompute(t *testing.T) {
	type want struct {
		status               string
		entry, exit, open    string
		avgEntry, avgExit    string // "" for nil
		gross, fees, net     string
		risk, r              string // "" for nil
		realized             []string
		openedMin, closedMin int // minutes after t0; closedMin -1 for nil
	}
	cases := []struct {
		name  string
		trade Trade
		want  want
	}{
		{
			name: "LongRoundTrip",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), StopLoss: dp("9"), Fills: []Fill{
				fill(FillEntry, "10", "100", "1", 0), fill(FillExit, "12", "100", "1", 60)}},
			want: want{status: StatusClosed, entry: "100", exit: "100", open: "0", avgEntry: "10", avgExit: "12",
				gross: "200", fees: "2", net: "198", risk: "100", r: "1.98", realized: []string{"0", "200"}, closedMin: 60},
		},
		{
			name: "ShortWinner",
			trade: Trade{Side: SideShort, Multiplier: decimal.NewFromInt(1), StopLoss: dp("52"), Fills: []Fill{
				fill(FillEntry, "50", "100", "0", 0), fill(FillExit, "45", "100", "0", 30)}},
			want: want{status: StatusClosed, entry: "100", exit: "100", open: "0", avgEntry: "50", avgExit: "45",
				gross: "500", fees: "0", net: "500", risk: "200", r: "2.5", realized: []string{"0", "500"}, closedMin: 30},
		},
		{
			name: "ShortLoserNegativeR",
			trade: Trade{Side: SideShort, Multiplier: decimal.NewFromInt(1), StopLoss: dp("52"), Fills: []Fill{
				fill(FillEntry, "50", "100", "1", 0), fill(FillExit, "52.5", "100", "1", 30)}},
			want: want{status: StatusClosed, entry: "100", exit: "100", open: "0", avgEntry: "50", avgExit: "52.5",
				gross: "-250", fees: "2", net: "-252", risk: "200", r: "-1.26", realized: []string{"0", "-250"}, closedMin: 30},
		},
		{
			name: "PartialExitStaysOpen",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), StopLoss: dp("9.5"), Fills: []Fill{
				fill(FillEntry, "10", "100", "0", 0), fill(FillExit, "11", "40", "0.5", 10)}},
			want: want{status: StatusOpen, entry: "100", exit: "40", open: "60", avgEntry: "10", avgExit: "11",
				gross: "40", fees: "0.5", net: "39.5", risk: "50", realized: []string{"0", "40"}, closedMin: -1},
		},
		{
			name: "ScaleInAfterPartialExit",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
				fill(FillEntry, "10", "100", "0", 0), fill(FillExit, "12", "50", "0", 10),
				fill(FillEntry, "14", "50", "0", 20), fill(FillExit, "15", "100", "0", 30)}},
			// After the partial exit 50 remain at 10; adding 50 at 14 averages 12.
			want: want{status: StatusClosed, entry: "150", exit: "150", open: "0", avgEntry: "11.3333333333", avgExit: "14",
				gross: "400", fees: "0", net: "400", realized: []string{"0", "100", "0", "300"}, closedMin: 30},
		},
		{
			name: "MultiDayHold",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
				fill(FillEntry, "20", "10", "0", 0), fill(FillExit, "21", "5", "0", 3*24*60), fill(FillExit, "22", "5", "0", 7*24*60)}},
			want: want{status: StatusClosed, entry: "10", exit: "10", open: "0", avgEntry: "20", avgExit: "21.5",
				gross: "15", fees: "0", net: "15", realized: []string{"0", "5", "10"}, closedMin: 7 * 24 * 60},
		},
		{
			name: "OptionContractsTimes100",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(instrument.OptionMultiplier), StopLoss: dp("1"), Fills: []Fill{
				fill(FillEntry, "1.50", "2", "1.30", 0), fill(FillExit, "2.25", "2", "1.30", 90)}},
			want: want{status: StatusClosed, entry: "2", exit: "2", open: "0", avgEntry: "1.5", avgExit: "2.25",
				gross: "150", fees: "2.6", net: "147.4", risk: "100", r: "1.474", realized: []string{"0", "150"}, closedMin: 90},
		},
		{
			name: "RepeatingAverageNoDrift",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
				fill(FillEntry, "10", "1", "0", 0), fill(FillEntry, "10.01", "2", "0", 1),
				fill(FillExit, "11", "1", "0", 2), fill(FillExit, "11", "2", "0", 3)}},
			// Cost 30.02 for 3; the first exit removes a third (10.00666...),
			// realising 0.9933 rounded; the closing exit takes the rest, and
			// the total is exactly 33 - 30.02.
			want: want{status: StatusClosed, entry: "3", exit: "3", open: "0", avgEntry: "10.0066666667", avgExit: "11",
				gross: "2.98", fees: "0", net: "2.98", realized: []string{"0", "0", "0.9933", "1.9867"}, closedMin: 3},
		},
		{
			name: "InputOrderIsNotTimeOrder",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
				fill(FillExit, "12", "100", "0", 60), fill(FillEntry, "10", "100", "0", 0)}},
			want: want{status: StatusClosed, entry: "100", exit: "100", open: "0", avgEntry: "10", avgExit: "12",
				gross: "200", fees: "0", net: "200", realized: []string{"200", "0"}, closedMin: 60},
		},
		{
			name: "SameInstantEntryBeforeExit",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
				fill(FillExit, "10.5", "10", "0", 5), fill(FillEntry, "10", "10", "0", 5)}},
			want: want{status: StatusClosed, entry: "10", exit: "10", open: "0", avgEntry: "10", avgExit: "10.5",
				gross: "5", fees: "0", net: "5", realized: []string{"5", "0"}, openedMin: 5, closedMin: 5},
		},
		{
			name: "StopAtEntryHasNoR",
			trade: Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), StopLoss: dp("10"), Fills: []Fill{
				fill(FillEntry, "10", "10", "0", 0), fill(FillExit, "11", "10", "0", 5)}},
			want: want{status: StatusClosed, entry: "10", exit: "10", open: "0", avgEntry: "10", avgExit: "11",
				gross: "10", fees: "0", net: "10", risk: "0", realized: []string{"0", "10"}, closedMin: 5},
		},
		{
			name:  "Draft",
			trade: Trade{Side: SideShort, Multiplier: decimal.NewFromInt(1), StopLoss: dp("5")},
			want: want{status: StatusDraft, entry: "0", exit: "0", open: "0", gross: "0", fees: "0", net: "0",
				realized: []string{}, openedMin: -1, closedMin: -1},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Compute(tc.trade)
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			eq := func(name string, got decimal.Decimal, want string) {
				t.Helper()
				if !got.Equal(d(want)) {
					t.Errorf("%s = %s, want %s", name, got, want)
				}
			}
			opt := func(name string, got *decimal.Decimal, want string) {
				t.Helper()
				switch {
				case want == "" && got != nil:
					t.Errorf("%s = %s, want nil", name, got)
				case want != "" && got == nil:
					t.Errorf("%s = nil, want %s", name, want)
				case want != "":
					eq(name, *got, want)
				}
			}
			if f.Status != w.status {
				t.Errorf("status %s, want %s", f.Status, w.status)
			}
			eq("entry", f.EntryQuantity, w.entry)
			eq("exit", f.ExitQuantity, w.exit)
			eq("open", f.OpenQuantity, w.open)
			opt("avgEntry", f.AvgEntryPrice, w.avgEntry)
			opt("avgExit", f.AvgExitPrice, w.avgExit)
			eq("gross", f.GrossPnL, w.gross)
			eq("fees", f.Fees, w.fees)
			eq("net", f.NetPnL, w.net)
			opt("initialRisk", f.InitialRisk, w.risk)
			opt("rMultiple", f.RMultiple, w.r)
			if len(f.Realized) != len(w.realized) {
				t.Fatalf("realized %v, want %v", f.Realized, w.realized)
			}
			for i := range w.realized {
				eq("realized", f.Realized[i], w.realized[i])
			}
			switch {
			case w.openedMin < 0 && f.OpenedAt != nil, w.openedMin >= 0 && (f.OpenedAt == nil || !f.OpenedAt.Equal(t0.Add(time.Duration(w.openedMin)*time.Minute))):
				t.Errorf("openedAt %v, want t0+%dm", f.OpenedAt, w.openedMin)
			case w.closedMin < 0 && f.ClosedAt != nil, w.closedMin >= 0 && (f.ClosedAt == nil || !f.ClosedAt.Equal(t0.Add(time.Duration(w.closedMin)*time.Minute))):
				t.Errorf("closedAt %v, want t0+%dm", f.ClosedAt, w.closedMin)
			}
			// Money figures always carry 4 places.
			if got := f.GrossPnL.StringFixed(4); f.GrossPnL.Exponent() != -4 {
				t.Errorf("gross %s has exponent %d", got, f.GrossPnL.Exponent())
			}
		})
	}
}

func TestComputeRefuses(t *testing.T) {
	cases := []struct {
		name      string
		trade     Trade
		index     int
		field     string
		msgPart   string
		fillError bool
	}{
		{"ExitBeforeEntryInTime", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
			fill(FillEntry, "10", "100", "0", 10), fill(FillExit, "11", "100", "0", 5)}}, 1, "filledAt", "before the position's first entry", true},
		{"ExitPastOpenQuantity", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
			fill(FillEntry, "10", "100", "0", 0), fill(FillExit, "11", "60", "0", 5), fill(FillExit, "11", "60", "0", 6)}}, 2, "quantity", "exceeds the open quantity of 40", true},
		{"NoSilentFlipShort", Trade{Side: SideShort, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
			fill(FillEntry, "10", "5", "0", 0), fill(FillExit, "9", "6", "0", 1)}}, 1, "quantity", "exceeds the open quantity of 5", true},
		{"ExitAfterClose", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{
			fill(FillEntry, "10", "5", "0", 0), fill(FillExit, "11", "5", "0", 1), fill(FillExit, "12", "5", "0", 2)}}, 2, "filledAt", "nothing is open", true},
		{"ZeroPrice", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{fill(FillEntry, "0", "5", "0", 0)}}, 0, "price", "greater than 0", true},
		{"NegativeQuantity", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{fill(FillEntry, "1", "-5", "0", 0)}}, 0, "quantity", "greater than 0", true},
		{"NegativeFees", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{fill(FillEntry, "1", "5", "-0.01", 0)}}, 0, "fees", "not be negative", true},
		{"BadType", Trade{Side: SideLong, Multiplier: decimal.NewFromInt(1), Fills: []Fill{fill("buy", "1", "5", "0", 0)}}, 0, "type", "entry or exit", true},
		{"BadSide", Trade{Side: "flat", Multiplier: decimal.NewFromInt(1)}, 0, "", "side", false},
		{"ZeroMultiplier", Trade{Side: SideLong, Multiplier: decimal.Zero}, 0, "", "multiplier", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compute(tc.trade)
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.msgPart) {
				t.Errorf("message %q lacks %q", err, tc.msgPart)
			}
			var fe *FillError
			if errors.As(err, &fe) != tc.fillError {
				t.Fatalf("FillError %v, want %v", fe, tc.fillError)
			}
			if fe == nil {
				return
			}
			if fe.Index != tc.index || fe.Field != tc.field || fe.FillID != tc.trade.Fills[tc.index].ID {
				t.Errorf("got index %d field %q id %q, want %d %q %q", fe.Index, fe.Field, fe.FillID, tc.index, tc.field, tc.trade.Fills[tc.index].ID)
			}
			if !strings.Contains(fe.Message, tc.trade.Fills[tc.index].ID) {
				t.Errorf("message %q does not name the fill", fe.Message)
			}
		})
	}
}
