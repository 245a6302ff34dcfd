package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

// recordJournal is a journal of one UTC account, two tags, and two
// playbooks of one criterion each.
func recordJournal() journalRows {
	utc := tradingDay{loc: time.UTC}
	return journalRows{
		accounts: []account{{day: utc, entry: utc}}, accountIDs: map[[16]byte]int32{{1}: 0}, currencies: []string{"USD"},
		tags: []tag{{id: "t2"}, {id: "t7"}}, tagIndex: map[[16]byte]int32{{2}: 0, {7}: 1},
		playbooks: []playbook{{id: "b1", criteria: []int32{0}}, {id: "b2", criteria: []int32{1}}},
		bookIndex: map[[16]byte]int32{{3}: 0, {4}: 1},
		criteria:  []criterion{{id: "c1", playbook: 0}, {id: "c2", playbook: 1}},
		critIndex: map[[16]byte]int32{{5}: 0, {6}: 1},
	}
}

var recordDay = time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)

// record is a closed stock trade of recordDay: net 12.5, no R.
func record(minute int) Record {
	at := recordDay.Add(time.Duration(minute) * time.Minute)
	return Record{ClosedAt: at, OpenedAt: at.Add(-time.Hour), AssetType: "stock", Symbol: "AAPL", Underlying: "AAPL",
		Tags: [][16]byte{{2}}, Net: decimal.RequireFromString("12.5"), Gross: decimal.RequireFromString("13"),
		Fees: decimal.RequireFromString("0.5"), Quantity: 10, Notional: 1000}
}

