package stats

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// The statistics read the user's accounts, tags and playbooks and the
// closed_trades rows (migrations 0022, 0030 and 0033) of the filter's window: a row per account
// and UTC day of close, holding that day's closed positions packed in close order, a strategy
// one record (its legs none of their own).
// The journal store keeps those rows in the transaction of every write.
// Every filter applies here, in Go, to the decoded records; the database
// only narrows by account and by a window of days.

const accountsSQL = `SELECT id, currency::text, timezone FROM accounts WHERE user_id = $1`

const tagsSQL = `SELECT id, name, category FROM tags WHERE user_id = $1`

const playbooksSQL = `SELECT id, name FROM playbooks WHERE user_id = $1`

// criteriaSQL is the criteria of the user's playbooks in checklist order.
const criteriaSQL = `SELECT c.id, c.playbook_id, c.text FROM playbook_criteria c
JOIN playbooks b ON b.id = c.playbook_id WHERE b.user_id = $1 ORDER BY c.playbook_id, c.sort_order, c.id`

// closedSQL is the user's rows of UTC days $2 to $3 (and of the accounts
// $4 when the filter names accounts), in day order.
const closedSQL = `SELECT account_id, day, packed FROM closed_trades
WHERE user_id = $1 AND day BETWEEN $2 AND $3 AND ($4::uuid[] IS NULL OR account_id = ANY($4))
ORDER BY day, account_id`

// inBinary asks for results in binary format, which the decoders read:
// behind a transaction pooler (DB_TRANSACTION_POOLER) the connection's
// simple protocol would send text, and inside a transaction the extended
// protocol's unnamed statement is safe there too.
func inBinary(tx pgx.Tx, args []any) []any {
	if tx.Conn().Config().DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol {
		return append([]any{pgx.QueryExecModeDescribeExec}, args...)
	}
	return args
}

// TxBeginner starts a transaction with options: a pool.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// readOnly is every transaction's mode: one consistent snapshot, no write.
var readOnly = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}

// account is one of the user's accounts.
type account struct {
	currency int // index into the currencies read
	day      tradingDay
	entry    tradingDay // the same zone for entries, which are not in time order
}

// tag is one of the user's tags.
type tag struct{ id, name, category string }

// playbook is one of the user's playbooks with its criteria (indexes into
// journalRows.criteria, in checklist order).
type playbook struct {
	id, name string
	criteria []int32
}

// criterion is one criterion of a playbook (an index into
// journalRows.playbooks).
type criterion struct {
	id, text string
	playbook int32
}

// journalRows is what a report reads besides the closes.
type journalRows struct {
	accounts   []account
	accountIDs map[[16]byte]int32 // index into accounts
	currencies []string
	tags       []tag
	tagIndex   map[[16]byte]int32
	playbooks  []playbook
	bookIndex  map[[16]byte]int32
	criteria   []criterion
	critIndex  map[[16]byte]int32
}

