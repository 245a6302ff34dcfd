package tax

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReportJSON: camelCase keys, decimals as strings, empty lists as []
// (never null), so the HTTP layer can encode a Report as it is.
func TestReportJSON(t *testing.T) {
	r := compute(t, Request{Jurisdiction: US, Year: 2024, Zone: newYork, Trades: []Trade{
		stock("b1", "us", "X", Buy, "2024-01-05", "100", "10"),
		stock("s1", "us", "X", Sell, "2024-03-01", "100", "7.50"),
		stock("b2", "us", "X", Buy, "2024-03-15", "100", "8"),
	}})
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"jurisdiction":"us"`, `"from":"2024-01-01"`, `"to":"2024-12-31"`, `"method":"FIFO"`,
		`"proceeds":"750"`, `"adjustmentCode":"W"`, `"adjustment":"250"`, `"washSales":[{`, `"disallowed":"250"`,
		`"possiblyIdentical":[]`, `"missing":[]`, `"replacementLots":[]`, `"term":"short"`, `"box":"A"`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	if strings.Contains(s, "null") {
		t.Errorf("JSON has a null:\n%s", s)
	}
}
