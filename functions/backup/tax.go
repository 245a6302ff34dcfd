package backup

import (
	"context"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/journal"
	"tradejournal/shared/tax"
)

// validJurisdiction reports a tax jurisdiction the tax report knows.
func validJurisdiction(s string) bool {
	switch tax.Jurisdiction(s) {
	case tax.US, tax.UK, tax.Other:
		return true
	}
	return false
}

// taxMarks writes the year-end marks of Section 1256 contracts.
func (ex exporter) taxMarks(ctx context.Context) error {
	const q = `SELECT year, instrument, price FROM tax_year_end_marks WHERE user_id = $1 ORDER BY year, instrument`
	return lines(ctx, ex, backup.EntryTaxMarks, q, func(m *backup.TaxMark) []any {
		return []any{&m.Year, &m.Instrument, &m.Price}
	}, nil)
}

// taxMarks restores the year-end marks, each checked as PUT /api/tax/marks
// checks it.
func (rs *restorer) taxMarks(ctx context.Context, tx pgx.Tx) error {
	var years []int
	var instruments []string
	var prices []any
	seen := map[backup.TaxMark]bool{}
	err := backup.Lines(rs.a, backup.EntryTaxMarks, backup.MaxTaxMarks, func(m backup.TaxMark) error {
		key := backup.TaxMark{Year: m.Year, Instrument: m.Instrument}
		if m.Year < 1970 || m.Year > 9998 || len(m.Instrument) == 0 || len(m.Instrument) > 32 || seen[key] ||
			m.Price.IsNegative() || m.Price.GreaterThan(journal.ExitPriceRule.Max) {
			return invalidf("a year-end mark is not a year, a contract listed once and a price from 0 to 99999999")
		}
		seen[key] = true
		years, instruments, prices = append(years, m.Year), append(instruments, m.Instrument), append(prices, m.Price)
		rs.count.TaxMarks++
		return nil
	})
	if err != nil || len(years) == 0 {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO tax_year_end_marks (user_id, year, instrument, price)
		SELECT $1, y, i, p FROM unnest($2::int[], $3::text[], $4::numeric[]) AS x(y, i, p)`, rs.userID, years, instruments, prices)
	return err
}
