// Package fxdb reads what a conversion into a user's display currency
// needs, in one query: the balance of every currency the user holds
// accounts in, and the exchange rates in force. The arithmetic is package
// fx's; this package only reads.
package fxdb

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/fx"
)

// Snapshot is one read of a user's money and rates.
type Snapshot struct {
	// Balances has one entry per currency of the user's accounts, archived
	// accounts included (their money still exists): the sum of
	// accounts.balance, which the journal keeps equal to the starting
	// balance plus the ledger.
	Balances []fx.Amount
	// Rates holds, for every pair with the display currency on either side,
	// its Keep latest rates effective on or before the day.
	Rates []fx.Rate
	// RateFound reports whether the rate named by Query.RateID exists and is
	// the user's (whatever its date or pair).
	RateFound bool
}

// Query names what to read.
type Query struct {
	UserID string
	// Display is the display currency; "" reads no rates.
	Display string
	// Day is the calendar day (midnight UTC) the rates are read for.
	Day time.Time
	// Keep is how many of each pair's latest rates to read: 1 gives the
	// spot rates; the preview reads 2, so that deleting the rate in force
	// falls back to the one before it exactly as it would with every rate.
	Keep int
	// RateID, when not "", is a rate id (a valid UUID) to look up.
	RateID string
}

// Statement is the one query Load runs, with its arguments (for EXPLAIN).
// Only pairs with the display currency on one side can take part in a
// conversion into it (fx.Spot converts directly or through the reverse
// pair, never through a third currency), so only those are read; of each,
// the Keep latest on or before Day, through the unique index on (user,
// base, quote, date).
func Statement(in Query) (string, []any) {
	const sql = `
SELECT 'b', NULL, a.currency::text, NULL, NULL::date, sum(a.balance)
FROM accounts a WHERE a.user_id = $1
GROUP BY a.currency
UNION ALL
SELECT 'r', r.id::text, r.base_currency::text, r.quote_currency::text, r.effective_date, r.rate
FROM (SELECT DISTINCT base_currency, quote_currency FROM exchange_rates
      WHERE user_id = $1 AND $3::char(3) IN (base_currency, quote_currency)) pair
CROSS JOIN LATERAL (
    SELECT e.id, e.base_currency, e.quote_currency, e.effective_date, e.rate FROM exchange_rates e
    WHERE e.user_id = $1 AND e.base_currency = pair.base_currency AND e.quote_currency = pair.quote_currency
      AND e.effective_date <= $2::date
    ORDER BY e.effective_date DESC LIMIT $4) r
UNION ALL
SELECT 'd', e.id::text, NULL, NULL, NULL, NULL FROM exchange_rates e WHERE e.id = $5::uuid AND e.user_id = $1`
	var rateID any
	if in.RateID != "" {
		rateID = in.RateID
	}
	return sql, []any{in.UserID, in.Day.Format(time.DateOnly), in.Display, in.Keep, rateID}
}

// Load reads the snapshot in one round trip (Statement).
func Load(ctx context.Context, q db.Querier, in Query) (Snapshot, error) {
	sql, args := Statement(in)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return Snapshot{}, db.Classify(err)
	}
	var s Snapshot
	var (
		kind          string
		id, base, quo *string
		date          *time.Time
		value         decimal.NullDecimal
	)
	_, err = pgx.ForEachRow(rows, []any{&kind, &id, &base, &quo, &date, &value}, func() error {
		switch kind {
		case "b":
			s.Balances = append(s.Balances, fx.Amount{Currency: *base, Value: value.Decimal})
		case "r":
			s.Rates = append(s.Rates, fx.Rate{ID: *id, Base: *base, Quote: *quo, Date: *date, Value: value.Decimal})
		case "d":
			s.RateFound = true
		}
		return nil
	})
	return s, db.Classify(err)
}
