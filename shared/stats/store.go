package stats

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// The statistics read the journal's own rows and nothing derived from
// them: the user's accounts and tags, the closed positions in the filter in
// close order (closesSQL, an index-only scan of positions_closed_stats_idx
// in the order the walks need, so PostgreSQL neither sorts nor adds up),
// and the links between those positions and the user's tags (linksSQL, an
// index-only scan of position_tags_tag_id_idx). Every figure is folded in
// Go from these rows (fold.go).

const accountsSQL = `SELECT id, currency::text, timezone FROM accounts WHERE user_id = $1`

const tagsSQL = `SELECT id, name, category FROM tags WHERE user_id = $1`

// closesSQL is the closed positions of the filter %s, in close order
// (closed_at, then id: ties are stable).
const closesSQL = `
SELECT p.id, p.account_id, p.closed_at, p.symbol, p.net_pnl, p.gross_pnl, p.fees, p.r_multiple
FROM positions p
WHERE p.user_id = $1 AND p.status = 'closed' AND %s
ORDER BY p.closed_at, p.id`

// linksSQL is, for each of the tags $1 (by ordinal), the ids of the
// positions linked to it: one array a tag, which PostgreSQL sends far more
// cheaply than a row a link, built by an ARRAY subquery over
// position_tags_tag_id_idx (array_agg with GROUP BY measured 3 to 4 times
// slower).
const linksSQL = `
SELECT t.i, ARRAY(SELECT pt.position_id FROM position_tags pt WHERE pt.tag_id = t.id)
FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, i)`

// linksOfSQL is linksSQL for the positions $2 only: for a filter that
// narrows the closes, probing position_tags_pkey for the closes read costs
// less than reading every link of the user.
const linksOfSQL = `
SELECT t.i, array_agg(pt.position_id)
FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, i) JOIN position_tags pt ON pt.tag_id = t.id
WHERE pt.position_id = ANY ($2::uuid[])
GROUP BY t.i`

// narrows reports whether f can leave out closed positions: then the
// links are read for the closes read, after them (linksOfSQL).
func narrows(f journal.Filter) bool {
	return f.AccountID != "" || f.Symbol != "" || f.TagID != "" || f.From != nil || f.To != nil
}

// where is the filter over the closes: the journal's shared filter for
// account, symbol, status and tag. Its date range (trading days in each
// account's zone) is widened here to a window of UTC times that holds those
// days in any zone (UTC-12 to UTC+14), which the index can seek; the fold
// keeps the closes whose trading day is in range (readCloses).
func where(f journal.Filter, args *[]any) string {
	undated := f
	undated.From, undated.To = nil, nil
	conds := []string{undated.SQL(args, "p.closed_at")}
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	if f.From != nil {
		conds = append(conds, "p.closed_at >= "+arg(f.From.AddDate(0, 0, -1)))
	}
	if f.To != nil {
		conds = append(conds, "p.closed_at < "+arg(f.To.AddDate(0, 0, 2)))
	}
	return strings.Join(conds, " AND ")
}

// inBinary asks for results in binary format, which the hand-written
// decoders read: behind a transaction pooler (DB_TRANSACTION_POOLER) the
// connection's simple protocol would send text, and inside a transaction
// the extended protocol's unnamed statement is safe there too.
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
}

// tag is one of the user's tags.
type tag struct{ id, name, category string }

// journalRows is what a report reads besides the closes.
type journalRows struct {
	accounts   map[[16]byte]*account
	currencies []string
	tags       []tag
	tagIDs     [][16]byte
}