func encode(t testing.TB, recs ...Record) []byte {
	t.Helper()
	b, err := EncodeRow(recordDay, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeRow reads every record of a row with the report's own steps
// (header, head, figures), filtering nothing.
func decodeRow(j journalRows, b []byte) ([]closed, []string, error) {
	fd := newFold(j, compile(listquery.Filter{}, j), true)
	d := decoder{fold: fd}
	r := rowReader{b: b}
	d.strs, d.ids = header(&r, newRowString, d.id, nil, nil)
	var out []closed
	prev := dayOf(recordDay) * 86400_000000
	for r.more() {
		var c closed
		r.head(&c, prev, len(d.strs), d.ids, j.criteria)
		r.figures(&c)
		if r.err != nil {
			break
		}
		c.assetType, c.symbol, c.underlying = d.global(c.assetType), d.global(c.symbol), d.global(c.underlying)
		if c.strategy > 0 {
			c.strategy = 1 + d.global(c.strategy-1)
		}
		prev = c.at
		out = append(out, c)
	}
	return out, fd.strings, r.err
}

// kept is how many records of a row the report's decoder folds under f.
func kept(j journalRows, f listquery.Filter, b []byte) (int, *fold, error) {
	fd := newFold(j, compile(f, j), false)
	err := (&decoder{fold: fd}).records(b, dayOf(recordDay), 0)
	return fd.items.n, fd, err
}

// TestRecordRoundTrip: every field of random records comes back as it was
// encoded, through the report's own decoder.
func TestRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	j := recordJournal()
	tagIDs, bookIDs, critIDs := [][16]byte{{2}, {7}}, [][16]byte{{3}, {4}}, [][16]byte{{5}, {6}}
	figure := func() decimal.Decimal {
		switch rng.IntN(4) {
		case 0: // past int64 ten-thousandths
			return decimal.RequireFromString("-98765432109876543210.1234")
		case 1:
			return decimal.Zero
		}
		return decimal.New(rng.Int64N(2e9)-1e9, -int32(rng.IntN(5)))
	}
	// An excursion's figures: up to the bound, and 0.
	excursionFigure := func() decimal.Decimal {
		switch rng.IntN(4) {
		case 0:
			return decimal.RequireFromString("-99999999999999.9999")
		case 1:
			return decimal.Zero
		}
		return decimal.New(rng.Int64N(2e9)-1e9, -int32(rng.IntN(5)))
	}
	for round := range 200 {
		var recs []Record
		minute := 0
		for range 1 + rng.IntN(30) {
			minute += rng.IntN(3) // ties too
			r := Record{ClosedAt: recordDay.Add(time.Duration(minute)*time.Minute + time.Duration(rng.IntN(1e6))*time.Microsecond),
				Short: rng.IntN(2) == 0, AssetType: []string{"stock", "option", "future", "future_option"}[rng.IntN(4)],
				Symbol: []string{"AAPL", "AAPL240119C00190000", "ESZ24", "ÄÖÜ"}[rng.IntN(4)],
				Net:    figure(), Gross: figure(), Fees: figure(), Quantity: rng.Float64() * 1000, Notional: rng.NormFloat64() * 1e6}
			r.OpenedAt = r.ClosedAt.Add(-time.Duration(rng.Int64N(1e9)) * time.Microsecond)
			r.Underlying = r.Symbol
			if rng.IntN(2) == 0 {
				r.Underlying = "AAPL"
			}
			for _, k := range rng.Perm(2)[:rng.IntN(3)] {
				r.Tags = append(r.Tags, tagIDs[k])
			}
			if rng.IntN(2) == 0 {
				b := rng.IntN(2)
				r.Playbook = &bookIDs[b]
				if rng.IntN(2) == 0 {
					r.Met = [][16]byte{critIDs[b]}
				}
			}
			if rng.IntN(3) == 0 {
				r.Strategy = string(journal.StrategyNames[rng.IntN(len(journal.StrategyNames))])
			}
			if rng.IntN(2) == 0 {
				v := figure()
				r.R = &v
			}
			withR := rng.IntN(2) == 0
			excursion := func() *Excursion {
				if rng.IntN(3) == 0 {
					return nil
				}
				e := &Excursion{Money: excursionFigure()}
				if withR {
					v := excursionFigure()
					e.R = &v
				}
				return e
			}
			r.MAE, r.MFE = excursion(), excursion()
			if k := rng.IntN(3); k > 0 {
				r.FirstHit, r.AtHit = []string{HitTarget, HitStop}[k-1], excursionFigure()
			}
			recs = append(recs, r)
		}
		slices.SortStableFunc(recs, func(a, b Record) int { return a.ClosedAt.Compare(b.ClosedAt) })
		row := encode(t, recs...)
		// A filter that refuses the longs skips their figures unread: the
		// shorts' excursions are read in step all the same.
		var shorts, shortMAEs int
		for _, r := range recs {
			if r.Short {
				shorts++
				if r.MAE != nil {
					shortMAEs++
				}
			}
		}
		if n, fd, err := kept(j, listquery.Filter{Side: journal.SideShort}, row); err != nil || n != shorts || len(fd.sums[0].mae.values) != shortMAEs {
			t.Fatalf("round %d: the shorts read %d of %d (%v)", round, n, shorts, err)
		}
		cs, strs, err := decodeRow(j, row)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if len(cs) != len(recs) {
			t.Fatalf("round %d: %d records of %d", round, len(cs), len(recs))
		}
		for i, r := range recs {
			c := &cs[i]
			str := func(k int32) string { return strs[k] }
			var tags, met [][16]byte
			for _, k := range c.tags {
				tags = append(tags, tagIDs[k])
			}
			for _, k := range c.met {
				met = append(met, critIDs[k])
			}
			var book *[16]byte
			if c.playbook >= 0 {
				book = &bookIDs[c.playbook]
			}
			kind := ""
			if c.strategy > 0 {
				kind = str(c.strategy - 1)
			}
			var rm *decimal.Decimal
			if c.hasR {
				v := c.r.decimal()
				rm = &v
			}
			got := Record{ClosedAt: time.UnixMicro(c.at).UTC(), OpenedAt: time.UnixMicro(c.opened).UTC(), Short: !c.long,
				AssetType: str(c.assetType), Symbol: str(c.symbol), Underlying: str(c.underlying), Tags: tags, Playbook: book,
				Met: met, Strategy: kind, Net: c.net.decimal(), Gross: c.gross.decimal(), Fees: c.fees.decimal(), R: rm,
				Quantity: c.quantity, Notional: c.notional}
			excursion := func(flag uint16, money, rMult int64) *Excursion {
				if c.flags&flag == 0 {
					return nil
				}
				e := &Excursion{Money: decimal.New(money, -4)}
				if c.flags&flagExcursionR != 0 {
					v := decimal.New(rMult, -4)
					e.R = &v
				}
				return e
			}
			got.MAE, got.MFE = excursion(flagMAE, c.mae, c.maeR), excursion(flagMFE, c.mfe, c.mfeR)
			switch {
			case c.flags&flagHitTarget != 0:
				got.FirstHit, got.AtHit = HitTarget, decimal.New(c.atHit, -4)
			case c.flags&flagHitStop != 0:
				got.FirstHit, got.AtHit = HitStop, decimal.New(c.atHit, -4)
			}
			if !sameRecord(got, r) {
				t.Fatalf("round %d record %d:\n got %+v\nwant %+v", round, i, got, r)
			}
		}
	}
}

func sameRecord(a, b Record) bool {
	sameDecimal := func(x, y *decimal.Decimal) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	sameExcursion := func(x, y *Excursion) bool {
		return x == nil && y == nil || x != nil && y != nil && x.Money.Equal(y.Money) && sameDecimal(x.R, y.R)
	}
	return sameExcursion(a.MAE, b.MAE) && sameExcursion(a.MFE, b.MFE) && a.FirstHit == b.FirstHit && a.AtHit.Equal(b.AtHit) && a.ClosedAt.Equal(b.ClosedAt) && a.OpenedAt.Equal(b.OpenedAt) && a.Short == b.Short && a.AssetType == b.AssetType &&
		a.Symbol == b.Symbol && a.Underlying == b.Underlying && slices.Equal(a.Tags, b.Tags) &&
		(a.Playbook == nil) == (b.Playbook == nil) && (a.Playbook == nil || *a.Playbook == *b.Playbook) &&
		slices.Equal(a.Met, b.Met) && a.Strategy == b.Strategy && a.Net.Equal(b.Net) && a.Gross.Equal(b.Gross) &&
		a.Fees.Equal(b.Fees) && sameDecimal(a.R, b.R) && a.Quantity == b.Quantity && a.Notional == b.Notional
}

// TestRecordRefusals: EncodeRow refuses records out of close order, out of
// the row's day, opened after their close, or with a figure it cannot
// hold; the decoder refuses a row of another version and cut rows.
func TestRecordRefusals(t *testing.T) {
	late, early := record(10), record(5)
	otherDay := record(0)
	otherDay.ClosedAt = otherDay.ClosedAt.Add(-time.Minute)
	opened := record(1)
	opened.OpenedAt = opened.ClosedAt.Add(time.Second)
	fine := record(1)
	fine.Fees = decimal.RequireFromString("0.00001")
	huge := record(1)
	huge.Net = decimal.New(1, 40)
	oneR := record(1)
	one := decimal.NewFromInt(1)
	oneR.MAE, oneR.MFE = &Excursion{Money: one, R: &one}, &Excursion{Money: one}
	hit := record(1)
	hit.FirstHit = "both"
	far := record(1)
	far.MAE = &Excursion{Money: decimal.New(1, 14)}
	for name, recs := range map[string][]Record{"order": {late, early}, "day": {otherDay}, "opened": {opened},
		"places": {fine}, "size": {huge}, "one R": {oneR}, "hit": {hit}, "far": {far}} {
		if _, err := EncodeRow(recordDay, recs); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
	b := encode(t, record(1), record(2))
	old := slices.Clone(b)
	old[0] = RecordVersion + 1
	if _, _, err := kept(recordJournal(), listquery.Filter{}, old); err != errRecordVersion {
		t.Errorf("another version: %v", err)
	} else if e, ok := apperr.As(classify("closes", fmt.Errorf("closed trades: %w", err))); !ok || e.Code != apperr.ServiceUnavailable {
		t.Errorf("another version answers %v, not 503 until the rebuild", e)
	}
	for n := 1; n < len(b); n++ {
		if k, _, err := kept(recordJournal(), listquery.Filter{}, b[:n]); err == nil && k == 2 {
			t.Errorf("cut at %d: read whole", n)
		}
	}
}

// TestRecordStrategyKind: a strategy's record names its kind, a position's
// none; the strategy filter keeps the kinds it names.
func TestRecordStrategyKind(t *testing.T) {
	condor := record(1)
	condor.Strategy = "iron-condor"
	plain := record(2)
	condor2 := record(3)
	condor2.Strategy = "iron-condor"
	rows := encode(t, condor, plain, condor2)
	cs, strs, err := decodeRow(recordJournal(), rows)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := cs[0], cs[1], cs[2]
	if a.strategy == 0 || strs[a.strategy-1] != "iron-condor" || b.strategy != 0 || c.strategy != a.strategy {
		t.Fatalf("kinds %d %d %d of %v", a.strategy, b.strategy, c.strategy, strs)
	}
	for want, kinds := range map[int][]string{2: {"iron-condor"}, 1: {listquery.NoStrategy}, 3: {"iron-condor", listquery.NoStrategy}, 0: {"vertical"}} {
		if n, _, err := kept(recordJournal(), listquery.Filter{Strategies: kinds}, rows); err != nil || n != want {
			t.Errorf("strategy filter %v kept %d (%v), want %d", kinds, n, err, want)
		}
	}
}

// TestRecordPlaybook: the decoder reads a record's playbook and met
// criteria, drops a tick of another playbook's criterion, an unknown
// playbook and an unknown tag, and the playbook filter keeps what it names.
func TestRecordPlaybook(t *testing.T) {
	j := recordJournal()
	b1, b9 := [16]byte{3}, [16]byte{9}
	first, second, third := record(1), record(2), record(3)
	first.Playbook, first.Met = &b1, [][16]byte{{5}, {6}}
	third.Playbook, third.Met, third.Tags = &b9, [][16]byte{{5}}, [][16]byte{{2}, {8}}
	rows := encode(t, first, second, third)
	cs, _, err := decodeRow(j, rows)
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for i, c := range cs {
		got = append(got, c.playbook, int32(len(c.met)))
		if c.net != (units{lo: 125_000}) || len(c.tags) != 1 || c.hasR {
			t.Fatalf("record %d: %+v", i, c)
		}
	}
	// b1 with c1 (c2 is b2's), none, an unknown playbook with nothing.
	if want := []int32{0, 1, -1, 0, -1, 0}; !slices.Equal(got, want) {
		t.Fatalf("playbooks and met counts %v, want %v", got, want)
	}
	for _, tc := range []struct {
		ids  []string
		kept int
	}{
		{[]string{"03000000-0000-0000-0000-000000000000"}, 1},
		{[]string{"04000000-0000-0000-0000-000000000000"}, 0},
	} {
		if n, _, err := kept(j, listquery.Filter{PlaybookIDs: tc.ids}, rows); err != nil || n != tc.kept {
			t.Fatalf("filter %v kept %d (%v)", tc.ids, n, err)
		}
	}
}

// TestRecordSize: a day of plain stock trades packs into a few dozen
// bytes a trade, a third of the fixed-width layout it replaced.
func TestRecordSize(t *testing.T) {
	var recs []Record
	for i := range 20 {
		r := record(20 * i)
		r.Symbol = []string{"AAPL", "MSFT", "NVDA", "TSLA"}[i%4]
		r.Underlying = r.Symbol
		v := decimal.RequireFromString("1.25")
		r.R = &v
		recs = append(recs, r)
	}
	if n := len(encode(t, recs...)); n > 20*45 {
		t.Fatalf("20 trades take %d bytes", n)
	}
}

// FuzzRecords: whatever the bytes, the decoder answers an error or
// records, never a panic.
func FuzzRecords(f *testing.F) {
	b1 := [16]byte{3}
	withBook := record(1)
	withBook.Playbook, withBook.Met = &b1, [][16]byte{{5}}
	condor := record(2)
	condor.Strategy, condor.Underlying, condor.Short = "iron-condor", "SPY", true
	v := decimal.RequireFromString("-2.5")
	condor.R = &v
	f.Add(encode(f, withBook))
	f.Add(encode(f, record(0)))
	f.Add(encode(f, withBook, condor))
	f.Add(encode(f, condor)[:20])
	f.Add([]byte{RecordVersion, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte(strings.Repeat("\x01", 40)))
	j := recordJournal()
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _ = kept(j, listquery.Filter{}, b)
		_, _, _ = decodeRow(j, b)
	})
}

// TestRecordFloats: quantities and notionals keep every bit, round
// figures in a byte or two.
func TestRecordFloats(t *testing.T) {
	for _, v := range []float64{0, 100, 0.1, -3.75, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		r := record(1)
		r.Quantity, r.Notional = v, v
		cs, _, err := decodeRow(recordJournal(), encode(t, r))
		if err != nil || cs[0].quantity != v || cs[0].notional != v {
			t.Fatalf("%v: %v", v, err)
		}
	}
}
