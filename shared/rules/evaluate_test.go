package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

var (
	newYork = mustZone("America/New_York")
	tokyo   = mustZone("Asia/Tokyo")
)

func mustZone(name string) *time.Location {
	z, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return z
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
func null(s string) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: dec(s), Valid: true}
}

// pos is a long position in account "a" (USD, New York) opened at open
// (New York clock, "2024-03-04 10:00") with one entry of qty at 100.
func pos(id, open string, qty string) Position {
	at, err := time.ParseInLocation("2006-01-02 15:04", open, newYork)
	if err != nil {
		panic(err)
	}
	return Position{ID: id, Symbol: "AAPL", AccountID: "a", Currency: "USD", Zone: newYork, Multiplier: dec("1"),
		Entries: []Fill{{At: at, Price: dec("100"), Quantity: dec(qty)}}, Stop: null("99"), Target: null("103"),
		InitialRisk: null("100"), Balance: null("10000"), AssetTypes: []string{"stock"}}
}

// closed closes p at close (New York clock) with net P&L net.
func closed(p Position, close, net string) Position {
	at, err := time.ParseInLocation("2006-01-02 15:04", close, newYork)
	if err != nil {
		panic(err)
	}
	p.ClosedAt, p.Net = &at, dec(net)
	return p
}

func rule(t *testing.T, typ Type, params string) Rule {
	t.Helper()
	p, err := ParseParams(typ, json.RawMessage(params))
	if err != nil {
		t.Fatalf("%s %s: %v", typ, params, err)
	}
	return Rule{ID: "r", Type: typ, Params: p}
}

var usd = Money{Display: "USD", Factors: map[string]decimal.Decimal{"USD": dec("1"), "EUR": dec("1.1")}}

