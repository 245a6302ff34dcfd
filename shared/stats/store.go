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

// linksSQL is every link of a position to one of the tags $1, the tag
// given by its ordinal in $1.
const linksSQL = `
SELECT pt.position_id, t.i
FROM unnest($1::uuid[]) WITH ORDINALITY AS t(id, i) JOIN position_tags pt ON pt.tag_id = t.id`

// where is the filter over the closes: account, symbol, status and tag as
// every journal route reads them. The date range (trading days in each
// account's zone) is widened here to a window of UTC times that holds
// those days in any zone (UTC-12 to UTC+14), which the index can seek;
// the fold keeps the closes whose trading day is in range (inRange).
func where(f journal.Filter, args *[]any) string {
	conds := []string{"TRUE"}
	arg := func(v any) string {
		*args = append(*args, v)
		return "$" + strconv.Itoa(len(*args))
	}
	if f.AccountID != "" {
		conds = append(conds, "p.account_id = "+arg(f.AccountID))
	}
	if f.Symbol != "" {
		conds = append(conds, "p.symbol = "+arg(f.Symbol))
	}
	if f.Status != "" {
		conds = append(conds, "p.status = "+arg(f.Status))
	}
	if f.TagID != "" {
		conds = append(conds, "EXISTS (SELECT 1 FROM position_tags pt WHERE pt.position_id = p.id AND pt.tag_id = "+arg(f.TagID)+")")
	}
	if f.From != nil {
		conds = append(conds, "p.closed_at >= "+arg(f.From.AddDate(0, 0, -1)))
	}
	if f.To != nil {
		conds = append(conds, "p.closed_at < "+arg(f.To.AddDate(0, 0, 2)))
	}
	return strings.Join(conds, " AND ")
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

// link is a position's link to a tag (an index into journalRows.tags).
type link struct {
	position [16]byte
	tag      int
}

func readLinks(ctx context.Context, tx pgx.Tx, tagIDs [][16]byte) ([]link, error) {
	if len(tagIDs) == 0 {
		return nil, nil
	}
	rows, _ := tx.Query(ctx, linksSQL, tagIDs)
	var (
		out []link
		l   link
		i   int64
	)
	_, err := pgx.ForEachRow(rows, []any{&l.position, &i}, func() error {
		l.tag = int(i - 1)
		out = append(out, l)
		return nil
	})
	return out, err
}

// closeRow is one close as streamed: what the fold and the tag join need.
type closeRow struct {
	id [16]byte
	trade
}

// readCloses streams the closes of f into their currencies' sums and
// returns them in close order. Rows arrive in PostgreSQL's binary format
// and are decoded by hand (decodeClose): the plain Scan into decimals costs
// 350 ms of Go CPU on 100,000 positions.
func readCloses(ctx context.Context, tx pgx.Tx, userID string, f journal.Filter, j journalRows, sums []*sums) ([]closeRow, error) {
	args := []any{userID}
	sql := fmt.Sprintf(closesSQL, where(f, &args))
	from, to := int64(minDay), int64(maxDay)
	if f.From != nil {
		from = dayOf(*f.From)
	}
	if f.To != nil {
		to = dayOf(*f.To)
	}
	if tx.Conn().Config().DefaultQueryExecMode == pgx.QueryExecModeSimpleProtocol {
		// Behind a transaction pooler (DB_TRANSACTION_POOLER) the simple
		// protocol would send text; inside a transaction the unnamed
		// statement of the extended protocol is safe there too.
		args = append([]any{pgx.QueryExecModeDescribeExec}, args...)
	}
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for i, fd := range rows.FieldDescriptions() {
		if i != 3 && fd.Format != pgtype.BinaryFormatCode { // 3, the symbol: text either way
			return nil, errTextFormat
		}
	}
	var out []closeRow
	for rows.Next() {
		c, symbol, acc, err := decodeClose(rows.RawValues(), j.accounts)
		if err != nil {
			return nil, err
		}
		c.day = acc.day.of(c.at)
		if c.day < from || c.day > to {
			continue
		}
		c.currency = acc.currency
		sums[c.currency].add(c.trade, symbol)
		out = append(out, c)
	}
	return out, rows.Err()
}

const (
	minDay = -1 << 40
	maxDay = 1 << 40
)

var errTextFormat = errors.New("statistics need the binary protocol")

// pgEpoch is 2000-01-01 UTC, where PostgreSQL's binary timestamps count from.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// decodeClose reads one row of closesSQL in binary format.
func decodeClose(v [][]byte, accounts map[[16]byte]*account) (closeRow, []byte, *account, error) {
	var c closeRow
	if len(v) != 8 || len(v[0]) != 16 || len(v[1]) != 16 || len(v[2]) != 8 {
		return c, nil, nil, errors.New("closes: unexpected row shape")
	}
	copy(c.id[:], v[0])
	acc := accounts[[16]byte(v[1])]
	if acc == nil {
		return c, nil, nil, errors.New("closes: a position of an account not read")
	}
	us := int64(binary.BigEndian.Uint64(v[2]))
	c.at = time.Unix(pgEpoch+floorDiv(us, 1e6), (us-floorDiv(us, 1e6)*1e6)*1e3).UTC()
	var err error
	if c.net, err = numericUnits(v[4]); err != nil {
		return c, nil, nil, fmt.Errorf("net_pnl: %w", err)
	}
	if c.gross, err = numericUnits(v[5]); err != nil {
		return c, nil, nil, fmt.Errorf("gross_pnl: %w", err)
	}
	if c.fees, err = numericUnits(v[6]); err != nil {
		return c, nil, nil, fmt.Errorf("fees: %w", err)
	}
	if v[7] != nil {
		if c.r, err = numericUnits(v[7]); err != nil {
			return c, nil, nil, fmt.Errorf("r_multiple: %w", err)
		}
		c.hasR = true
	}
	return c, v[3], acc, nil
}

// MaxWidth is the most connections one report uses at once.
const MaxWidth = 2

// snapshotID is the shape of pg_export_snapshot's answer; it is checked
// before being written into SET TRANSACTION SNAPSHOT, which takes no
// parameters.
var snapshotID = regexp.MustCompile(`^[0-9A-F]+-[0-9A-F]+(-[0-9A-F]+)?$`)

// linksOnSnapshot reads the links in a new transaction that imports
// snapshot, so they are the links of the very closes read on the first.
func linksOnSnapshot(ctx context.Context, pool TxBeginner, snapshot string, tagIDs [][16]byte) ([]link, error) {
	tx, err := pool.BeginTx(ctx, readOnly)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo
	if _, err := tx.Exec(ctx, `SET TRANSACTION SNAPSHOT '`+snapshot+`'`); err != nil {
		return nil, err
	}
	return readLinks(ctx, tx, tagIDs)
}

// classify names the step that failed, for the log of a 500.
func classify(step string, err error) error {
	if err == nil {
		return nil
	}
	return db.Classify(fmt.Errorf("%s: %w", step, err))
}
