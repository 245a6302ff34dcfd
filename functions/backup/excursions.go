package backup

import (
	"context"

	"github.com/shopspring/decimal"

	"tradejournal/shared/backup"
	"tradejournal/shared/journalstore"
)

// maxPrice bounds a price as its column does (numeric(18, 8)).
var maxPrice = decimal.NewFromInt(100_000_000)

// excursions sets the restored positions' MAE and MFE prices as archived,
// through the journal store. A price that is not positive makes the
// archive inconsistent.
func (rs *restorer) excursions(ctx context.Context, all []backup.Position) error {
	var list []journalstore.Excursion
	for _, p := range all {
		if p.MaePrice == nil && p.MfePrice == nil {
			continue
		}
		for _, d := range []*decimal.Decimal{p.MaePrice, p.MfePrice} {
			if d != nil && (!d.IsPositive() || d.GreaterThanOrEqual(maxPrice)) {
				return invalidf("position %q has an MAE or MFE price that is not above 0 and below 100000000", p.ID)
			}
		}
		list = append(list, journalstore.Excursion{PositionID: rs.ids["position:"+p.ID], Mae: p.MaePrice, Mfe: p.MfePrice})
	}
	return rs.journal.Excursions(ctx, list)
}