// TestEveryRule holds each rule type to a day that keeps it and a day
// that breaks it, the limit itself included as kept.
func TestEveryRule(t *testing.T) {
	noStop := pos("p2", "2024-03-04 10:05", "10")
	noStop.Stop, noStop.InitialRisk = decimal.NullDecimal{}, decimal.NullDecimal{}
	noTarget := pos("p2", "2024-03-04 10:05", "10")
	noTarget.Target = decimal.NullDecimal{}
	fut := pos("p1", "2024-03-04 10:00", "2")
	fut.Multiplier = dec("50")
	addOn := pos("p1", "2024-03-04 10:00", "10")
	addOn.Entries = append(addOn.Entries, Fill{At: addOn.Entries[0].At.Add(6 * time.Hour), Price: dec("100"), Quantity: dec("1")})
	cases := []struct {
		name     string
		typ      Type
		params   string
		keep     []Position
		breaks   []Position
		message  string
		brokenBy []string
	}{
		{"MaxTradesPerDay", MaxTradesPerDay, `{"count":2}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1"), pos("p2", "2024-03-04 11:00", "1")},
			[]Position{pos("p1", "2024-03-04 10:00", "1"), pos("p2", "2024-03-04 11:00", "1"), pos("p3", "2024-03-04 12:00", "1")},
			"AAPL: 3rd trade of the day; your limit is 2", []string{"p3"}},
		{"MaxDailyLoss", MaxDailyLoss, `{"amount":"500"}`,
			[]Position{closed(pos("p1", "2024-03-04 10:00", "1"), "2024-03-04 11:00", "-300"), closed(pos("p2", "2024-03-04 10:00", "1"), "2024-03-04 12:00", "-200")},
			[]Position{closed(pos("p1", "2024-03-04 10:00", "1"), "2024-03-04 11:00", "-300"), closed(pos("p2", "2024-03-04 10:00", "1"), "2024-03-04 12:00", "-200.01")},
			"AAPL: this close took the day's loss to 500.01 USD; your limit is 500.00 USD", []string{"p2"}},
		{"MaxRiskPerTradeAmount", MaxRiskPerTrade, `{"amount":"100"}`,
			[]Position{pos("p1", "2024-03-04 10:00", "100")},
			[]Position{func() Position { p := pos("p1", "2024-03-04 10:00", "100"); p.InitialRisk = null("100.5"); return p }()},
			"AAPL: risked 100.50 USD; your limit is 100.00 USD", []string{"p1"}},
		{"MaxRiskPerTradePercent", MaxRiskPerTrade, `{"percent":"1"}`,
			[]Position{pos("p1", "2024-03-04 10:00", "100")},
			[]Position{func() Position { p := pos("p1", "2024-03-04 10:00", "100"); p.Balance = null("9000"); return p }()},
			"AAPL: risked 1.11% of the account balance; your limit is 1%", []string{"p1"}},
		{"StopRequired", StopRequired, `{}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1")},
			[]Position{pos("p1", "2024-03-04 10:00", "1"), noStop},
			"AAPL: opened without a stop loss", []string{"p2"}},
		{"MaxConsecutiveLosses", MaxConsecutiveLosses, `{"count":2}`,
			// a win between the losses resets the run
			[]Position{closed(pos("p1", "2024-03-04 09:40", "1"), "2024-03-04 10:00", "-1"), closed(pos("p2", "2024-03-04 09:45", "1"), "2024-03-04 10:10", "5"),
				closed(pos("p3", "2024-03-04 09:50", "1"), "2024-03-04 10:20", "-1"), pos("p4", "2024-03-04 10:30", "1")},
			[]Position{closed(pos("p1", "2024-03-04 09:40", "1"), "2024-03-04 10:00", "-1"), closed(pos("p2", "2024-03-04 09:45", "1"), "2024-03-04 10:10", "-5"),
				pos("p4", "2024-03-04 10:10", "1")},
			"AAPL: opened after 2 losses in a row today; your limit is 2", []string{"p4"}},
		{"AllowedHours", AllowedHours, `{"from":"09:30","to":"16:00"}`,
			[]Position{pos("p1", "2024-03-04 09:30", "1"), pos("p2", "2024-03-04 15:59", "1")},
			[]Position{pos("p1", "2024-03-04 09:30", "1"), addOn},
			"AAPL: entry at 16:00; your hours are 09:30 to 16:00", []string{"p1"}},
		{"MaxPositionSizeQuantity", MaxPositionSize, `{"quantity":"10"}`,
			[]Position{pos("p1", "2024-03-04 10:00", "10")},
			[]Position{addOn},
			"AAPL: size 11; your limit is 10", []string{"p1"}},
		{"MaxPositionSizeNotional", MaxPositionSize, `{"notional":"10000"}`,
			[]Position{fut},
			[]Position{func() Position { p := fut; p.Multiplier = dec("51"); return p }()},
			"AAPL: position worth 10200.00 USD; your limit is 10000.00 USD", []string{"p1"}},
		{"NoTradingDays", NoTradingDays, `{"weekdays":[6,7]}`,
			[]Position{pos("p1", "2024-03-08 23:59", "1")},
			[]Position{pos("p1", "2024-03-09 00:00", "1")},
			"AAPL: opened on a Saturday; you do not trade on Saturdays", []string{"p1"}},
		{"MinPlannedRR", MinPlannedRR, `{"ratio":"3"}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1")},
			[]Position{func() Position { p := pos("p1", "2024-03-04 10:00", "1"); p.Target = null("102.5"); return p }()},
			"AAPL: planned R:R 2.50; your minimum is 3", []string{"p1"}},
		{"MaxOpenExposureRisk", MaxOpenExposure, `{"risk":"200"}`,
			[]Position{closed(pos("p1", "2024-03-04 10:00", "1"), "2024-03-04 11:00", "5"), pos("p2", "2024-03-04 10:30", "1"), pos("p3", "2024-03-04 11:00", "1")},
			[]Position{pos("p1", "2024-03-04 10:00", "1"), pos("p2", "2024-03-04 10:30", "1"), pos("p3", "2024-03-04 11:00", "1")},
			"AAPL: this entry took the risk of your open positions to 300.00 USD; your limit is 200.00 USD", []string{"p3"}},
		{"RequiredFields", RequiredFields, `{"fields":["target","notes","tag","screenshot"]}`,
			[]Position{func() Position {
				p := pos("p1", "2024-03-04 10:00", "1")
				p.HasNotes, p.HasTag, p.HasScreenshot = true, true, true
				return p
			}()},
			[]Position{noTarget},
			"AAPL: opened without a target, notes, a tag, a screenshot", []string{"p2"}},
		{"AllowedMarketsAssetType", AllowedMarkets, `{"assetTypes":["stock","option"]}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1")},
			[]Position{func() Position { p := pos("p1", "2024-03-04 10:00", "1"); p.AssetTypes = []string{"future"}; return p }()},
			"AAPL: a future trade; you trade only stock, option", []string{"p1"}},
		{"AllowedMarketsSymbol", AllowedMarkets, `{"symbols":["aapl","SPY"]}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1"), func() Position {
				p := pos("p2", "2024-03-04 10:00", "1")
				p.Symbol, p.Underlying = "SPY   240621C00520000", "SPY"
				return p
			}()},
			[]Position{func() Position { p := pos("p1", "2024-03-04 10:00", "1"); p.Symbol = "MSFT"; return p }()},
			"MSFT: MSFT is not one of your markets (AAPL, SPY)", []string{"p1"}},
		{"AllowedDirection", AllowedDirection, `{"side":"long"}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1")},
			[]Position{func() Position { p := pos("p1", "2024-03-04 10:00", "1"); p.Short = true; return p }()},
			"AAPL: opened short; you trade long only", []string{"p1"}},
		// Exactly 15 minutes after the losing close keeps it; a win starts no cooldown.
		{"CooldownAfterLoss", CooldownAfterLoss, `{"minutes":15}`,
			[]Position{closed(pos("p1", "2024-03-04 09:40", "1"), "2024-03-04 10:00", "-1"), closed(pos("p2", "2024-03-04 09:30", "1"), "2024-03-04 10:20", "5"),
				pos("p3", "2024-03-04 10:15", "1"), pos("p4", "2024-03-04 10:21", "1")},
			[]Position{closed(pos("p1", "2024-03-04 09:40", "1"), "2024-03-04 10:00", "-1"), pos("p3", "2024-03-04 10:14", "1")},
			"AAPL: entry 14 minutes after a losing close of AAPL; your cooldown is 15 minutes", []string{"p3"}},
		{"MinPlannedRRWithoutTarget", MinPlannedRR, `{"ratio":"1"}`,
			[]Position{pos("p1", "2024-03-04 10:00", "1")},
			[]Position{noTarget},
			"AAPL: no target, so no planned R:R; your minimum is 1", []string{"p2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rule(t, c.typ, c.params)
			days := Evaluate([]Rule{r}, c.keep, usd)
			if len(days) != 1 || days[0].Broken != 0 || days[0].Kept != 1 || *days[0].Score != 100 {
				t.Fatalf("keeping day: %+v", days)
			}
			days = Evaluate([]Rule{r}, c.breaks, usd)
			if len(days) != 1 || days[0].Broken != 1 || *days[0].Score != 0 || len(days[0].Violations) != len(c.brokenBy) {
				t.Fatalf("breaking day: %+v", days)
			}
			// Outcomes: the same day, its violations left out.
			if o := Outcomes([]Rule{r}, c.breaks, usd); len(o) != 1 || len(o[0].Violations) != 0 || o[0].Broken != 1 || *o[0].Score != 0 ||
				fmt.Sprint(o[0].Rules) != fmt.Sprint(days[0].Rules) {
				t.Fatalf("outcomes %+v of %+v", o, days)
			}
			v := days[0].Violations[0]
			if v.Message != c.message || strings.Join(v.PositionIDs, ",") != strings.Join(c.brokenBy, ",") || v.RuleID != "r" || v.Type != c.typ {
				t.Fatalf("violation %+v, want %q by %v", v, c.message, c.brokenBy)
			}
		})
	}
}