func readJournal(ctx context.Context, tx pgx.Tx, userID string) (journalRows, error) {
	out := journalRows{accountIDs: map[[16]byte]int32{}, tagIndex: map[[16]byte]int32{},
		bookIndex: map[[16]byte]int32{}, critIndex: map[[16]byte]int32{}}
	rows, _ := tx.Query(ctx, accountsSQL, userID)
	var (
		id       [16]byte
		cur, tz  string
		currency = map[string]int{}
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &cur, &tz}, func() error {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return fmt.Errorf("account zone %q: %w", tz, err)
		}
		i, ok := currency[cur]
		if !ok {
			i = len(out.currencies)
			currency[cur] = i
			out.currencies = append(out.currencies, cur)
		}
		out.accountIDs[id] = int32(len(out.accounts))
		out.accounts = append(out.accounts, account{currency: i, day: tradingDay{loc: loc}, entry: tradingDay{loc: loc}})
		return nil
	}); err != nil {
		return journalRows{}, err
	}
	rows, _ = tx.Query(ctx, tagsSQL, userID)
	var t tag
	if _, err := pgx.ForEachRow(rows, []any{&id, &t.name, &t.category}, func() error {
		t.id = uuidString(id)
		out.tagIndex[id] = int32(len(out.tags))
		out.tags = append(out.tags, t)
		return nil
	}); err != nil {
		return journalRows{}, err
	}
	rows, _ = tx.Query(ctx, playbooksSQL, userID)
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		out.bookIndex[id] = int32(len(out.playbooks))
		out.playbooks = append(out.playbooks, playbook{id: uuidString(id), name: name})
		return nil
	}); err != nil {
		return journalRows{}, err
	}
	rows, _ = tx.Query(ctx, criteriaSQL, userID)
	var book [16]byte
	if _, err := pgx.ForEachRow(rows, []any{&id, &book, &name}, func() error {
		b, ok := out.bookIndex[book]
		if !ok { // a playbook created after the first read: the snapshot is one, so never
			return errors.New("a criterion of a playbook not read")
		}
		k := int32(len(out.criteria))
		out.critIndex[id] = k
		out.criteria = append(out.criteria, criterion{id: uuidString(id), text: name, playbook: b})
		out.playbooks[b].criteria = append(out.playbooks[b].criteria, k)
		return nil
	}); err != nil {
		return journalRows{}, err
	}
	return out, nil
}

func uuidString(b [16]byte) string {
	const hex = "0123456789abcdef"
	var s [36]byte
	j := 0
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s[j] = '-'
			j++
		}
		s[j], s[j+1] = hex[c>>4], hex[c&15]
		j += 2
	}
	return string(s[:])
}

// closed is one closed position as the statistics see it. It holds no
// pointer (indexes instead), so 100,000 of them are flat memory the
// collector does not scan.
type closed struct {
	at, opened          int64 // closed_at, opened_at: Unix microseconds
	day                 int64 // the trading day of the close in its account's zone, days since 1970-01-01
	net, gross, fees, r units
	quantity, notional  float64 // the entry quantity and its cost (approximate: only averaged)
	account             int32   // index into journalRows.accounts
	assetType, symbol   int32   // indexes into the decoder's strings
	underlying          int32   // the option's or future's underlying, else the symbol
	entry               int64   // opened_at on the account zone's clock: local seconds since 1970-01-01
	tagStart, tagCount  int32   // the span of the decoder's tags
	playbook            int32   // index into journalRows.playbooks, -1 for none
	metStart, metCount  int32   // the span of the decoder's met criteria
	strategy            int32   // a strategy's: 1 + the index of its kind in the decoder's strings; 0 for a position
	long, hasR          bool
}

// closedList holds the closes read in chunks, so that appending never
// copies what is already read.
type closedList struct{ chunks [][]closed }

const chunkBits = 12

func (l *closedList) at(i int32) *closed { return &l.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

// chunks are the lists' chunks, reused from one report to the next: a
// report over 100,000 positions reads 16 MB of them, whose allocation and
// collection cost a fifth of its CPU time before they were reused.
var chunks = sync.Pool{New: func() any { return make([]closed, 0, 1<<chunkBits) }}

// release gives the list's chunks back for the next report; the list is
// empty afterwards.
func (l *closedList) release() {
	for _, c := range l.chunks {
		//lint:ignore SA6002 boxing the slice header costs 24 bytes; the array it keeps is 600 kB
		chunks.Put(c[:0])
	}
	l.chunks = nil
}

// next returns a zeroed slot for the next close and its index.
func (l *closedList) next() (*closed, int32) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == 1<<chunkBits {
		l.chunks = append(l.chunks, chunks.Get().([]closed)[:0])
		n++
	}
	last := &l.chunks[n-1]
	*last = append(*last, closed{})
	return &(*last)[len(*last)-1], int32((n-1)<<chunkBits + len(*last) - 1)
}

