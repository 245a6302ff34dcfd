package currency

import (
	"context"
	"encoding/base64"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/journal"
)

// ExchangeRate is a stored rate as the API shows it. rate is the stored
// decimal without trailing zeros ("1.085").
type ExchangeRate struct {
	ID            string    `json:"id"`
	BaseCurrency  string    `json:"baseCurrency"`
	QuoteCurrency string    `json:"quoteCurrency"`
	EffectiveDate string    `json:"effectiveDate"`
	Rate          string    `json:"rate"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// rateColumns is selected wherever an ExchangeRate is scanned, in scanRate's order.
const rateColumns = `e.id::text, e.base_currency::text, e.quote_currency::text, e.effective_date, e.rate, e.created_at, e.updated_at`

func scanRate(row pgx.Row, extra ...any) (ExchangeRate, error) {
	var (
		e    ExchangeRate
		date time.Time
		rate decimal.Decimal
	)
	err := row.Scan(append([]any{&e.ID, &e.BaseCurrency, &e.QuoteCurrency, &date, &rate, &e.CreatedAt, &e.UpdatedAt}, extra...)...)
	e.EffectiveDate, e.Rate = date.Format(time.DateOnly), rate.String()
	return e, err
}

// upsertRate writes the user's rate of (base, quote, date), replacing the
// rate of that day if there is one; created reports which it was (xmax is 0
// only on a row this statement inserted).
func upsertRate(ctx context.Context, q db.Querier, userID string, r fx.Rate, now time.Time) (ExchangeRate, bool, error) {
	const sql = `INSERT INTO exchange_rates AS e (user_id, base_currency, quote_currency, effective_date, rate, created_at, updated_at)
		VALUES ($1, $2, $3, $4::date, $5, $6, $6)
		ON CONFLICT ON CONSTRAINT exchange_rates_user_pair_date_key
		DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at
		RETURNING ` + rateColumns + `, e.xmax = 0`
	var created bool
	e, err := scanRate(q.QueryRow(ctx, sql, userID, r.Base, r.Quote, r.Date.Format(time.DateOnly), r.Value, now), &created)
	return e, created, db.Classify(err)
}

// rateByID reads one of the user's rates; anything else is not found.
func rateByID(ctx context.Context, q db.Querier, userID, id string) (ExchangeRate, error) {
	e, err := scanRate(q.QueryRow(ctx, `SELECT `+rateColumns+` FROM exchange_rates e WHERE e.id = $1 AND e.user_id = $2`, id, userID))
	return e, db.Classify(err)
}

// deleteRate deletes one of the user's rates; anything else is not found.
func deleteRate(ctx context.Context, q db.Querier, userID, id string) error {
	return db.DeleteOwned(ctx, q, "exchange_rates", id, userID)
}

// Page sizes of the rate list.
const (
	defaultPageSize = 100
	maxPageSize     = 500
)

// cursor is the keyset of the last rate of a page: (base, quote) ascending,
// then effective date descending. (user, base, quote, date) is unique.
type cursor struct {
	Base, Quote string
	Date        time.Time
}

func encodeCursor(c cursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(c.Base + c.Quote + c.Date.Format(time.DateOnly)))
}

var cursorShape = regexp.MustCompile(`^[A-Z]{6}[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// decodeCursor reads a cursor; anything that is not one of ours (absent,
// malformed, tampered) means the first page, as on the admin list.
func decodeCursor(s string) *cursor {
	if s == "" || len(s) > 64 {
		return nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil || !cursorShape.Match(raw) {
		return nil
	}
	d, err := journal.ParseDate(string(raw[6:]))
	if err != nil {
		return nil
	}
	return &cursor{Base: string(raw[:3]), Quote: string(raw[3:6]), Date: d}
}

// listFilter narrows the list to one base and/or quote currency.
type listFilter struct {
	Base, Quote string
	After       *cursor
}

// RatePage is one page of the rate list.
type RatePage struct {
	Items      []ExchangeRate `json:"items"`
	NextCursor *string        `json:"nextCursor"`
}

// listRates returns one page of the user's rates by keyset, so a late page
// costs what the first does.
func listRates(ctx context.Context, q db.Querier, userID string, f listFilter, limit int) (RatePage, error) {
	sql := `SELECT ` + rateColumns + ` FROM exchange_rates e WHERE e.user_id = $1`
	args := []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Base != "" {
		sql += ` AND e.base_currency = ` + arg(f.Base) + `::char(3)`
	}
	if f.Quote != "" {
		sql += ` AND e.quote_currency = ` + arg(f.Quote) + `::char(3)`
	}
	if c := f.After; c != nil {
		b, qu, d := arg(c.Base), arg(c.Quote), arg(c.Date.Format(time.DateOnly))
		sql += ` AND ((e.base_currency, e.quote_currency) > (` + b + `::char(3), ` + qu + `::char(3))
			OR (e.base_currency, e.quote_currency) = (` + b + `::char(3), ` + qu + `::char(3)) AND e.effective_date < ` + d + `::date)`
	}
	sql += ` ORDER BY e.base_currency, e.quote_currency, e.effective_date DESC LIMIT ` + arg(limit+1)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return RatePage{}, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ExchangeRate, error) { return scanRate(row) })
	if err != nil {
		return RatePage{}, db.Classify(err)
	}
	page := RatePage{Items: items}
	if page.Items == nil {
		page.Items = []ExchangeRate{}
	}
	if len(items) > limit {
		page.Items = items[:limit]
		last := page.Items[limit-1]
		d, _ := journal.ParseDate(last.EffectiveDate)
		next := encodeCursor(cursor{Base: last.BaseCurrency, Quote: last.QuoteCurrency, Date: d})
		page.NextCursor = &next
	}
	return page, nil
}
