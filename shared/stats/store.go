package stats

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/listquery"
)

// The statistics read the user's accounts, tags and playbooks and the
// closed_trades rows of the filter's window: a row per account and UTC day
// of close, holding that day's closed trades packed in close order
// (record.go), a strategy one record (its legs none of their own). The
// journal store keeps those rows in the transaction of every write. Every
// filter applies here, in Go, to the decoded records; the database only
// narrows by account and by a window of days.

// accountsSQL is the user's accounts with the phase of their prop-firm
// plan ("" without one), for the filter.
const accountsSQL = `SELECT a.id, a.currency::text, a.timezone, coalesce(pf.phase, '')
FROM accounts a LEFT JOIN prop_firm_plans pf ON pf.account_id = a.id WHERE a.user_id = $1`

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

// account is one of the user's accounts.
type account struct {
	currency int // index into the currencies read
	day      tradingDay
	entry    tradingDay // the same zone for entries, which are not in time order
	phase    string     // its prop-firm plan's phase, "" without one
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
		phase    string
		currency = map[string]int{}
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &cur, &tz, &phase}, func() error {
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
		out.accounts = append(out.accounts, account{currency: i, day: tradingDay{loc: loc}, entry: tradingDay{loc: loc}, phase: phase})
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

// closed is the closed trade being read: a record of a row, decoded up to
// what the filter reads, then its figures once the filter takes it.
type closed struct {
	at, opened           int64 // closed_at, opened_at: Unix microseconds
	day                  int64 // the trading day of the close in its account's zone, days since 1970-01-01
	net, gross, fees, r  units
	mae, mfe, maeR, mfeR int64   // the excursions' money and R in ten-thousandths (flags: flagMAE, flagMFE, flagExcursionR)
	atHit                int64   // the money at the first hit (flagHitTarget, flagHitStop)
	flags                uint16  // the record's flags
	quantity, notional   float64 // the entry quantity and its cost (approximate: only averaged)
	account              int32   // index into journalRows.accounts
	assetType, symbol    int32   // indexes into the fold's strings
	underlying           int32   // the option's or future's underlying, else the symbol
	weekday, hour        int     // of the entry in the account's zone (ISO weekday)
	tags                 []int32 // indexes into journalRows.tags
	playbook             int32   // index into journalRows.playbooks, -1 for none
	met                  []int32 // indexes into journalRows.criteria: the playbook's criteria it met
	strategy             int32   // a strategy's: 1 + the index of its kind in the fold's strings; 0 for a position
	long, hasR           bool
}

// window is the UTC days that hold the trading days from to to in any
// zone (UTC-12 to UTC+14): the database narrows to it, readClosed to the
// days themselves.
func window(f listquery.Filter) (from, to time.Time) {
	from, to = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	if f.From != nil {
		from = f.From.AddDate(0, 0, -1)
	}
	if f.To != nil {
		to = f.To.AddDate(0, 0, 1)
	}
	return from, to
}

// readClosed reads the closed trades in f into fd: each is added to the
// sums as it is read, and to the close order (fd.items) for the walks:
// closed_at, then the account (rows come in account id order), then the
// order the journal store wrote them in (the position's or strategy's id).
func readClosed(ctx context.Context, tx pgx.Tx, userID string, f listquery.Filter, fd *fold) error {
	if fd.filter.None {
		return nil
	}
	from, to := window(f)
	var accounts any // NULL: every account
	if len(f.AccountIDs) > 0 {
		accounts = f.AccountIDs
	}
	rows, err := tx.Query(ctx, closedSQL, inBinary(tx, []any{userID, from, to, accounts})...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for _, fdesc := range rows.FieldDescriptions() {
		if fdesc.Format != pgtype.BinaryFormatCode {
			return errTextFormat
		}
	}
	d := decoder{fold: fd}
	var (
		day  int32 // the current UTC day
		runs []int // where each of its rows' items start in fd.items
	)
	for rows.Next() {
		v := rows.RawValues()
		if len(v) != 3 || len(v[0]) != 16 || len(v[1]) != 4 {
			return errors.New("closed trades: unexpected row shape")
		}
		acc, ok := fd.journal.accountIDs[[16]byte(v[0])]
		if !ok {
			return errors.New("closed trades: a row of an account not read")
		}
		if rowDay := int32(binary.BigEndian.Uint32(v[1])); rowDay != day || len(runs) == 0 {
			fd.order(runs)
			day, runs = rowDay, runs[:0]
		}
		runs = append(runs, fd.items.n)
		if err := d.records(v[2], pgEpochDays+int64(day), acc); err != nil {
			return fmt.Errorf("closed trades: %w", err)
		}
	}
	fd.order(runs)
	return rows.Err()
}

var errTextFormat = errors.New("statistics need the binary protocol")

// pgEpochDays is 2000-01-01 in days since 1970-01-01: PostgreSQL's binary
// dates count from there.
const pgEpochDays = 10957

// decoder reads closed_trades rows (record.go has the layout), mapping
// each row's tables onto the fold's indexes once a row rather than once a
// record, and a string only when a figure needs it: an options journal's
// thousands of contract symbols are never looked up for the dashboard,
// which breaks down by underlying.
type decoder struct {
	fold *fold
	// The row being read: its strings, its ids as what they are to the
	// journal read.
	strs []rowString
	ids  []idRef
	c    closed
}

// rowString is a string of the row being read, with its index into the
// fold's strings (-1: not looked up yet) and whether the filter's symbols
// take it (-1: not asked yet).
type rowString struct {
	raw    []byte
	index  int32
	symbol int8
}

func newRowString(raw []byte) rowString { return rowString{raw: raw, index: -1, symbol: -1} }

// global is the fold's index of the row's string k.
func (d *decoder) global(k int32) int32 {
	s := &d.strs[k]
	if s.index < 0 {
		s.index = d.fold.str(s.raw)
	}
	return s.index
}

// symbolOK reports whether the filter's symbols take the row's string k.
func (d *decoder) symbolOK(k int32) bool {
	s := &d.strs[k]
	if s.symbol < 0 {
		s.symbol = 0
		if d.fold.filter.TakesSymbol(string(s.raw)) {
			s.symbol = 1
		}
	}
	return s.symbol == 1
}

// idRef is an id of a row as indexes into the journal's tags, playbooks
// and criteria (-1: not one).
type idRef struct{ tag, book, crit int32 }

// id is what a row's id is to the journal read: a tag, a playbook, a
// criterion, or nothing (one deleted since: the store refreshes the rows
// in the deleting transaction, so only a report between the two sees one).
func (d *decoder) id(v [16]byte) idRef {
	j := &d.fold.journal
	look := func(m map[[16]byte]int32) int32 {
		if k, ok := m[v]; ok {
			return k
		}
		return -1
	}
	return idRef{look(j.tagIndex), look(j.bookIndex), look(j.critIndex)}
}

// records folds the records of one row (of UTC day utcDay, days since
// 1970-01-01, and account acc) that the filter takes.
func (d *decoder) records(b []byte, utcDay int64, acc int32) error {
	fd := d.fold
	a := &fd.journal.accounts[acc]
	r := rowReader{b: b}
	d.strs, d.ids = header(&r, newRowString, d.id, d.strs[:0], d.ids[:0])
	c := &d.c
	prev := utcDay * 86400_000000
	for r.more() {
		*c = closed{tags: c.tags[:0], met: c.met[:0]}
		r.head(c, prev, len(d.strs), d.ids, fd.journal.criteria)
		if r.err != nil {
			return r.err
		}
		prev = c.at
		symbolOK := !fd.filter.HasSymbols() || d.symbolOK(c.symbol) || d.symbolOK(c.underlying)
		c.assetType, c.underlying = d.global(c.assetType), d.global(c.underlying)
		if fd.withSymbols {
			c.symbol = d.global(c.symbol)
		}
		if c.strategy > 0 {
			c.strategy = 1 + d.global(c.strategy-1)
		}
		c.account = acc
		c.day = a.day.of(c.at)
		entry := a.entry.local(c.opened)
		c.weekday, c.hour = isoWeekday(entry), hourOf(entry)
		// A filter by result reads the figures first: the result is the net's sign.
		early := fd.filter.HasResults()
		if early {
			r.figures(c)
		}
		cand := fd.candidate(c)
		if !symbolOK || !fd.filter.Takes(&cand) {
			if !early { // the figures unread
				r.skipFigures(c)
			}
			continue
		}
		if !early {
			r.figures(c)
		}
		if r.err != nil {
			return r.err
		}
		fd.add(c)
	}
	return r.err
}

// classify names the step that failed, for the log of a 500.
func classify(step string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errRecordVersion):
		return errAwaitingRebuild
	}
	return db.Classify(fmt.Errorf("%s: %w", step, err))
}

// errAwaitingRebuild answers a report of a journal whose rows the deploy's
// migrate step has not rebuilt yet (a new record layout): a moment's wait.
var errAwaitingRebuild = apperr.New(apperr.ServiceUnavailable, "the statistics are being rebuilt after an upgrade; try again shortly")