// drop takes back the slot next returned last.
func (l *closedList) drop() {
	last := &l.chunks[len(l.chunks)-1]
	*last = (*last)[:len(*last)-1]
}

// closes are what readClosed read: the records and their close order.
type closes struct {
	list    closedList
	order   []int32 // indexes into list, in close order
	strings []string
	tags    []int32 // indexes into journalRows.tags, spanned by closed.tagStart and tagCount
	met     []int32 // indexes into journalRows.criteria, spanned by closed.metStart and metCount
}

func (cs *closes) tagsOf(c *closed) []int32 { return cs.tags[c.tagStart : c.tagStart+c.tagCount] }

func (cs *closes) metOf(c *closed) []int32 { return cs.met[c.metStart : c.metStart+c.metCount] }

// window is the UTC days that hold the trading days from to to in any
// zone (UTC-12 to UTC+14): the database narrows to it, readClosed to the
// days themselves.
func window(f journal.Filter) (from, to time.Time) {
	from, to = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	if f.From != nil {
		from = f.From.AddDate(0, 0, -1)
	}
	if f.To != nil {
		to = f.To.AddDate(0, 0, 1)
	}
	return from, to
}

// readClosed reads the closed positions in f, in close order: closed_at,
// then the account (rows come in account id order), then the order the
// journal store wrote them in (the position's or strategy's id).
func readClosed(ctx context.Context, tx pgx.Tx, userID string, f journal.Filter, j journalRows) (*closes, error) {
	from, to := window(f)
	var accounts any // NULL: every account
	if len(f.AccountIDs) > 0 {
		accounts = f.AccountIDs
	}
	rows, err := tx.Query(ctx, closedSQL, inBinary(tx, []any{userID, from, to, accounts})...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for _, fd := range rows.FieldDescriptions() {
		if fd.Format != pgtype.BinaryFormatCode {
			return nil, errTextFormat
		}
	}
	firstDay, lastDay := int64(minDay), int64(maxDay)
	if f.From != nil {
		firstDay = dayOf(*f.From)
	}
	if f.To != nil {
		lastDay = dayOf(*f.To)
	}
	out := &closes{}
	d := newDecoder(j, out, compile(f, j))
	if d.filter.none {
		return out, nil
	}
	var (
		day  int32      // the current UTC day
		runs [][2]int32 // its rows' records: [first, end) in out.list
	)
	for rows.Next() {
		v := rows.RawValues()
		if len(v) != 3 || len(v[0]) != 16 || len(v[1]) != 4 {
			return nil, errors.New("closed trades: unexpected row shape")
		}
		acc, ok := j.accountIDs[[16]byte(v[0])]
		if !ok {
			return nil, errors.New("closed trades: a row of an account not read")
		}
		if rowDay := int32(binary.BigEndian.Uint32(v[1])); rowDay != day || len(runs) == 0 {
			out.merge(runs)
			day, runs = rowDay, runs[:0]
		}
		first, end, err := d.records(v[2], pgEpochDays+int64(day), acc, firstDay, lastDay)
		if err != nil {
			return nil, fmt.Errorf("closed trades: %w", err)
		}
		runs = append(runs, [2]int32{first, end})
	}
	out.merge(runs)
	return out, rows.Err()
}

// merge appends the records of one UTC day to the close order: its rows
// (one an account, each in close order, in account order) merged, a tie
// going to the row first.
func (cs *closes) merge(runs [][2]int32) {
	if len(runs) == 1 {
		for i := runs[0][0]; i < runs[0][1]; i++ {
			cs.order = append(cs.order, i)
		}
		return
	}
	for {
		best := -1
		for k, r := range runs {
			if r[0] == r[1] {
				continue
			}
			if best < 0 || cs.list.at(r[0]).at < cs.list.at(runs[best][0]).at {
				best = k
			}
		}
		if best < 0 {
			return
		}
		cs.order = append(cs.order, runs[best][0])
		runs[best][0]++
	}
}

const (
	minDay = -1 << 40
	maxDay = 1 << 40
)

var errTextFormat = errors.New("statistics need the binary protocol")

// pgEpochDays is 2000-01-01 in days since 1970-01-01: PostgreSQL's binary
// dates count from there.
const pgEpochDays = 10957

// decoder reads closed_trades rows (record.go has the layout) into the
// report's closes, mapping each row's tables onto the report's own
// indexes once a row rather than once a record.
type decoder struct {
	journal journalRows
	filter  filter
	out     *closes
	index   map[string]int32 // a string's index into out.strings
	symbol  []bool           // by string index: whether the filter's symbols take it
	// The row being read: its strings as indexes into out.strings, its ids
	// as what they are to the journal read.
	strs []int32
	ids  []idRef
}

// idRef is an id of a row as indexes into the journal's tags, playbooks
// and criteria (-1: not one).
type idRef struct{ tag, book, crit int32 }

func newDecoder(j journalRows, out *closes, f filter) *decoder {
	return &decoder{journal: j, out: out, filter: f, index: map[string]int32{}}
}

// str is the index of a row's string in out.strings, added if new.
func (d *decoder) str(raw []byte) int32 {
	i, ok := d.index[string(raw)]
	if !ok {
		i = int32(len(d.out.strings))
		s := string(raw)
		d.out.strings = append(d.out.strings, s)
		d.index[s] = i
		d.symbol = append(d.symbol, d.filter.symbols[s])
	}
	return i
}

// id is what a row's id is to the journal read: a tag, a playbook, a
// criterion, or nothing (one deleted since: the store refreshes the rows
// in the deleting transaction, so only a report between the two sees one).
func (d *decoder) id(v [16]byte) idRef {
	look := func(m map[[16]byte]int32) int32 {
		if k, ok := m[v]; ok {
			return k
		}
		return -1
	}
	return idRef{look(d.journal.tagIndex), look(d.journal.bookIndex), look(d.journal.critIndex)}
}

// records appends the records of one row (of UTC day utcDay, days since
// 1970-01-01, and account acc) whose trading day is within [firstDay,
// lastDay] and which the filter takes, and returns their span in the list
// (consecutive within one row).
func (d *decoder) records(b []byte, utcDay int64, acc int32, firstDay, lastDay int64) (int32, int32, error) {
	first := int32(-1)
	var end int32
	a := &d.journal.accounts[acc]
	f := &d.filter
	r := rowReader{b: b}
	d.strs, d.ids = header(&r, d.str, d.id, d.strs[:0], d.ids[:0])
	strs, ids := d.strs, d.ids
	prev := utcDay * 86400_000000
	for len(r.b) > 0 {
		c, i := d.out.list.next()
		d.out.tags, d.out.met = r.head(c, prev, strs, ids, d.out.tags, d.out.met, d.journal.criteria)
		if r.err != nil {
			return 0, 0, r.err
		}
		prev = c.at
		c.account = acc
		c.day = a.day.of(c.at)
		c.entry = a.entry.local(c.opened)
		if c.day < firstDay || c.day > lastDay || !f.takes(c, d) { // the figures unread
			r.skipFigures(c.hasR)
			d.out.tags = d.out.tags[:c.tagStart]
			d.out.met = d.out.met[:c.metStart]
			d.out.list.drop()
			continue
		}
		r.figures(c)
		if first < 0 {
			first = i
		}
		end = i + 1
	}
	if r.err != nil {
		return 0, 0, r.err
	}
	if first < 0 {
		return 0, 0, nil
	}
	return first, end, nil
}

// classify names the step that failed, for the log of a 500.
func classify(step string, err error) error {
	if err == nil {
		return nil
	}
	return db.Classify(fmt.Errorf("%s: %w", step, err))
}
