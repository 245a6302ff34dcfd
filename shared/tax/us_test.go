package tax

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestUS(t *testing.T) {
	type washWant struct {
		loss, fill, disallowed string
		days                   int
		proRata                bool
	}
	tests := []struct {
		name   string
		year   int
		trades []Trade
		marks  map[string]decimal.Decimal
		byYear map[int]map[string]decimal.Decimal
		report map[string]BasisReporting
		lots   []want
		washes []washWant
		check  func(t *testing.T, r Report)
	}{
		{
			// Pub 550, wash sales, example 1: 100 shares bought for $1,000,
			// sold for $750, 100 bought again within 30 days for $800. The
			// $250 loss is disallowed and the new shares' basis is
			// $800 + $250 = $1,050. Their holding period starts 56 days
			// (5 Jan -> 1 Mar) before 15 Mar: 19 Jan. Sold for $1,200:
			// gain 1,200 - 1,050 = 150, short-term.
			name: "Pub550Example1FullReplacement",
			year: 2024,
			trades: []Trade{
				stock("b1", "acct", "X", Buy, "2024-01-05", "100", "10"),
				stock("s1", "acct", "X", Sell, "2024-03-01", "100", "7.50"),
				stock("b2", "acct", "X", Buy, "2024-03-15", "100", "8"),
				stock("s2", "acct", "X", Sell, "2024-06-03", "100", "12"),
			},
			lots: []want{
				{id: "s1/1", acquired: "2024-01-05", sold: "2024-03-01", proceeds: "750", basis: "1000", adj: "250", gain: "0", code: "W", term: "short", box: "A", desc: "100 sh X"},
				{id: "s2/1", acquired: "2024-01-19", sold: "2024-06-03", proceeds: "1200", basis: "1050", adj: "0", gain: "150", term: "short", box: "A"},
			},
			washes: []washWant{{loss: "s1/1", fill: "b2", disallowed: "250", days: 14}},
			check: func(t *testing.T, r Report) {
				m := lotByID(t, r, "s2/1").Matches[0]
				if m.FillID != "b2" || !m.WashAdjustment.Equal(d("250")) || m.WashedFrom != "s1/1" || !m.Cost.Equal(d("1050")) {
					t.Errorf("replacement match %+v", m)
				}
				if got := r.WashSales[0].ReplacementLots; len(got) != 1 || got[0] != "s2/1" {
					t.Errorf("replacement lots %v", got)
				}
			},
		},
		{
			// Partial replacement, modelled on the example of Treas. Reg.
			// 1.1091-1 (the figures are checked by the arithmetic here, not
			// quoted from the regulation; Pub 550 states the rule): 100
			// shares bought 21 Sep for $5,000; 50 bought 21 Dec for $2,750
			// and 25 on 27 Dec for $1,125; the 100 sold on 3 Jan for
			// $4,000. Loss 1,000; 75 of 100 shares replaced, so 75% of it
			// ($750) is disallowed: $500 to the 50 shares (50/100 x 1,000),
			// $250 to the 25; $250 stays deductible (gain -1,000 + 750).
			// The replacements' basis: 2,750 + 1,125 + 750 = 4,625, seen
			// when they are sold for $60 a share in June: 50 sh: 3,000 -
			// (2,750 + 500) = -250; 25 sh: 1,500 - (1,125 + 250) = 125.
			// Holding period of the sold shares: 21 Sep -> 3 Jan = 104
			// days, so the 21 Dec shares count from 8 Sep, the 27 Dec ones
			// from 14 Sep.
			name: "PartialReplacementProRata",
			year: 2024,
			trades: []Trade{
				stock("b1", "acct", "M", Buy, "2023-09-21", "100", "50"),
				stock("b2", "acct", "M", Buy, "2023-12-21", "50", "55"),
				stock("b3", "acct", "M", Buy, "2023-12-27", "25", "45"),
				stock("s1", "acct", "M", Sell, "2024-01-03", "100", "40"),
				stock("s2", "acct", "M", Sell, "2024-06-03", "75", "60"),
			},
			lots: []want{
				{id: "s1/1", acquired: "2023-09-21", proceeds: "4000", basis: "5000", adj: "750", gain: "-250", code: "W", term: "short"},
				{id: "s2/1", acquired: "2023-09-08", proceeds: "3000", basis: "3250", adj: "0", gain: "-250", term: "short"},
				{id: "s2/2", acquired: "2023-09-14", proceeds: "1500", basis: "1375", adj: "0", gain: "125", term: "short"},
			},
			washes: []washWant{
				{loss: "s1/1", fill: "b2", disallowed: "500", days: -13, proRata: true},
				{loss: "s1/1", fill: "b3", disallowed: "250", days: -7, proRata: true},
			},
		},
		{
			// A chain across the year end, in two accounts. 100 bought 1
			// Nov 2024 at 50, sold 20 Dec at 40: loss 1,000, washed by the
			// 100 bought at 42 on 10 Jan 2025 in another account (basis
			// 4,200 + 1,000 = 5,200, held from 10 Jan - 49 days = 22 Nov).
			// Sold 20 Jan at 45: loss 4,500 - 5,200 = -700, washed by the
			// 100 bought at 44 on 5 Feb (basis 5,100; held from 5 Feb - 59
			// days = 8 Dec 2024). Sold 3 Mar at 55: 5,500 - 5,100 = 400.
			// Over both years the trader made (40-50 + 45-42 + 55-44) x 100
			// = 400, all of it in 2025; 2024 shows the loss washed.
			name: "ChainAcrossYearEnd2025",
			year: 2025,
			trades: []Trade{
				stock("b1", "ira-no", "Y", Buy, "2024-11-01", "100", "50"),
				stock("s1", "ira-no", "Y", Sell, "2024-12-20", "100", "40"),
				stock("b2", "other", "Y", Buy, "2025-01-10", "100", "42"),
				stock("s2", "other", "Y", Sell, "2025-01-20", "100", "45"),
				stock("b3", "other", "Y", Buy, "2025-02-05", "100", "44"),
				stock("s3", "other", "Y", Sell, "2025-03-03", "100", "55"),
			},
			lots: []want{
				{id: "s2/1", acquired: "2024-11-22", sold: "2025-01-20", proceeds: "4500", basis: "5200", adj: "700", gain: "0", code: "W", term: "short"},
				{id: "s3/1", acquired: "2024-12-08", sold: "2025-03-03", proceeds: "5500", basis: "5100", adj: "0", gain: "400", term: "short"},
			},
			washes: []washWant{{loss: "s2/1", fill: "b3", disallowed: "700", days: 16}},
			check: func(t *testing.T, r Report) {
				m := lotByID(t, r, "s2/1").Matches[0]
				if m.WashedFrom != "s1/1" || !m.WashAdjustment.Equal(d("1000")) || m.Account != "other" {
					t.Errorf("the 2024 loss did not move into 2025: %+v", m)
				}
			},
		},
		{
			name: "ChainAcrossYearEnd2024",
			year: 2024,
			trades: []Trade{
				stock("b1", "ira-no", "Y", Buy, "2024-11-01", "100", "50"),
				stock("s1", "ira-no", "Y", Sell, "2024-12-20", "100", "40"),
				stock("b2", "other", "Y", Buy, "2025-01-10", "100", "42"),
			},
			lots: []want{
				{id: "s1/1", acquired: "2024-11-01", sold: "2024-12-20", proceeds: "4000", basis: "5000", adj: "1000", gain: "0", code: "W", term: "short"},
			},
			washes: []washWant{{loss: "s1/1", fill: "b2", disallowed: "1000", days: 21}},
		},
		{
			// Short sale wash sale (Pub 550: a loss closing a short sale
			// is washed by another short sale within 30 days). Short 100
			// at 50 on 1 Mar, covered at 55 on 10 Mar: loss 500. Shorted
			// again at 53 on 20 Mar (10 days later): the 500 goes into
			// that short's basis; covered at 48 on 1 May: 5,300 - (4,800
			// + 500) = 0. Total: (50-55 + 53-48) x 100 = 0. A short's lot
			// is dated the day it was closed, and is short-term.
			name: "ShortSaleWashSale",
			year: 2024,
			trades: []Trade{
				stock("ss1", "acct", "Z", Sell, "2024-03-01", "100", "50"),
				stock("c1", "acct", "Z", Buy, "2024-03-10", "100", "55"),
				stock("ss2", "acct", "Z", Sell, "2024-03-20", "100", "53"),
				stock("c2", "acct", "Z", Buy, "2024-05-01", "100", "48"),
			},
			lots: []want{
				{id: "c1/1", acquired: "2024-03-10", sold: "2024-03-10", proceeds: "5000", basis: "5500", adj: "500", gain: "0", code: "W", term: "short"},
				{id: "c2/1", acquired: "2024-05-01", sold: "2024-05-01", proceeds: "5300", basis: "5300", adj: "0", gain: "0", term: "short"},
			},
			washes: []washWant{{loss: "c1/1", fill: "ss2", disallowed: "500", days: 10}},
			check: func(t *testing.T, r Report) {
				if l := lotByID(t, r, "c1/1"); !l.Short || l.DisposalFills[0] != "ss1" {
					t.Errorf("short lot %+v", l)
				}
			},
		},
		{
			// A loss on stock with a call on the same stock bought 4 days
			// later: listed as possibly identical, not washed. 100 AAPL at
			// 200 then 180: loss 2,000 stays. The option's description is
			// written out.
			name: "OptionOnSameUnderlyingListedNotWashed",
			year: 2024,
			trades: []Trade{
				stock("b1", "acct", "AAPL", Buy, "2024-02-01", "100", "200"),
				stock("s1", "acct", "AAPL", Sell, "2024-03-01", "100", "180"),
				{ID: "o1", Account: "acct", Instrument: "AAPL  240621C00190000", Underlying: "AAPL", AssetType: "option",
					Time: at("2024-03-05"), Side: Buy, Quantity: d("1"), Multiplier: d("100"), Price: d("5"), Fees: d("0.65"), Currency: "USD"},
				{ID: "o2", Account: "acct", Instrument: "AAPL  240621C00190000", Underlying: "AAPL", AssetType: "option",
					Time: at("2024-04-05"), Side: Sell, Quantity: d("1"), Multiplier: d("100"), Price: d("7.5"), Fees: d("0.65"), Currency: "USD"},
			},
			lots: []want{
				{id: "s1/1", proceeds: "18000", basis: "20000", adj: "0", gain: "-2000", term: "short"},
				// 750 - 0.65 = 749.35; 500 + 0.65 = 500.65; gain 248.70.
				{id: "o2/1", proceeds: "749.35", basis: "500.65", adj: "0", gain: "248.70", desc: "1 AAPL 21 Jun 2024 190 Call"},
			},
			check: func(t *testing.T, r Report) {
				if len(r.PossiblyIdentical) != 1 {
					t.Fatalf("possibly identical %+v", r.PossiblyIdentical)
				}
				p := r.PossiblyIdentical[0]
				if p.LossLot != "s1/1" || p.FillID != "o1" || p.DaysBetween != 4 || !p.Loss.Equal(d("2000")) {
					t.Errorf("possibly identical %+v", p)
				}
			},
		},
		{
			// Section 1256: 2 ES futures (x50) bought at 6,000 with $4
			// fees, open at the year end, marked at 6,050 on Tue 31 Dec
			// 2024: 605,000 - 600,004 = 4,996. A December round trip loses
			// (5,880 - 5,900) x 50 = -1,000 and a rebuy 4 days later gains
			// (5,895 - 5,890) x 50 = 250: no wash sale on 1256 contracts.
			// Net 4,246: 40% = 1,698.40 short-term, 60% = 2,547.60 long.
			name: "Section1256MarkedAtYearEnd",
			year: 2024,
			trades: []Trade{
				future("f1", "ESH25", Buy, "2024-12-02", "2", "6000", "4"),
				future("z1", "ESZ24", Buy, "2024-10-01", "1", "5900", "0"),
				future("z2", "ESZ24", Sell, "2024-11-01", "1", "5880", "0"),
				future("z3", "ESZ24", Buy, "2024-11-05", "1", "5890", "0"),
				future("z4", "ESZ24", Sell, "2024-11-20", "1", "5895", "0"),
				future("f2", "ESH25", Sell, "2025-02-03", "2", "6100", "4"),
			},
			marks: map[string]decimal.Decimal{"ESH25": d("6050")},
			lots: []want{
				{id: "z2/1", proceeds: "294000", basis: "295000", adj: "0", gain: "-1000", term: "1256"},
				{id: "z4/1", proceeds: "294750", basis: "294500", adj: "0", gain: "250", term: "1256"},
				{id: "mark-2024/f1/1", sold: "2024-12-31", proceeds: "605000", basis: "600004", adj: "0", gain: "4996", term: "1256", rule: "year-end mark"},
			},
			check: func(t *testing.T, r Report) {
				s := r.Section1256
				if s == nil || !s.NetGain.Equal(d("4246")) || !s.ShortTerm.Equal(d("1698.40")) || !s.LongTerm.Equal(d("2547.60")) {
					t.Fatalf("1256 %+v", s)
				}
				if len(s.Marked) != 1 || s.Marked[0].Instrument != "ESH25" || !s.Marked[0].Mark.Equal(d("6050")) || s.Marked[0].Date != "2024-12-31" {
					t.Errorf("marked %+v", s.Marked)
				}
				if !r.Totals.All.Gain.IsZero() || r.Totals.All.Lots != 0 {
					t.Errorf("1256 lots reached the 8949 totals: %+v", r.Totals.All)
				}
				if len(r.Missing) != 0 {
					t.Errorf("missing %+v", r.Missing)
				}
			},
		},
		{
			// The next year: the contract's basis is the mark, 605,000;
			// sold at 6,100 less $4: 609,996 - 605,000 = 4,996. Over both
			// years: (6,100 - 6,000) x 2 x 50 - 8 = 9,992 = 4,996 + 4,996.
			name:   "Section1256BasisCarriedToNextYear",
			year:   2025,
			trades: []Trade{future("f1", "ESH25", Buy, "2024-12-02", "2", "6000", "4"), future("f2", "ESH25", Sell, "2025-02-03", "2", "6100", "4")},
			byYear: map[int]map[string]decimal.Decimal{2024: {"ESH25": d("6050")}},
			lots:   []want{{id: "f2/1", proceeds: "609996", basis: "605000", adj: "0", gain: "4996", term: "1256", rule: "fifo"}},
			check: func(t *testing.T, r Report) {
				if m := lotByID(t, r, "f2/1").Matches[0]; m.Rule != "year-end mark" || m.Date != "2024-12-31" {
					t.Errorf("match %+v", m)
				}
			},
		},
		{
			// Without the mark the open contract is named, never zero.
			name:   "Section1256MissingMark",
			year:   2024,
			trades: []Trade{future("f1", "ESH25", Buy, "2024-12-02", "2", "6000", "4")},
			check: func(t *testing.T, r Report) {
				if len(r.Missing) != 1 || r.Missing[0].Kind != MissingMark || r.Missing[0].Instrument != "ESH25" || r.Missing[0].Date != "2024-12-31" {
					t.Fatalf("missing %+v", r.Missing)
				}
				if len(r.Lots) != 0 {
					t.Errorf("lots %+v", r.Lots)
				}
			},
		},
		{
			// Holding period: bought 15 Mar 2023, the lot sold on 15 Mar
			// 2024 (the anniversary) is short-term, the one sold the day
			// after is long-term. Bought on 29 Feb 2024: the anniversary is
			// 28 Feb 2025 (short), 1 Mar 2025 is long. Box by account: the
			// foreign broker without a 1099-B is C (short) / F (long).
			name: "AnniversaryBoundary",
			year: 2024,
			trades: []Trade{
				stock("b1", "us", "K", Buy, "2023-03-15", "20", "10"),
				stock("s1", "us", "K", Sell, "2024-03-15", "10", "11"),
				stock("s2", "us", "K", Sell, "2024-03-16", "10", "11"),
				stock("b2", "foreign", "K", Buy, "2023-03-15", "20", "10"),
				stock("s3", "foreign", "K", Sell, "2024-03-15", "10", "11"),
				stock("s4", "foreign", "K", Sell, "2024-03-16", "10", "11"),
			},
			report: map[string]BasisReporting{"foreign": NoForm1099B},
			lots: []want{
				{id: "s1/1", proceeds: "110", basis: "100", adj: "0", gain: "10", term: "short", box: "A"},
				{id: "s2/1", proceeds: "110", basis: "100", adj: "0", gain: "10", term: "long", box: "D"},
				{id: "s3/1", proceeds: "110", basis: "100", adj: "0", gain: "10", term: "short", box: "C"},
				{id: "s4/1", proceeds: "110", basis: "100", adj: "0", gain: "10", term: "long", box: "F"},
			},
		},
		{
			name: "LeapDayAnniversary",
			year: 2025,
			trades: []Trade{
				stock("b1", "us", "L", Buy, "2024-02-29", "2", "10"),
				stock("s1", "us", "L", Sell, "2025-02-28", "1", "12"),
				stock("s2", "us", "L", Sell, "2025-03-01", "1", "12"),
			},
			lots: []want{
				{id: "s1/1", proceeds: "12", basis: "10", adj: "0", gain: "2", term: "short"},
				{id: "s2/1", proceeds: "12", basis: "10", adj: "0", gain: "2", term: "long"},
			},
		},
		{
			// Selling part of one purchase at a loss: the rest of that
			// same purchase is not its replacement. 100 bought at 10, 50
			// sold at 8 eight days later: loss 100, allowed.
			name: "OwnLotIsNoReplacement",
			year: 2024,
			trades: []Trade{
				stock("b1", "acct", "Q", Buy, "2024-05-01", "100", "10"),
				stock("s1", "acct", "Q", Sell, "2024-05-09", "50", "8"),
			},
			lots: []want{{id: "s1/1", proceeds: "400", basis: "500", adj: "0", gain: "-100", term: "short"}},
		},
		{
			// A replacement share absorbs one loss only. Two losses of 100
			// shares each (1 Jul: -100, 2 Jul: -200, both from lots bought
			// in May), one purchase of 100 on 10 Jul: the first loss takes
			// it (Reg 1.1091-1(b): losses in the order of the sales); the
			// second stays deductible.
			name: "ReplacementAbsorbsOneLoss",
			year: 2024,
			trades: []Trade{
				stock("b1", "acct", "R", Buy, "2024-05-01", "100", "10"),
				stock("b2", "acct", "R", Buy, "2024-05-02", "100", "11"),
				stock("s1", "acct", "R", Sell, "2024-07-01", "100", "9"),
				stock("s2", "acct", "R", Sell, "2024-07-02", "100", "9"),
				stock("b3", "acct", "R", Buy, "2024-07-10", "100", "9"),
			},
			lots: []want{
				{id: "s1/1", proceeds: "900", basis: "1000", adj: "100", gain: "0", code: "W"},
				{id: "s2/1", proceeds: "900", basis: "1100", adj: "0", gain: "-200"},
			},
			washes: []washWant{{loss: "s1/1", fill: "b3", disallowed: "100", days: 9}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := compute(t, Request{Jurisdiction: US, Year: tc.year, Zone: newYork, Trades: tc.trades,
				Marks: tc.marks, MarksByYear: tc.byYear, Reporting: tc.report})
			if r.Method != "FIFO" || r.Currency != "USD" {
				t.Errorf("method %q currency %q", r.Method, r.Currency)
			}
			for _, w := range tc.lots {
				checkLot(t, r, w)
			}
			if len(r.Lots) != len(tc.lots) && tc.check == nil {
				t.Errorf("lots %v, want %d", lotIDs(r), len(tc.lots))
			}
			if len(r.WashSales) != len(tc.washes) {
				t.Fatalf("wash sales %+v, want %d", r.WashSales, len(tc.washes))
			}
			for i, w := range tc.washes {
				g := r.WashSales[i]
				if g.LossLot != w.loss || g.ReplacementFill != w.fill || !g.Disallowed.Equal(d(w.disallowed)) || g.DaysBetween != w.days || g.ProRata != w.proRata {
					t.Errorf("wash sale %d = %+v, want %+v", i, g, w)
				}
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

// future is an ES-style Section 1256 future (x50) in USD.
func future(id, contract string, side Side, day, qty, price, fees string) Trade {
	return Trade{ID: id, Account: "fut", Instrument: contract, Underlying: "ES", AssetType: "future", Section1256: true,
		Time: at(day), Side: side, Quantity: d(qty), Multiplier: d("50"), Price: d(price), Fees: d(fees), Currency: "USD"}
}