// TestDays: a position counts on the day of its first entry in its
// account's zone, and its loss on the day of its close there, across a
// daylight-saving change; a day with no rule in scope has no score.
func TestDays(t *testing.T) {
	// 2024-03-10 is the spring change in New York: 23:30 local on the 9th
	// is 04:30 UTC on the 10th.
	late := pos("p1", "2024-03-09 23:30", "1")
	if late.Entries[0].At.UTC().Day() != 10 {
		t.Fatal("set-up: the entry should be on the 10th in UTC")
	}
	late = closed(late, "2024-03-10 03:30", "-600") // 07:30 UTC, after the change
	r := rule(t, MaxDailyLoss, `{"amount":"500"}`)
	days := Evaluate([]Rule{r}, []Position{late}, usd)
	if len(days) != 2 || days[0].Date != "2024-03-09" || days[1].Date != "2024-03-10" {
		t.Fatalf("days %+v", days)
	}
	if days[0].Broken != 0 || days[1].Broken != 1 {
		t.Fatalf("the loss belongs to the close day: %+v", days)
	}
	// Tokyo's day of the same instant is another.
	tk := pos("p2", "2024-03-04 10:00", "1") // 00:00 Tokyo on the 5th
	tk.Zone = tokyo
	if d := Evaluate([]Rule{r}, []Position{tk}, usd); d[0].Date != "2024-03-05" {
		t.Fatalf("tokyo day %s", d[0].Date)
	}
	// A rule of another account does not apply: no score.
	other := rule(t, StopRequired, `{}`)
	other.AccountID = "b"
	d := Evaluate([]Rule{other}, []Position{pos("p1", "2024-03-04 10:00", "1")}, usd)
	if len(d) != 1 || d[0].Score != nil || len(d[0].Rules) != 0 {
		t.Fatalf("out of scope: %+v", d)
	}
	// No positions, no days.
	if d := Evaluate([]Rule{r}, nil, usd); len(d) != 0 {
		t.Fatalf("no trades: %+v", d)
	}
	// A draft (no entry) is no trade.
	draft := pos("p1", "2024-03-04 10:00", "1")
	draft.Entries = nil
	if d := Evaluate([]Rule{r}, []Position{draft}, usd); len(d) != 0 {
		t.Fatalf("draft: %+v", d)
	}
}

