package journal

// A closed trade's result is the sign of its net P&L in its account's
// currency: a win above zero, a loss below, breakeven at exactly zero, as
// the statistics count wins, losses and breakevens. An open or draft
// position has none.
const (
	ResultWin       = "win"
	ResultLoss      = "loss"
	ResultBreakeven = "breakeven"
)

// Results lists the results in the order a person reads them.
var Results = []string{ResultWin, ResultLoss, ResultBreakeven}

// ResultOf names the result of a net P&L's sign (-1, 0 or 1).
func ResultOf(sign int) string {
	switch {
	case sign > 0:
		return ResultWin
	case sign < 0:
		return ResultLoss
	}
	return ResultBreakeven
}

// ResultSign is the sign of the net P&L a result names, false for any
// other text.
func ResultSign(result string) (int, bool) {
	for _, sign := range []int{1, -1, 0} {
		if ResultOf(sign) == result {
			return sign, true
		}
	}
	return 0, false
}
