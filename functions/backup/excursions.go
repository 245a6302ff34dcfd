package backup

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/backup"
	"tradejournal/shared/db"
)

// maxPrice bounds a price as its column does (numeric(18, 8)).
var maxPrice = decimal.NewFromInt(100_000_000)

// excursions sets the restored positions' MAE and MFE prices as archived,
// in one statement. They are the trader's own figures, kept as they were
// (the api checks their side of the entry when they are typed, not here);
// a price that is not positive makes the archive inconsistent.
func (rs *restorer) excursions(ctx context.Context, tx pgx.Tx, all []backup.Position) error {
	var (
		ids      []string
		mae, mfe []*decimal.Decimal
	)
	for _, p := range all {
		if p.MaePrice == nil && p.MfePrice == nil {
			continue
		}
		for _, d := range []*decimal.Decimal{p.MaePrice, p.MfePrice} {
			if d != nil && (!d.IsPositive() || d.GreaterThanOrEqual(maxPrice)) {
				return invalidf("position %q has an MAE or MFE price that is not above 0 and below 100000000", p.ID)
			}
		}
		ids = append(ids, rs.ids["position:"+p.ID])
		mae, mfe = append(mae, p.MaePrice), append(mfe, p.MfePrice)
	}
	if len(ids) == 0 {
		return nil
	}
	const q = `UPDATE positions p SET mae_price = x.mae, mfe_price = x.mfe
		FROM unnest($1::uuid[], $2::numeric[], $3::numeric[]) AS x(id, mae, mfe) WHERE p.id = x.id`
	_, err := tx.Exec(ctx, q, ids, mae, mfe)
	return db.Classify(err)
}
