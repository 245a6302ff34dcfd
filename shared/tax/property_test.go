package tax

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/journal"
)

// instrumentKind is one instrument of the random journals.
type instrumentKind struct {
	key, underlying, assetType string
	mult                       int64
	s1256                      bool
}

var propertyInstruments = []instrumentKind{
	{"AAA", "AAA", "stock", 1, false},
	{"BBB", "BBB", "stock", 1, false},
	{"AAA   250117C00050000", "AAA", "option", 100, false},
	{"ESH5", "ES", "future", 50, true},
}

// randomJournal returns trades that end flat on every account and
// instrument: buys and sells of random sizes over four years, so positions
// go long and short, are closed in parts and reverse in one fill. Prices
// are whole cents and quantities whole units, so the journal's figures are
// exact.
func randomJournal(rng *rand.Rand, currency string) []Trade {
	var trades []Trade
	t0 := time.Date(2022, 1, 3, 14, 30, 0, 0, time.UTC)
	accounts := []string{"acct1", "acct2", "acct3"}[:1+rng.Intn(3)]
	n := 0
	for _, acct := range accounts {
		for _, inst := range propertyInstruments {
			if rng.Intn(3) == 0 {
				continue
			}
			pos := int64(0)
			steps := 1 + rng.Intn(12)
			for s := 0; s <= steps; s++ {
				var q int64
				if s == steps {
					q = -pos // flat at the end
				} else {
					q = int64(1 + rng.Intn(40))
					if rng.Intn(2) == 0 {
						q = -q
					}
				}
				if q == 0 {
					continue
				}
				side := Buy
				if q < 0 {
					side, q = Sell, -q
				}
				pos += map[Side]int64{Buy: 1, Sell: -1}[side] * q
				n++
				trades = append(trades, Trade{
					ID: fmt.Sprintf("t%d", n), Account: acct, Instrument: inst.key, Underlying: inst.underlying,
					AssetType: inst.assetType, Section1256: inst.s1256, Side: side, Quantity: decimal.NewFromInt(q),
					Multiplier: decimal.NewFromInt(inst.mult), Price: decimal.New(int64(1+rng.Intn(20000)), -2),
					Fees: decimal.New(int64(rng.Intn(500)), -2), Currency: currency,
				})
			}
		}
	}
	// Distinct times spread over four years, in random order across the
	// books but in order within each: wash sales then meet replacements in
	// other accounts and years.
	offsets := rng.Perm(len(trades))
	slots := make([]int, len(trades))
	for i := range slots {
		slots[i] = rng.Intn(4 * 365 * 24)
	}
	sortInts(slots)
	for i := range slots {
		if i > 0 && slots[i] <= slots[i-1] {
			slots[i] = slots[i-1] + 1
		}
	}
	// Each book's trades must stay in their order: give the book's k-th
	// trade its k-th slot among those the permutation hands it.
	byBook := map[string][]int{}
	var books []string
	for i, t := range trades {
		k := t.Account + "|" + t.Instrument
		if _, ok := byBook[k]; !ok {
			books = append(books, k)
		}
		byBook[k] = append(byBook[k], i)
	}
	next := 0
	taken := make([]int, len(trades))
	for i := range offsets {
		taken[i] = slots[offsets[i]]
	}
	for _, k := range books {
		idx := byBook[k]
		mine := make([]int, len(idx))
		for j := range idx {
			mine[j] = taken[next]
			next++
		}
		sortInts(mine)
		for j, i := range idx {
			trades[i].Time = t0.Add(time.Duration(mine[j]) * time.Hour)
		}
	}
	rng.Shuffle(len(trades), func(i, j int) { trades[i], trades[j] = trades[j], trades[i] })
	return trades
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// journalNet is what the journal's own domain makes of the same fills: the
// fills of each account and instrument are cut into positions where the
// quantity crosses zero (the remainder of a reversing fill opens the other
// side), and journal.Compute gives each position's net P&L.
func journalNet(t testing.TB, trades []Trade) decimal.Decimal {
	t.Helper()
	byBook := map[string][]Trade{}
	var books []string
	for _, tr := range trades {
		k := tr.Account + "|" + tr.Instrument
		if _, ok := byBook[k]; !ok {
			books = append(books, k)
		}
		byBook[k] = append(byBook[k], tr)
	}
	total := decimal.Zero
	for _, k := range books {
		fills := byBook[k]
		sortTrades(fills)
		var cur *journal.Trade
		pos := decimal.Zero
		flush := func() {
			if cur == nil {
				return
			}
			f, err := journal.Compute(*cur)
			if err != nil {
				t.Fatalf("journal.Compute: %v", err)
			}
			total = total.Add(f.NetPnL)
			cur = nil
		}
		for _, tr := range fills {
			signed := tr.Quantity
			if tr.Side == Sell {
				signed = signed.Neg()
			}
			left, fees := tr.Quantity, tr.Fees
			if !pos.IsZero() && pos.Sign() != signed.Sign() {
				q := decimal.Min(left, pos.Abs())
				cur.Fills = append(cur.Fills, journal.Fill{ID: tr.ID, Type: journal.FillExit, Price: tr.Price, Quantity: q, Fees: fees, FilledAt: tr.Time})
				fees = decimal.Zero // a reversing fill's fees all go to its close: only their sum matters here
				left = left.Sub(q)
				if signed.IsPositive() {
					pos = pos.Add(q)
				} else {
					pos = pos.Sub(q)
				}
				if pos.IsZero() {
					flush()
				}
			}
			if !left.IsPositive() {
				continue
			}
			if cur == nil {
				side := journal.SideLong
				if signed.IsNegative() {
					side = journal.SideShort
				}
				cur = &journal.Trade{Side: side, Multiplier: tr.Multiplier}
			}
			cur.Fills = append(cur.Fills, journal.Fill{ID: tr.ID, Type: journal.FillEntry, Price: tr.Price, Quantity: left, Fees: fees, FilledAt: tr.Time})
			if signed.IsPositive() {
				pos = pos.Add(left)
			} else {
				pos = pos.Sub(left)
			}
		}
		if !pos.IsZero() {
			t.Fatalf("book %s does not end flat: %s", k, pos)
		}
		flush()
	}
	return total
}

func sortTrades(ts []Trade) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Time.Before(ts[j-1].Time); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// TestPropertyGainsAddUpToJournal: for random journals that end flat, the
// gains of every lot of every year add up exactly to the journal's own
// net realised P&L of the same fills, in each jurisdiction. Wash sales,
// year-end marks and UK matching only move amounts between lots and years.
// Each report also keeps gain = proceeds - basis + adjustment on every lot.
func TestPropertyGainsAddUpToJournal(t *testing.T) {
	rng := rand.New(rand.NewSource(20240406))
	const cases = 400
	washed := 0
	for c := range cases {
		cur := "USD"
		j := []Jurisdiction{US, UK, Other}[c%3]
		if j == UK {
			cur = "GBP"
		}
		trades := randomJournal(rng, cur)
		want := journalNet(t, trades)
		marks := map[int]map[string]decimal.Decimal{}
		for y := 2021; y <= 2027; y++ {
			if rng.Intn(4) > 0 { // some year ends have no mark: the gain then falls at the close
				marks[y] = map[string]decimal.Decimal{"ESH5": decimal.New(int64(1+rng.Intn(20000)), -2)}
			}
		}
		got := decimal.Zero
		for y := 2020; y <= 2027; y++ {
			r, err := Compute(Request{Jurisdiction: j, Year: y, Zone: newYork, Currency: cur, Trades: trades, MarksByYear: marks})
			if err != nil {
				t.Fatalf("case %d: %v", c, err)
			}
			checkInvariants(t, r)
			for _, l := range r.Lots {
				got = got.Add(l.Gain)
				if l.Incomplete && j != US {
					t.Fatalf("case %d: lot %s incomplete: %+v", c, l.ID, r.Missing)
				}
			}
			washed += len(r.WashSales)
		}
		if !got.Equal(want) {
			t.Fatalf("case %d (%s): lots add up to %s, the journal's net P&L is %s\n%+v", c, j, got, want, trades)
		}
	}
	if washed == 0 {
		t.Fatal("no case had a wash sale: the generator does not exercise them")
	}
	t.Logf("%d cases, %d wash sales", cases, washed)
}
