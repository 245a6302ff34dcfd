package journal

import (
	"github.com/shopspring/decimal"

	"tradejournal/shared/sizing"
)

// EstimateFee is the fee of a fill whose fee was not given: the schedule's
// FillFee, or 0 without a schedule. estimated reports whether a schedule
// set it. perContract (Contracts: options and futures) takes the options
// per-contract fields, otherwise the stock fields.
func EstimateFee(s *sizing.FeeSchedule, perContract bool, qty decimal.Decimal) (fee decimal.Decimal, estimated bool) {
	if s == nil {
		return decimal.Zero, false
	}
	return s.FillFee(perContract, qty), true
}
