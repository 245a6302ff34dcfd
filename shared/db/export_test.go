package db

import (
	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// MigrateUpTo applies the migrations up to a version, so a test can build
// the schema an older release left and upgrade it.
var MigrateUpTo = migrate

// SmallNumeric and PgxNumeric decode one binary numeric by the fast path
// and by pgx's own, for the tests that hold the first to the second.
func SmallNumeric(src []byte) (decimal.Decimal, bool) { return smallNumeric(src) }

func PgxNumeric(src []byte) (decimal.Decimal, error) {
	var d decimal.Decimal
	plan := pgxdecimal.NumericCodec{}.PlanScan(pgtype.NewMap(), pgtype.NumericOID, pgtype.BinaryFormatCode, (*pgxdecimal.Decimal)(nil))
	return d, decimalScan{plan}.Scan(src, &d)
}