// TestMoney: rules of every account convert into the display currency, or
// are skipped with the reason; rules of one account use its currency.
func TestMoney(t *testing.T) {
	eur := closed(pos("p1", "2024-03-04 10:00", "1"), "2024-03-04 11:00", "-460") // -506 USD
	eur.Currency, eur.AccountID = "EUR", "e"
	r := rule(t, MaxDailyLoss, `{"amount":"500"}`)
	d := Evaluate([]Rule{r}, []Position{eur}, usd)
	if d[0].Broken != 1 || !strings.Contains(d[0].Violations[0].Message, "506.00 USD") {
		t.Fatalf("converted: %+v", d)
	}
	d = Evaluate([]Rule{r}, []Position{eur}, Money{})
	if d[0].Rules[0].Status != Skipped || d[0].Score != nil || !strings.Contains(d[0].Rules[0].Reason, "display currency") {
		t.Fatalf("no display currency: %+v", d)
	}
	d = Evaluate([]Rule{r}, []Position{eur}, Money{Display: "GBP", Factors: map[string]decimal.Decimal{}})
	if d[0].Rules[0].Status != Skipped || !strings.Contains(d[0].Rules[0].Reason, "EUR/GBP") {
		t.Fatalf("no rate: %+v", d)
	}
	r.AccountID = "e"
	d = Evaluate([]Rule{r}, []Position{eur}, Money{})
	if d[0].Rules[0].Status != Kept {
		t.Fatalf("account's own currency: %+v", d)
	}
}

