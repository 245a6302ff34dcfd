package stats

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
	"time"

	"tradejournal/shared/journal"
)

// recordJournal is a journal of one UTC account, one tag, and two
// playbooks of one criterion each.
func recordJournal() journalRows {
	utc := tradingDay{loc: time.UTC}
	return journalRows{
		accounts: []account{{day: utc, entry: utc}}, accountIDs: map[[16]byte]int32{{1}: 0},
		tags: []tag{{id: "t"}}, tagIndex: map[[16]byte]int32{{2}: 0},
		playbooks: []playbook{{id: "b1", criteria: []int32{0}}, {id: "b2", criteria: []int32{1}}},
		bookIndex: map[[16]byte]int32{{3}: 0, {4}: 1},
		criteria:  []criterion{{id: "c1", playbook: 0}, {id: "c2", playbook: 1}},
		critIndex: map[[16]byte]int32{{5}: 0, {6}: 1},
	}
}

// packRecord writes a record as closed_trades_refresh does (migrations
// 0022 and 0032): net P&L 12.5 in ten-thousandths, no R multiple.
func packRecord(book *[16]byte, met ...[16]byte) []byte {
	var b []byte
	b = append(b, make([]byte, 16)...) // id
	b = binary.BigEndian.AppendUint64(b, uint64(700_000_000_000_000))
	b = binary.BigEndian.AppendUint64(b, uint64(699_999_000_000_000))
	b = append(b, 0) // long
	for _, s := range []string{"stock", "AAPL", "AAPL"} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) // tag {2}
	if book == nil {
		b = binary.BigEndian.AppendUint16(b, 0)
	} else {
		b = binary.BigEndian.AppendUint16(b, 1)
		b = append(b, book[:]...)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(met)))
	for _, m := range met {
		b = append(b, m[:]...)
	}
	b = binary.BigEndian.AppendUint16(b, 0)              // in no strategy (withKind)
	for _, v := range []int64{125_000, 130_000, 5_000} { // net, gross, fees
		b = binary.BigEndian.AppendUint16(b, uint16(0xfffe))
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	b = binary.BigEndian.AppendUint16(b, uint16(0xffff)) // no R
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(10))
	return binary.BigEndian.AppendUint64(b, math.Float64bits(1000))
}

// figuresLength is the bytes of packRecord after the strategy kind: three
// int8 figures, no R, the quantity and the notional.
const figuresLength = 3*(2+8) + 2 + 16

// withKind is a record of packRecord without a playbook made a strategy's
// of that kind.
func withKind(b []byte, kind string) []byte {
	at := len(b) - figuresLength - 2
	out := binary.BigEndian.AppendUint16(slices.Clone(b[:at]), uint16(len(kind)))
	return append(append(out, kind...), b[at+2:]...)
}

// TestRecordStrategyKind: a strategy's record names its kind, a position's
// none; a record cut in its kind is refused.
func TestRecordStrategyKind(t *testing.T) {
	rows := slices.Concat(withKind(packRecord(nil), "iron-condor"), packRecord(nil), withKind(packRecord(nil), "iron-condor"))
	cs, err := decodeRecords(t, recordJournal(), journal.Filter{}, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.list.release()
	a, b, c := cs.list.at(0), cs.list.at(1), cs.list.at(2)
	if a.strategy == 0 || cs.strings[a.strategy-1] != "iron-condor" || b.strategy != 0 || c.strategy != a.strategy {
		t.Fatalf("kinds %d %d %d of %v", a.strategy, b.strategy, c.strategy, cs.strings)
	}
	one := withKind(packRecord(nil), "iron-condor")
	if _, err := decodeRecords(t, recordJournal(), journal.Filter{}, one[:len(one)-figuresLength-3]); err == nil {
		t.Fatal("a record cut in its kind was read")
	}
	for want, kinds := range map[int][]string{2: {"iron-condor"}, 1: {journal.NoStrategy}, 3: {"iron-condor", journal.NoStrategy}, 0: {"vertical"}} {
		cs, err := decodeRecords(t, recordJournal(), journal.Filter{Strategies: kinds}, rows)
		if err != nil || len(cs.list.chunks[0]) != want {
			t.Errorf("strategy filter %v kept %d (%v), want %d", kinds, len(cs.list.chunks[0]), err, want)
		}
		cs.list.release()
	}
}

func decodeRecords(t testing.TB, j journalRows, f journal.Filter, b []byte) (*closes, error) {
	t.Helper()
	out := &closes{}
	d := decoder{journal: j, out: out, filter: compile(f, j), lastAsset: -1, lastSymbol: -1}
	_, _, err := d.records(b, 0, minDay, maxDay)
	return out, err
}

// TestRecordPlaybook: the decoder reads a record's playbook and met
// criteria, drops a tick of another playbook's criterion and an unknown
// playbook, and the playbook filter keeps what it names.
func TestRecordPlaybook(t *testing.T) {
	j := recordJournal()
	b1, b9 := [16]byte{3}, [16]byte{9}
	rows := slices.Concat(packRecord(&b1, [16]byte{5}, [16]byte{6}), packRecord(nil), packRecord(&b9, [16]byte{5}))
	cs, err := decodeRecords(t, j, journal.Filter{}, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.list.release()
	var got []int32
	for i := range int32(3) {
		c := cs.list.at(i)
		got = append(got, c.playbook, int32(len(cs.metOf(c))))
		if c.net != (units{lo: 125_000}) || len(cs.tagsOf(c)) != 1 || c.hasR {
			t.Fatalf("record %d: %+v", i, c)
		}
	}
	// b1 with c1 (c2 is b2's), none, an unknown playbook with nothing.
	if want := []int32{0, 1, -1, 0, -1, 0}; !slices.Equal(got, want) || cs.met[0] != 0 {
		t.Fatalf("playbooks and met counts %v, want %v", got, want)
	}
	for _, tc := range []struct {
		ids  []string
		kept int
	}{
		{[]string{"03000000-0000-0000-0000-000000000000"}, 1},
		{[]string{"04000000-0000-0000-0000-000000000000"}, 0},
	} {
		cs, err := decodeRecords(t, j, journal.Filter{PlaybookIDs: tc.ids}, rows)
		if err != nil || len(cs.list.chunks) != 1 || len(cs.list.chunks[0]) != tc.kept {
			t.Fatalf("filter %v kept %v (%v)", tc.ids, cs.list.chunks, err)
		}
		cs.list.release()
	}
}

// FuzzRecords: whatever the bytes, the decoder answers an error or
// records, never a panic.
func FuzzRecords(f *testing.F) {
	b1 := [16]byte{3}
	f.Add(packRecord(&b1, [16]byte{5}))
	f.Add(packRecord(nil))
	f.Add(slices.Concat(packRecord(&b1), packRecord(nil, [16]byte{6})))
	f.Add(packRecord(&b1)[:60])
	j := recordJournal()
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, _ := decodeRecords(t, j, journal.Filter{}, b)
		cs.list.release()
	})
}
