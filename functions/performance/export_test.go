package performance

import (
	"github.com/shopspring/decimal"

	"tradejournal/shared/journal"
)

// WorkMem is the setting load makes before its statements.
const WorkMem = workMem

// Statement is one statement of a report, for EXPLAIN ANALYZE in the
// benchmark.
type Statement struct {
	Name string
	SQL  string
	Args []any
}

// Statements exposes a report's statements.
func Statements(userID string, f journal.Filter, currencies []string, factors map[string]decimal.Decimal, total bool) []Statement {
	var out []Statement
	for _, st := range statements(userID, f, currencies, factors, total) {
		out = append(out, Statement{st.name, st.sql, st.args})
	}
	return out
}
