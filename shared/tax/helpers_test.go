package tax

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// d reads a decimal literal of a test.
func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

var newYork = mustZone("America/New_York")
var london = mustZone("Europe/London")

func mustZone(name string) *time.Location {
	z, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return z
}

// at is 15:00 UTC on a day: mid-session in New York and London.
func at(day string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", day+" 15:00")
	if err != nil {
		panic(err)
	}
	return t
}

// stock is a trade of shares in USD without fees.
func stock(id, account, sym string, side Side, day, qty, price string) Trade {
	return Trade{ID: id, Account: account, Instrument: sym, Underlying: sym, AssetType: "stock", Time: at(day),
		Side: side, Quantity: d(qty), Multiplier: d("1"), Price: d(price), Fees: decimal.Zero, Currency: "USD"}
}

// withFees and in change a test trade.
func withFees(t Trade, fees string) Trade { t.Fees = d(fees); return t }
func in(t Trade, cur string) Trade        { t.Currency = cur; return t }

// lotByID finds a lot of a report.
func lotByID(t *testing.T, r Report, id string) Lot {
	t.Helper()
	for _, l := range r.Lots {
		if l.ID == id {
			return l
		}
	}
	t.Fatalf("no lot %s in %+v", id, lotIDs(r))
	return Lot{}
}

func lotIDs(r Report) []string {
	var ids []string
	for _, l := range r.Lots {
		ids = append(ids, l.ID)
	}
	return ids
}

// want is what a test expects of one lot; empty fields are not checked
// except the amounts, which always are.
type want struct {
	id                          string
	acquired, sold              string
	proceeds, basis, adj, gain  string
	code, term, box, rule, desc string
}

func checkLot(t *testing.T, r Report, w want) {
	t.Helper()
	l := lotByID(t, r, w.id)
	eq := func(name string, got decimal.Decimal, want string) {
		if !got.Equal(d(want)) {
			t.Errorf("lot %s %s = %s, want %s", w.id, name, got, want)
		}
	}
	eq("proceeds", l.Proceeds, w.proceeds)
	eq("basis", l.Basis, w.basis)
	eq("adjustment", l.Adjustment, w.adj)
	eq("gain", l.Gain, w.gain)
	str := func(name, got, want string) {
		if want != "" && got != want {
			t.Errorf("lot %s %s = %q, want %q", w.id, name, got, want)
		}
	}
	str("acquired", l.Acquired, w.acquired)
	str("sold", l.Sold, w.sold)
	str("code", l.AdjustmentCode, w.code)
	str("term", l.Term, w.term)
	str("box", l.Box, w.box)
	str("rule", l.Rule, w.rule)
	str("description", l.Description, w.desc)
	if w.code == "" && l.AdjustmentCode != "" {
		t.Errorf("lot %s has code %q, want none", w.id, l.AdjustmentCode)
	}
}

func compute(t *testing.T, req Request) Report {
	t.Helper()
	r, err := Compute(req)
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	checkInvariants(t, r)
	return r
}

// checkInvariants holds for every report: gain = proceeds - basis +
// adjustment on every lot, and the totals add up the lots.
func checkInvariants(t testing.TB, r Report) {
	t.Helper()
	var all Figures
	for _, l := range r.Lots {
		if !l.Gain.Equal(l.Proceeds.Sub(l.Basis).Add(l.Adjustment)) {
			t.Fatalf("lot %s: gain %s != proceeds %s - basis %s + adjustment %s", l.ID, l.Gain, l.Proceeds, l.Basis, l.Adjustment)
		}
		if l.Adjustment.IsNegative() {
			t.Fatalf("lot %s: negative adjustment %s", l.ID, l.Adjustment)
		}
		if (l.AdjustmentCode == "W") != l.Adjustment.IsPositive() {
			t.Fatalf("lot %s: code %q with adjustment %s", l.ID, l.AdjustmentCode, l.Adjustment)
		}
		if l.Sold < r.From || l.Sold > r.To {
			t.Fatalf("lot %s sold %s outside %s..%s", l.ID, l.Sold, r.From, r.To)
		}
		washed := decimal.Zero
		for _, w := range l.WashedTo {
			washed = washed.Add(w.Amount)
		}
		if !washed.Equal(l.Adjustment) {
			t.Fatalf("lot %s: washed to %s, adjustment %s", l.ID, washed, l.Adjustment)
		}
		for _, m := range l.Matches {
			if r.Jurisdiction != UK && m.Account != l.Account {
				t.Fatalf("lot %s in %s matched in account %s: lots never cross accounts", l.ID, l.Account, m.Account)
			}
		}
		if !l.Section1256 {
			all.add(l)
		}
	}
	if !sameFigures(all, r.Totals.All) {
		t.Fatalf("totals.all %+v, lots add up to %+v", r.Totals.All, all)
	}
	if r.Totals.ShortTerm != nil {
		st, lt := *r.Totals.ShortTerm, *r.Totals.LongTerm
		if !st.Gain.Add(lt.Gain).Equal(all.Gain) || st.Lots+lt.Lots != all.Lots {
			t.Fatalf("short %+v + long %+v != all %+v", st, lt, all)
		}
	}
	if s := r.Section1256; s != nil && !s.LongTerm.Add(s.ShortTerm).Equal(s.NetGain) {
		t.Fatalf("1256: 60%% %s + 40%% %s != %s", s.LongTerm, s.ShortTerm, s.NetGain)
	}
}

func sameFigures(a, b Figures) bool {
	return a.Lots == b.Lots && a.Proceeds.Equal(b.Proceeds) && a.Basis.Equal(b.Basis) &&
		a.Adjustments.Equal(b.Adjustments) && a.Gain.Equal(b.Gain)
}
