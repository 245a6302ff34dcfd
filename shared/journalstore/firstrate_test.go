package journalstore_test

import (
	"strings"
	"testing"

	"tradejournal/shared/instrument"
	"tradejournal/shared/journalstore"
)

// TestFirstEntryRateListsTheQuotedTypes: the SQL reads a rate for exactly
// the asset types instrument.QuotedApart names, so a new one priced apart
// is not left without its excursions.
func TestFirstEntryRateListsTheQuotedTypes(t *testing.T) {
	for _, a := range instrument.AssetTypes {
		if in := strings.Contains(journalstore.FirstEntryRate, "'"+a+"'"); in != instrument.QuotedApart(a) {
			t.Errorf("%s: in FirstEntryRate %v, QuotedApart %v", a, in, instrument.QuotedApart(a))
		}
	}
}