// TestScore: the share of judged rules kept, rounded down.
func TestScore(t *testing.T) {
	rs := []Rule{rule(t, StopRequired, `{}`), rule(t, MaxTradesPerDay, `{"count":1}`), rule(t, MinPlannedRR, `{"ratio":"1"}`)}
	d := Evaluate(rs, []Position{pos("p1", "2024-03-04 10:00", "1"), pos("p2", "2024-03-04 11:00", "1")}, usd)
	if *d[0].Score != 66 || d[0].Kept != 2 || d[0].Broken != 1 {
		t.Fatalf("score %+v", d[0])
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 112: "112th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %s", n, got)
		}
	}
}

// TestStrategyIsOneTrade: a strategy's legs are one trade to every rule: one
// trade of the day, its defined risk its stop, max profit over risk its
// planned R:R, its size every leg's at the leg's multiplier; a violation
// names the strategy and its legs.
func TestStrategyIsOneTrade(t *testing.T) {
	at, _ := time.ParseInLocation("2006-01-02 15:04", "2024-03-04 10:00", newYork)
	condor := Position{ID: "s1", Symbol: "SPY short iron condor", AccountID: "a", Currency: "USD", Zone: newYork,
		Legs: []string{"l1", "l2", "l3", "l4"}, InitialRisk: null("300"), Reward: null("200"), Balance: null("10000")}
	for i, p := range []string{"2.00", "1.00", "2.00", "1.00"} {
		condor.Entries = append(condor.Entries, Fill{At: at.Add(time.Duration(i) * time.Second), Price: dec(p), Quantity: dec("1"), Multiplier: dec("100")})
	}
	naked := condor
	naked.ID, naked.Symbol, naked.Legs, naked.InitialRisk, naked.Reward = "s2", "SPY short call", []string{"l5"}, decimal.NullDecimal{}, null("150")
	naked.Entries = []Fill{{At: at.Add(time.Hour), Price: dec("1.50"), Quantity: dec("1"), Multiplier: dec("100")}}
	for _, tc := range []struct {
		typ       Type
		params    string
		positions []Position
		broken    string // the message of the one violation, "" when kept
	}{
		{MaxTradesPerDay, `{"count":1}`, []Position{condor}, ""},
		{MaxTradesPerDay, `{"count":1}`, []Position{condor, naked}, "SPY short call: 2nd trade of the day; your limit is 1"},
		{StopRequired, `{}`, []Position{condor}, ""},
		{StopRequired, `{}`, []Position{naked}, "SPY short call: opened with no defined risk (an unlimited max loss) and no planned risk"},
		{MinPlannedRR, `{"ratio":"0.6"}`, []Position{condor}, ""},
		{MinPlannedRR, `{"ratio":"0.7"}`, []Position{condor}, "SPY short iron condor: planned R:R 0.67 (max profit over risk); your minimum is 0.7"},
		{MaxPositionSize, `{"notional":"600"}`, []Position{condor}, ""},
		{MaxPositionSize, `{"notional":"599"}`, []Position{condor}, "SPY short iron condor: position worth 600.00 USD; your limit is 599.00 USD"},
		{MaxRiskPerTrade, `{"amount":"300"}`, []Position{condor}, ""},
		{MaxRiskPerTrade, `{"amount":"299"}`, []Position{condor}, "SPY short iron condor: risked 300.00 USD; your limit is 299.00 USD"},
	} {
		days := Evaluate([]Rule{rule(t, tc.typ, tc.params)}, tc.positions, usd)
		if len(days) != 1 {
			t.Fatalf("%s %s: %d days", tc.typ, tc.params, len(days))
		}
		vs := days[0].Violations
		switch {
		case tc.broken == "" && len(vs) > 0:
			t.Errorf("%s %s: broken: %+v", tc.typ, tc.params, vs)
		case tc.broken != "" && (len(vs) != 1 || vs[0].Message != tc.broken):
			t.Errorf("%s %s: %+v, want %q", tc.typ, tc.params, vs, tc.broken)
		case tc.broken != "" && (vs[0].StrategyID == nil || len(vs[0].PositionIDs) < 1 || vs[0].PositionIDs[0][0] != 'l'):
			t.Errorf("%s %s: the violation names %v and strategy %v", tc.typ, tc.params, vs[0].PositionIDs, vs[0].StrategyID)
		}
	}
}

