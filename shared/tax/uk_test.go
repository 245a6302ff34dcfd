package tax

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/fx"
)

// gbp is a UK share trade in GBP.
func gbp(id, account, sym string, side Side, day, qty, price, fees string) Trade {
	t := stock(id, account, sym, side, day, qty, price)
	t.Currency, t.Fees = "GBP", d(fees)
	return t
}

func TestUK(t *testing.T) {
	tests := []struct {
		name   string
		year   int
		trades []Trade
		lots   []want
		check  func(t *testing.T, r Report)
	}{
		{
			// Same day first (TCGA s105(1)): 1,000 bought on 10 May for
			// 5,000 (pool). On 3 June 200 bought at 6 and 300 sold at 7: the
			// 300 are matched with the 200 of that day (cost 1,200), then
			// 100 from the pool (100/1,000 x 5,000 = 500). Proceeds 2,100,
			// cost 1,700, gain 400.
			name: "SameDayThenPool",
			year: 2024,
			trades: []Trade{
				gbp("b1", "isa-no", "ABC", Buy, "2024-05-10", "1000", "5", "0"),
				gbp("b2", "isa-no", "ABC", Buy, "2024-06-03", "200", "6", "0"),
				gbp("s1", "isa-no", "ABC", Sell, "2024-06-03", "300", "7", "0"),
			},
			lots: []want{{id: "s1/1", acquired: various, sold: "2024-06-03", proceeds: "2100", basis: "1700", adj: "0", gain: "400", rule: "same day, section 104"}},
			check: func(t *testing.T, r Report) {
				m := lotByID(t, r, "s1/1").Matches
				if len(m) != 2 || m[0].FillID != "b2" || !m[0].Cost.Equal(d("1200")) || !m[1].PoolQuantity.Equal(d("1000")) || !m[1].PoolCost.Equal(d("5000")) {
					t.Errorf("matches %+v", m)
				}
			},
		},
		{
			// The 30-day rule and a pool built over two purchases (the
			// share-matching illustration of the ACCA notes, the HS284
			// pattern): 1,500 bought 31 May 2016 for 20,000 (1,500 x 13.33
			// + 5 fees), 500 on 30 Jun 2017 for 10,000; 1,000 sold on 28
			// Feb 2019 for 25,000; 200 bought back on 7 Mar 2019 for 4,000.
			// The sale is matched first with the 200 of 7 Mar (4,000), then
			// 800 from the pool of 2,000 for 30,000 (800/2,000 x 30,000 =
			// 12,000): gain 25,000 - 16,000 = 9,000. The 200 never enter
			// the pool, which keeps 1,200 for 18,000. Tax year 2018-19 (6
			// Apr 2018 - 5 Apr 2019).
			name: "ThirtyDaysAndPool",
			year: 2018,
			trades: []Trade{
				gbp("b1", "a", "L", Buy, "2016-05-31", "1500", "13.33", "5"),
				gbp("b2", "a", "L", Buy, "2017-06-30", "500", "20", "0"),
				gbp("s1", "a", "L", Sell, "2019-02-28", "1000", "25", "0"),
				gbp("b3", "a", "L", Buy, "2019-03-07", "200", "20", "0"),
				gbp("s2", "a", "L", Sell, "2019-05-01", "600", "16", "0"),
			},
			lots: []want{{id: "s1/1", acquired: various, sold: "2019-02-28", proceeds: "25000", basis: "16000", adj: "0", gain: "9000", rule: "30 days, section 104"}},
			check: func(t *testing.T, r Report) {
				u := r.Totals.UK
				if u == nil || u.Disposals != 1 || !u.DisposalProceeds.Equal(d("25000")) || !u.AllowableCosts.Equal(d("16000")) || !u.Gains.Equal(d("9000")) || !u.Losses.IsZero() {
					t.Errorf("UK totals %+v", u)
				}
				if r.From != "2018-04-06" || r.To != "2019-04-05" {
					t.Errorf("period %s..%s", r.From, r.To)
				}
			},
		},
		{
			// The pool after the 30-day match: 600 of its 1,200 for 18,000
			// sold on 1 May 2019 for 9,600: cost 600/1,200 x 18,000 = 9,000,
			// gain 600, in tax year 2019-20.
			name: "PoolPartlySoldLater",
			year: 2019,
			trades: []Trade{
				gbp("b1", "a", "L", Buy, "2016-05-31", "1500", "13.33", "5"),
				gbp("b2", "a", "L", Buy, "2017-06-30", "500", "20", "0"),
				gbp("s1", "a", "L", Sell, "2019-02-28", "1000", "25", "0"),
				gbp("b3", "a", "L", Buy, "2019-03-07", "200", "20", "0"),
				gbp("s2", "a", "L", Sell, "2019-05-01", "600", "16", "0"),
			},
			lots: []want{{id: "s2/1", acquired: various, sold: "2019-05-01", proceeds: "9600", basis: "9000", adj: "0", gain: "600", rule: "section 104"}},
		},
		{
			// The 5/6 April boundary, in London time. A sale at 23:30 UTC
			// on 5 April 2024 is 00:30 BST on 6 April: tax year 2024-25. A
			// sale at 15:00 UTC on 5 April is 2023-24's, and its 30-day
			// match is the purchase of 10 April, in the next tax year:
			// 100 sold at 12 (1,200) less 10 fees = 1,190, matched with
			// 100 bought at 11 plus 5 fees (1,105): gain 85.
			name: "AprilBoundary2023",
			year: 2023,
			trades: []Trade{
				gbp("b0", "a", "V", Buy, "2023-01-10", "300", "10", "0"),
				gbp("s1", "a", "V", Sell, "2024-04-05", "100", "12", "10"),
				{ID: "s2", Account: "a", Instrument: "V", Underlying: "V", AssetType: "stock", Time: time.Date(2024, 4, 5, 23, 30, 0, 0, time.UTC),
					Side: Sell, Quantity: d("100"), Multiplier: d("1"), Price: d("12"), Currency: "GBP"},
				gbp("b1", "a", "V", Buy, "2024-04-10", "100", "11", "5"),
			},
			lots: []want{{id: "s1/1", acquired: "2024-04-10", sold: "2024-04-05", proceeds: "1190", basis: "1105", adj: "0", gain: "85", rule: "30 days"}},
		},
		{
			// The same trades in 2024-25: the 00:30 BST sale of 6 April
			// (100 at 12) comes from the pool (300 for 3,000: 1,000), gain
			// 200.
			name: "AprilBoundary2024",
			year: 2024,
			trades: []Trade{
				gbp("b0", "a", "V", Buy, "2023-01-10", "300", "10", "0"),
				gbp("s1", "a", "V", Sell, "2024-04-05", "100", "12", "10"),
				{ID: "s2", Account: "a", Instrument: "V", Underlying: "V", AssetType: "stock", Time: time.Date(2024, 4, 5, 23, 30, 0, 0, time.UTC),
					Side: Sell, Quantity: d("100"), Multiplier: d("1"), Price: d("12"), Currency: "GBP"},
				gbp("b1", "a", "V", Buy, "2024-04-10", "100", "11", "5"),
			},
			lots: []want{{id: "s2/1", acquired: various, sold: "2024-04-06", proceeds: "1200", basis: "1000", adj: "0", gain: "200", rule: "section 104"}},
		},
		{
			// A short sale: 100 sold at 10 on 1 May with none held, bought
			// back at 8 on 1 July (61 days: past the 30-day rule). The
			// disposal is matched with that later purchase before it could
			// enter the pool: gain 1,000 - 800 = 200, in the tax year of
			// the sale. 50 more sold short on 2 Sept and never bought back
			// are named as unmatched, their lot incomplete.
			name: "ShortSaleMatchedLater",
			year: 2024,
			trades: []Trade{
				gbp("s1", "a", "W", Sell, "2024-05-01", "100", "10", "0"),
				gbp("b1", "a", "W", Buy, "2024-07-01", "100", "8", "0"),
				gbp("s2", "a", "W", Sell, "2024-09-02", "50", "9", "0"),
			},
			lots: []want{
				{id: "s1/1", acquired: "2024-07-01", proceeds: "1000", basis: "800", adj: "0", gain: "200", rule: "later acquisition"},
				{id: "s2/1", proceeds: "450", basis: "0", adj: "0", gain: "450"},
			},
			check: func(t *testing.T, r Report) {
				if !lotByID(t, r, "s2/1").Incomplete || len(r.Missing) != 1 || r.Missing[0].Kind != MissingUnmatched || r.Missing[0].Date != "2024-09-02" {
					t.Errorf("missing %+v", r.Missing)
				}
			},
		},
		{
			// Several accounts of one person make one pool (CG51550: the
			// same person in the same capacity), and a day's disposals are
			// one disposal: 100 in each account for 1,000 and 1,200, then
			// 50 sold in each account on one day at 15: 1,500 against
			// 100/200 x 2,200 = 1,100, gain 400.
			name: "PoolAcrossAccounts",
			year: 2024,
			trades: []Trade{
				gbp("b1", "a", "P", Buy, "2024-05-01", "100", "10", "0"),
				gbp("b2", "b", "P", Buy, "2024-05-02", "100", "12", "0"),
				gbp("s1", "a", "P", Sell, "2024-08-01", "50", "15", "0"),
				gbp("s2", "b", "P", Sell, "2024-08-01", "50", "15", "0"),
			},
			lots: []want{{id: "s1/1", proceeds: "1500", basis: "1100", adj: "0", gain: "400", rule: "section 104", desc: "100 sh P"}},
			check: func(t *testing.T, r Report) {
				if l := lotByID(t, r, "s1/1"); l.Account != "a,b" || len(l.DisposalFills) != 2 {
					t.Errorf("lot %+v", l)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := compute(t, Request{Jurisdiction: UK, Year: tc.year, Zone: london, Trades: tc.trades})
			if r.Method != "same day, 30 days, Section 104 pool" || r.Currency != "GBP" {
				t.Errorf("method %q currency %q", r.Method, r.Currency)
			}
			if len(r.Lots) != len(tc.lots) {
				t.Errorf("lots %v, want %d", lotIDs(r), len(tc.lots))
			}
			for _, w := range tc.lots {
				checkLot(t, r, w)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// TestCurrency: a trade in EUR converts at its own date's rate, and a
// missing rate is named with its pair and day.
func TestCurrency(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(dateLayout, s); return t }
	rates := []fx.Rate{
		{Base: "EUR", Quote: "GBP", Date: day("2024-04-01"), Value: d("0.85")},
		{Base: "EUR", Quote: "GBP", Date: day("2024-06-01"), Value: d("0.86")},
	}
	// Bought 100 at 10 EUR on 1 May (0.85: 850 GBP), sold 100 at 12 EUR
	// with 2 EUR fees on 3 June (0.86: (1,200 - 2) x 0.86 = 1,030.28):
	// gain 180.28. A USD share sold on 3 June without a USD/GBP rate: its
	// lot is incomplete and the pair and both days are named.
	trades := []Trade{
		in(gbp("e1", "a", "SAP", Buy, "2024-05-01", "100", "10", "0"), "EUR"),
		in(gbp("e2", "a", "SAP", Sell, "2024-06-03", "100", "12", "2"), "EUR"),
		in(gbp("u1", "a", "IBM", Buy, "2024-05-02", "10", "100", "0"), "USD"),
		in(gbp("u2", "a", "IBM", Sell, "2024-06-04", "10", "110", "0"), "USD"),
	}
	r := compute(t, Request{Jurisdiction: UK, Year: 2024, Zone: london, Rates: rates, Trades: trades})
	checkLot(t, r, want{id: "e2/1", proceeds: "1030.28", basis: "850", adj: "0", gain: "180.28"})
	if l := lotByID(t, r, "e2/1"); l.Incomplete {
		t.Errorf("EUR lot incomplete")
	}
	if l := lotByID(t, r, "u2/1"); !l.Incomplete {
		t.Errorf("USD lot without a rate is not marked incomplete")
	}
	if len(r.Missing) != 1 || r.Missing[0].Pair != "USD/GBP" || len(r.Missing[0].Days) != 2 ||
		r.Missing[0].Days[0] != "2024-05-02" || r.Missing[0].Days[1] != "2024-06-04" {
		t.Fatalf("missing %+v", r.Missing)
	}

	// The same in the US: an inverse rate (USD/EUR) serves EUR -> USD.
	rates = []fx.Rate{{Base: "USD", Quote: "EUR", Date: day("2024-01-01"), Value: d("0.8")}}
	us := compute(t, Request{Jurisdiction: US, Year: 2024, Zone: newYork, Rates: rates, Trades: []Trade{
		in(stock("b", "a", "SAP", Buy, "2024-05-01", "10", "100"), "EUR"),
		in(stock("s", "a", "SAP", Sell, "2024-06-03", "10", "120"), "EUR"),
	}})
	// 1,000 EUR / 0.8 = 1,250 USD; 1,200 EUR / 0.8 = 1,500 USD.
	checkLot(t, us, want{id: "s/1", proceeds: "1500", basis: "1250", adj: "0", gain: "250"})
	if len(us.Missing) != 0 {
		t.Errorf("missing %+v", us.Missing)
	}
}

// TestOther: plain FIFO per account and instrument in the report's
// currency, no term, no wash sale (a loss with a rebuy stays a loss).
func TestOther(t *testing.T) {
	trades := []Trade{
		in(stock("b1", "a", "ASML", Buy, "2024-01-10", "10", "600"), "EUR"),
		in(stock("b2", "a", "ASML", Buy, "2024-02-10", "10", "700"), "EUR"),
		in(stock("s1", "a", "ASML", Sell, "2024-03-10", "15", "650"), "EUR"),
		in(stock("b3", "a", "ASML", Buy, "2024-03-12", "5", "640"), "EUR"),
	}
	r := compute(t, Request{Jurisdiction: Other, Year: 2024, Zone: time.UTC, Currency: "EUR", Trades: trades})
	// 10 at 600 sold at 650: +500; 5 of the 700 lot: 3,250 - 3,500 = -250.
	checkLot(t, r, want{id: "s1/1", proceeds: "6500", basis: "6000", adj: "0", gain: "500"})
	checkLot(t, r, want{id: "s1/2", proceeds: "3250", basis: "3500", adj: "0", gain: "-250"})
	if r.Totals.ShortTerm != nil || len(r.WashSales) != 0 || !r.Totals.All.Gain.Equal(d("250")) {
		t.Errorf("totals %+v washes %+v", r.Totals, r.WashSales)
	}
}

// TestValidation: requests that cannot be computed are refused with the
// field named.
func TestValidation(t *testing.T) {
	good := stock("b", "a", "X", Buy, "2024-01-02", "1", "1")
	tests := []struct {
		name  string
		req   Request
		field string
	}{
		{"Jurisdiction", Request{Jurisdiction: "fr", Year: 2024, Zone: time.UTC}, "jurisdiction"},
		{"Zone", Request{Jurisdiction: US, Year: 2024}, "zone"},
		{"Year", Request{Jurisdiction: US, Year: 0, Zone: time.UTC}, "year"},
		{"USCurrency", Request{Jurisdiction: US, Year: 2024, Zone: time.UTC, Currency: "EUR"}, "currency"},
		{"OtherCurrency", Request{Jurisdiction: Other, Year: 2024, Zone: time.UTC}, "currency"},
		{"Quantity", Request{Jurisdiction: US, Year: 2024, Zone: time.UTC, Trades: []Trade{func() Trade { t := good; t.Quantity = decimal.Zero; return t }()}}, "trades[0].quantity"},
		{"Side", Request{Jurisdiction: US, Year: 2024, Zone: time.UTC, Trades: []Trade{func() Trade { t := good; t.Side = "short"; return t }()}}, "trades[0].side"},
		{"DuplicateID", Request{Jurisdiction: US, Year: 2024, Zone: time.UTC, Trades: []Trade{good, good}}, "trades[1].id"},
		{"Reporting", Request{Jurisdiction: US, Year: 2024, Zone: time.UTC, Reporting: map[string]BasisReporting{"a": "maybe"}}, "reporting.a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compute(tc.req)
			e, ok := apperr.As(err)
			if !ok || len(e.Details) == 0 || e.Details[0].Field != tc.field {
				t.Fatalf("error %v, want a validation error on %s", err, tc.field)
			}
		})
	}
}
