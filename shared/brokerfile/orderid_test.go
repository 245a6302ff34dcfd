package brokerfile

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// groupSymbols lists the plan's strategy groups by their positions'
// symbols.
func groupSymbols(plan *Plan, fills []Fill) [][]string {
	var out [][]string
	for _, g := range plan.StrategyGroups(fills) {
		var syms []string
		for _, k := range g {
			syms = append(syms, plan.Positions[k].Symbol)
		}
		slices.Sort(syms)
		out = append(out, syms)
	}
	return out
}

// TestOrderIDs: each broker's order id is read into its fills, where the
// file has one, and the strategy groups follow it: two orders on one
// underlying filled in the same second stay apart, and one order's legs
// filled a second apart are one strategy. Files without order ids group
// by the instant, as before.
func TestOrderIDs(t *testing.T) {
	cases := []struct {
		preset, file string
		ids          []string // the fills' order ids, in file order
		groups       [][]string
		// grouped by instant alone (the ids cleared): what the ids change
		withoutIDs [][]string
	}{
		{preset: "ibkr-flex-trades", file: "ibkr_flex_trades_multileg.csv",
			ids:        []string{"884001001", "884001001", "884001002", "884001003", "884001004"},
			groups:     [][]string{{"SPY   270115C00600000", "SPY   270115C00620000"}},
			withoutIDs: [][]string{{"QQQ   270115C00550000", "QQQ   270115P00450000"}}},
		// Newest first in the file.
		{preset: "tastytrade", file: "tastytrade_transactions_multileg.csv",
			ids:        []string{"5103", "5102", "5101", "5101"},
			groups:     [][]string{{"IWM   270115P00180000", "IWM   270115P00190000"}},
			withoutIDs: [][]string{{"IWM   270115C00250000", "IWM   270115C00260000"}}},
		// No id column: a spread order is its first row and the rows
		// after it with an empty Exec Time, named by the first row's line.
		{preset: "thinkorswim", file: "thinkorswim_statement_multileg.csv",
			ids: []string{"row 9", "row 9", "row 9", "row 9", "row 13", "row 14", "row 15", "row 15"},
			groups: [][]string{
				{"SPY   270115C00600000", "SPY   270115C00620000"},
				{"QQQ   270115C00580000", "QQQ   270115C00600000", "QQQ   270115P00400000", "QQQ   270115P00420000"},
			},
			withoutIDs: [][]string{
				{"SPY   270115C00600000", "SPY   270115C00620000"},
				{"SPY   270115P00540000", "SPY   270115P00560000"},
				{"QQQ   270115C00580000", "QQQ   270115C00600000", "QQQ   270115P00400000", "QQQ   270115P00420000"},
			}},
		{preset: "thinkorswim-filled-orders", file: "thinkorswim_filled_orders.csv",
			ids: []string{"row 9", "row 10", "row 11", "row 12"}},
		// The older Flex sample has no IBOrderID column; the Activity
		// Statement's and Schwab's layouts have no order id at all.
		{preset: "ibkr-flex-trades", file: "ibkr_flex_trades.csv", ids: []string{"", "", "", "", "", "", "", ""}},
		{preset: "ibkr-activity-statement", file: "ibkr_activity_statement.csv", ids: []string{"", "", "", "", "", "", "", "", "", ""}},
		{preset: "schwab-transactions", file: "schwab_transactions.csv", ids: []string{"", "", "", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			parsed, plan := load(t, tc.preset, tc.file, Options{})
			if len(parsed.Errors) > 0 || len(plan.Errors) > 0 {
				t.Fatalf("errors %+v %+v", parsed.Errors, plan.Errors)
			}
			// Parse puts a newest-first file in time order: compare by row.
			byRow := slices.Clone(parsed.Fills)
			slices.SortFunc(byRow, func(a, b Fill) int { return a.Row - b.Row })
			var ids []string
			for _, f := range byRow {
				ids = append(ids, f.OrderID)
			}
			if !slices.Equal(ids, tc.ids) {
				t.Fatalf("order ids %q, want %q", ids, tc.ids)
			}
			if got := groupSymbols(plan, parsed.Fills); !slices.EqualFunc(got, tc.groups, slices.Equal) {
				t.Errorf("groups %q, want %q", got, tc.groups)
			}
			for i := range parsed.Fills {
				parsed.Fills[i].OrderID = ""
			}
			want := tc.withoutIDs
			if want == nil {
				want = tc.groups
			}
			if got := groupSymbols(plan, parsed.Fills); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("without ids: groups %q, want %q", got, want)
			}
		})
	}
}

// TestOrderIDCell: an order id cell that cannot be an id (control
// characters, too long, 0) is no id, and its row still imports.
func TestOrderIDCell(t *testing.T) {
	head := "Date,Type,Action,Symbol,Instrument Type,Quantity,Average Price,Commissions,Fees,Multiplier,Order #\n"
	row := func(order string) string {
		return "2025-03-12T11:00:00-0400,Trade,BUY_TO_OPEN,IWM   270115C00250000,Equity Option,1,-600.00,-1.00,-0.14,100," + order + "\n"
	}
	for order, want := range map[string]string{
		"5102": "5102", `"51` + "\x01" + `02"`: "", strings.Repeat("9", maxOrderID): strings.Repeat("9", maxOrderID),
		strings.Repeat("9", maxOrderID+1): "", "": "", "0": "", "0042": "0042",
	} {
		p := parseText(t, Options{PresetID: "tastytrade"}, head+row(order))
		if len(p.Errors) != 0 || len(p.Fills) != 1 || p.Fills[0].OrderID != want {
			t.Errorf("%q: errors %+v fills %+v, want order %q", order, p.Errors, p.Fills, want)
		}
	}
}

// TestStagedOrderIDs: the staged form keeps the order ids; a line staged
// before it carried them reads with none, and an id it cannot hold is a
// corrupt payload.
func TestStagedOrderIDs(t *testing.T) {
	parsed, _ := load(t, "tastytrade", "tastytrade_transactions_multileg.csv", Options{})
	back, err := DecodeFills(EncodeFills(parsed.Fills))
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if back[i].OrderID != parsed.Fills[i].OrderID || back[i].OrderID == "" {
			t.Fatalf("fill %d: order %q, want %q", i, back[i].OrderID, parsed.Fills[i].OrderID)
		}
	}
	staged := EncodeFills(parsed.Fills[:1])
	old := bytes.Replace(staged, []byte("\t"+parsed.Fills[0].OrderID+"\n"), []byte("\n"), 1)
	if back, err := DecodeFills(old); err != nil || len(back) != 1 || back[0].OrderID != "" {
		t.Fatalf("a 15-field line: %v %+v", err, back)
	}
	bad := bytes.Replace(staged, []byte("\t"+parsed.Fills[0].OrderID+"\n"), []byte("\t5\x01\n"), 1)
	if _, err := DecodeFills(bad); !errors.Is(err, ErrPayload) {
		t.Fatalf("a control character in an order id: %v", err)
	}
}