// TestOpenExposure: positions count from each entry to their close, a
// close before an entry of the same instant, one opened days before
// still open; each entry that takes the sum past the limit breaks it.
func TestOpenExposure(t *testing.T) {
	old := pos("p0", "2024-03-01 10:00", "50") // 5,000, still open
	p1 := closed(pos("p1", "2024-03-04 10:00", "100"), "2024-03-04 11:00", "5")
	p2 := pos("p2", "2024-03-04 10:30", "100")
	p2.Entries = append(p2.Entries, Fill{At: p2.Entries[0].At.Add(2 * time.Hour), Price: dec("100"), Quantity: dec("50")}) // 12:30: +5,000
	p3 := pos("p3", "2024-03-04 11:00", "100")
	all := []Position{old, p1, p2, p3}
	// 10:30: 5,000 + 10,000 + 10,000; 11:00 (p1 closed first): the same;
	// 12:30: 30,000.
	for _, c := range []struct {
		limit string
		want  []string
	}{
		{"30000", nil},
		{"29999.99", []string{"p2: AAPL: this entry took your open positions to 30000.00 USD; your limit is 29999.99 USD"}},
		{"24999.99", []string{"p2: AAPL: this entry took your open positions to 25000.00 USD; your limit is 24999.99 USD",
			"p3: AAPL: this entry took your open positions to 25000.00 USD; your limit is 24999.99 USD"}},
	} {
		days := Evaluate([]Rule{rule(t, MaxOpenExposure, `{"notional":"`+c.limit+`"}`)}, slices.Clone(all), usd)
		var got []string
		for _, d := range days {
			for _, v := range d.Violations {
				got = append(got, strings.Join(v.PositionIDs, ",")+": "+v.Message)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("limit %s: %q, want %q", c.limit, got, c.want)
		}
	}
}

// TestWeeklyLossWeeks: the week is the account zone's Monday to Sunday;
// a close on the Monday after the spring change (00:30 New York, 04:30
// UTC) starts a new week, and a day already past the limit breaks it again.
func TestWeeklyLossWeeks(t *testing.T) {
	r := rule(t, MaxWeeklyLoss, `{"amount":"500"}`)
	ps := []Position{
		closed(pos("p1", "2024-03-04 10:00", "1"), "2024-03-04 11:00", "-450"),
		closed(pos("p2", "2024-03-10 10:00", "1"), "2024-03-10 23:30", "-100"), // the week: -550
		closed(pos("p3", "2024-03-10 23:40", "1"), "2024-03-11 00:30", "-400"), // a new week: -400
		closed(pos("p4", "2024-03-12 10:00", "1"), "2024-03-12 11:00", "200"),  // -200
		closed(pos("p5", "2024-03-13 10:00", "1"), "2024-03-13 11:00", "-300.01"),
	}
	var got []string
	for _, d := range Evaluate([]Rule{r}, ps, usd) {
		for _, v := range d.Violations {
			got = append(got, d.Date+" "+v.PositionIDs[0]+" "+v.Message)
		}
	}
	want := []string{"2024-03-10 p2 AAPL: this close left the week's loss at 550.00 USD; your limit is 500.00 USD a week",
		"2024-03-13 p5 AAPL: this close left the week's loss at 500.01 USD; your limit is 500.00 USD a week"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%q, want %q", got, want)
	}
}

// TestCooldownAcrossMidnight: a losing close at 23:55 cools down the next
// day's 00:05 entry; a rule of another account's losses does not.
func TestCooldownAcrossMidnight(t *testing.T) {
	loss := closed(pos("p1", "2024-03-04 23:00", "1"), "2024-03-04 23:55", "-10")
	next := pos("p2", "2024-03-05 00:05", "1")
	r := rule(t, CooldownAfterLoss, `{"minutes":30}`)
	d := Evaluate([]Rule{r}, []Position{loss, next}, usd)
	if len(d) != 2 || d[1].Broken != 1 || d[1].Violations[0].Message != "AAPL: entry 10 minutes after a losing close of AAPL; your cooldown is 30 minutes" {
		t.Fatalf("%+v", d)
	}
	loss.AccountID = "b"
	r.AccountID = "a"
	if d := Evaluate([]Rule{r}, []Position{loss, next}, usd); d[1].Broken != 0 {
		t.Fatalf("another account's loss: %+v", d)
	}
}

// TestWeightedScore: kept weights over judged weights, rounded down; a rule
// without a weight counts as important (2), so rules of equal weight score
// as before.
func TestWeightedScore(t *testing.T) {
	ps := []Position{pos("p1", "2024-03-04 10:00", "1"), pos("p2", "2024-03-04 11:00", "1")}
	weighted := func(w Weight, typ Type, params string) Rule {
		r := rule(t, typ, params)
		r.ID, r.Weight = string(typ), w
		return r
	}
	for _, c := range []struct {
		rules []Rule
		score int
	}{
		// critical kept 3, important kept 2, nice to have broken 1: 5 of 6.
		{[]Rule{weighted(Critical, StopRequired, `{}`), weighted(Important, MinPlannedRR, `{"ratio":"1"}`), weighted(NiceToHave, MaxTradesPerDay, `{"count":1}`)}, 83},
		// critical broken: 3 of 6 lost; two nice to have kept: 2 of 5.
		{[]Rule{weighted(Critical, MaxTradesPerDay, `{"count":1}`), weighted(NiceToHave, StopRequired, `{}`), weighted(NiceToHave, MinPlannedRR, `{"ratio":"1"}`)}, 40},
		// no weight (2) kept, critical broken: 2 of 5.
		{[]Rule{weighted(0, StopRequired, `{}`), weighted(Critical, MaxTradesPerDay, `{"count":1}`)}, 40},
		// equal weights: the plain share, 2 of 3 = 66.
		{[]Rule{weighted(0, StopRequired, `{}`), weighted(0, MaxTradesPerDay, `{"count":1}`), weighted(0, MinPlannedRR, `{"ratio":"1"}`)}, 66},
	} {
		if d := Evaluate(c.rules, ps, usd); *d[0].Score != c.score {
			t.Errorf("%+v: score %d, want %d", c.rules, *d[0].Score, c.score)
		}
	}
}

// TestTagScope: a rule with a tag judges only the positions carrying it.
func TestTagScope(t *testing.T) {
	r := rule(t, StopRequired, `{}`)
	r.TagID = "t1"
	p := pos("p1", "2024-03-04 10:00", "1")
	p.Stop = decimal.NullDecimal{}
	if d := Evaluate([]Rule{r}, []Position{p}, usd); d[0].Score != nil || len(d[0].Rules) != 0 {
		t.Fatalf("untagged: %+v", d)
	}
	p.TagIDs = []string{"t0", "t1"}
	if d := Evaluate([]Rule{r}, []Position{p}, usd); d[0].Broken != 1 {
		t.Fatalf("tagged: %+v", d)
	}
}

// TestTradeScores: each trade's rules in scope, kept, broken (with the
// violation) or skipped, weighted; a strategy is one trade.
func TestTradeScores(t *testing.T) {
	at, _ := time.ParseInLocation("2006-01-02 15:04", "2024-03-04 10:00", newYork)
	condor := Position{ID: "s1", Symbol: "SPY short iron condor", AccountID: "a", Currency: "USD", Zone: newYork,
		Legs: []string{"l1", "l2"}, InitialRisk: null("300"), Reward: null("200"), AssetTypes: []string{"option"}}
	condor.Entries = []Fill{{At: at, Price: dec("2"), Quantity: dec("1"), Multiplier: dec("100")}, {At: at, Price: dec("1"), Quantity: dec("1"), Multiplier: dec("100")}}
	naked := pos("p1", "2024-03-04 11:00", "1")
	naked.Stop, naked.InitialRisk = decimal.NullDecimal{}, decimal.NullDecimal{}
	tagged := pos("p2", "2024-03-04 12:00", "1")
	tagged.TagIDs = []string{"t1"}
	eur := pos("p3", "2024-03-05 13:00", "1")
	eur.Currency, eur.AccountID = "GBP", "g"
	draft := pos("p4", "2024-03-04 13:00", "1")
	draft.Entries = nil
	trades := rule(t, MaxTradesPerDay, `{"count":1}`)
	trades.ID, trades.Weight = "trades", Critical
	stop := rule(t, StopRequired, `{}`)
	stop.ID = "stop"
	scoped := rule(t, MinPlannedRR, `{"ratio":"5"}`)
	scoped.ID, scoped.TagID = "rr", "t1"
	size := rule(t, MaxPositionSize, `{"notional":"1000000"}`)
	size.ID, size.Weight = "size", NiceToHave
	rs := []Rule{trades, stop, scoped, size}
	ps := []Position{condor, naked, tagged, eur, draft}
	got := TradeScores(rs, ps, Evaluate(rs, ps, usd))
	line := func(tr Trade) string {
		var b strings.Builder
		if tr.Score != nil {
			fmt.Fprintf(&b, "%s %d%%:", tr.Date, *tr.Score)
		} else {
			fmt.Fprintf(&b, "%q null:", tr.Date)
		}
		for _, r := range tr.Rules {
			fmt.Fprintf(&b, " %s=%s", r.RuleID, r.Status)
			if r.Message != "" {
				fmt.Fprintf(&b, "(%s)", r.Message)
			}
		}
		return b.String()
	}
	want := []string{
		// kept trades 3, stop 2, size 1: 100.
		"2024-03-04 100%: trades=kept stop=kept size=kept",
		// broke trades (3) and stop (2), kept size (1): 1 of 6.
		"2024-03-04 16%: trades=broken(AAPL: 2nd trade of the day; your limit is 1) stop=broken(AAPL: opened without a stop loss) size=kept",
		// the tagged one: R:R 3 breaks rr (2): kept stop 2 and size 1 of 8.
		"2024-03-04 37%: trades=broken(AAPL: 3rd trade of the day; your limit is 1) stop=kept rr=broken(AAPL: planned R:R 3.00; your minimum is 5) size=kept",
		// GBP without a rate: size skipped on its day.
		"2024-03-05 100%: trades=kept stop=kept size=skipped(no exchange rate GBP/USD to convert this day's positions)",
		`"" null:`,
	}
	for i := range want {
		if l := line(got[i]); l != want[i] {
			t.Errorf("trade %s: %s\n want %s", ps[i].ID, l, want[i])
		}
	}
}

// TestOpenExposureFollowsPartialExits: a partial exit lowers the open
// exposure by its share of the quantity open, value and risk alike: p1
// (100 at 100: 10,000, risk 100) sells 60 at 10:30, leaving 4,000 and 40
// at risk; p2's 10,000 (risk 100) at 11:00 takes the open to 14,000 and
// 140, within 15,000 and 150, where without the exit it is 20,000 and 200.
func TestOpenExposureFollowsPartialExits(t *testing.T) {
	p1 := closed(pos("p1", "2024-03-04 10:00", "100"), "2024-03-04 12:00", "5")
	p1.Exits = []Fill{{At: p1.Entries[0].At.Add(30 * time.Minute), Quantity: dec("60")}, {At: *p1.ClosedAt, Quantity: dec("40")}}
	p2 := pos("p2", "2024-03-04 11:00", "100")
	for _, params := range []string{`{"notional":"15000"}`, `{"risk":"150"}`} {
		r := rule(t, MaxOpenExposure, params)
		if d := Evaluate([]Rule{r}, []Position{p1, p2}, usd); len(d) != 1 || d[0].Broken != 0 {
			t.Errorf("%s after the partial exit: %+v", params, d[0].Violations)
		}
		noExits := p1
		noExits.Exits = nil
		if d := Evaluate([]Rule{r}, []Position{noExits, p2}, usd); len(d) != 1 || d[0].Broken != 1 {
			t.Errorf("%s without it: %+v", params, d)
		}
	}
}