func readJournal(ctx context.Context, tx pgx.Tx, userID string) (journalRows, error) {
	out := journalRows{accounts: map[[16]byte]*account{}}
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
		out.accounts[id] = &account{currency: i, day: tradingDay{loc: loc}}
		return nil
	}); err != nil {
		return journalRows{}, err
	}
	rows, _ = tx.Query(ctx, tagsSQL, userID)
	var t tag
	if _, err := pgx.ForEachRow(rows, []any{&id, &t.name, &t.category}, func() error {
		t.id = uuidString(id)
		out.tags, out.tagIDs = append(out.tags, t), append(out.tagIDs, id)
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

// links are, for each tag read (by index into journalRows.tags), the ids
// of its positions.
type links [][][16]byte

// readLinks reads the links of every closed position of the user, or,
// with of, of those positions only.
func readLinks(ctx context.Context, tx pgx.Tx, tagIDs [][16]byte, of *closeList) (links, error) {
	out := make(links, len(tagIDs))
	if len(tagIDs) == 0 || (of != nil && of.n == 0) {
		return out, nil
	}
	sql, args := linksSQL, []any{tagIDs}
	if of != nil {
		ids := make([][16]byte, 0, of.n)
		for i := range of.n {
			ids = append(ids, of.at(i).id)
		}
		sql, args = linksOfSQL, append(args, ids)
	}
	rows, err := tx.Query(ctx, sql, inBinary(tx, args)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		v := rows.RawValues()
		if len(v) != 2 || len(v[0]) != 8 || rows.FieldDescriptions()[1].Format != pgtype.BinaryFormatCode {
			return nil, errors.New("links: unexpected row shape")
		}
		i := int64(binary.BigEndian.Uint64(v[0])) - 1
		if i < 0 || i >= int64(len(out)) {
			return nil, errors.New("links: tag out of range")
		}
		if out[i], err = uuidArray(v[1]); err != nil {
			return nil, fmt.Errorf("links: %w", err)
		}
	}
	return out, rows.Err()
}

// uuidArray reads PostgreSQL's binary uuid[] without NULLs, empty or of
// one dimension (array_send: int32 ndim, int32 flags, oid, int32 length, int32
// lower bound, then each element's int32 length and 16 bytes). pgx's own
// array decoding costs a reflection step an element.
func uuidArray(b []byte) ([][16]byte, error) {
	if len(b) >= 12 && binary.BigEndian.Uint32(b) == 0 { // empty: no dimension
		return nil, nil
	}
	if len(b) < 20 || binary.BigEndian.Uint32(b) != 1 {
		return nil, errors.New("not a one-dimensional array")
	}
	n := int(binary.BigEndian.Uint32(b[12:]))
	b = b[20:]
	if len(b) != n*20 {
		return nil, errors.New("array of unexpected size")
	}
	out := make([][16]byte, n)
	for i := range out {
		if binary.BigEndian.Uint32(b[20*i:]) != 16 {
			return nil, errors.New("not a uuid")
		}
		out[i] = [16]byte(b[20*i+4 : 20*i+20])
	}
	return out, nil
}

// readCloses streams the closes of f into their currencies' sums and
// returns them in close order. Rows arrive in PostgreSQL's binary format
// and are decoded by hand (decodeClose): the plain Scan into decimals costs
// 350 ms of Go CPU on 100,000 positions.
func readCloses(ctx context.Context, tx pgx.Tx, userID string, f journal.Filter, j journalRows, sums []*sums) (*closeList, error) {
	args := []any{userID}
	sql := fmt.Sprintf(closesSQL, where(f, &args))
	from, to := int64(minDay), int64(maxDay)
	if f.From != nil {
		from = dayOf(*f.From)
	}
	if f.To != nil {
		to = dayOf(*f.To)
	}
	rows, err := tx.Query(ctx, sql, inBinary(tx, args)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for i, fd := range rows.FieldDescriptions() {
		if i != 3 && fd.Format != pgtype.BinaryFormatCode { // 3, the symbol: text either way
			return nil, errTextFormat
		}
	}
	out := &closeList{}
	var (
		c trade
		r closeRow
	)
	for rows.Next() {
		symbol, acc, err := decodeClose(rows.RawValues(), j.accounts, &c, &r)
		if err != nil {
			return nil, err
		}
		c.day = acc.day.of(r.at)
		if c.day < from || c.day > to {
			continue
		}
		r.currency = int32(acc.currency)
		sums[acc.currency].add(&c, symbol)
		out.add(r)
	}
	return out, rows.Err()
}

const (
	minDay = -1 << 40
	maxDay = 1 << 40
)

var errTextFormat = errors.New("statistics need the binary protocol")

// pgEpochMicros is 2000-01-01 UTC in Unix microseconds: PostgreSQL's
// binary timestamps count from there.
const pgEpochMicros = 946684800_000000

// decodeClose reads one row of closesSQL in binary format into c and r,
// and returns its symbol and account.
func decodeClose(v [][]byte, accounts map[[16]byte]*account, c *trade, r *closeRow) ([]byte, *account, error) {
	if len(v) != 8 || len(v[0]) != 16 || len(v[1]) != 16 || len(v[2]) != 8 {
		return nil, nil, errors.New("closes: unexpected row shape")
	}
	copy(r.id[:], v[0])
	acc := accounts[[16]byte(v[1])]
	if acc == nil {
		return nil, nil, errors.New("closes: a position of an account not read")
	}
	r.at = pgEpochMicros + int64(binary.BigEndian.Uint64(v[2]))
	var err error
	if c.net, err = numericUnits(v[4]); err != nil {
		return nil, nil, fmt.Errorf("net_pnl: %w", err)
	}
	if c.gross, err = numericUnits(v[5]); err != nil {
		return nil, nil, fmt.Errorf("gross_pnl: %w", err)
	}
	if c.fees, err = numericUnits(v[6]); err != nil {
		return nil, nil, fmt.Errorf("fees: %w", err)
	}
	if v[7] != nil {
		if c.r, err = numericUnits(v[7]); err != nil {
			return nil, nil, fmt.Errorf("r_multiple: %w", err)
		}
		c.hasR = true
	} else {
		c.hasR = false
	}
	r.net = c.net
	return v[3], acc, nil
}

// MaxWidth is the most connections one report uses at once.
const MaxWidth = 2

// snapshotID is the shape of pg_export_snapshot's answer; it is checked
// before being written into SET TRANSACTION SNAPSHOT, which takes no
// parameters.
var snapshotID = regexp.MustCompile(`^[0-9A-F]+-[0-9A-F]+(-[0-9A-F]+)?$`)

// linksOnSnapshot reads the links in a new transaction that imports
// snapshot, so they are the links of the very closes read on the first.
func linksOnSnapshot(ctx context.Context, pool TxBeginner, snapshot string, tagIDs [][16]byte) (links, error) {
	tx, err := pool.BeginTx(ctx, readOnly)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	if _, err := tx.Exec(ctx, `SET TRANSACTION SNAPSHOT '`+snapshot+`'`); err != nil {
		return nil, err
	}
	return readLinks(ctx, tx, tagIDs, nil)
}

// classify names the step that failed, for the log of a 500.
func classify(step string, err error) error {
	if err == nil {
		return nil
	}
	return db.Classify(fmt.Errorf("%s: %w", step, err))
}
