package market

import (
	"testing"
)

// FuzzParseChain holds the options-chain parsers: they never panic, and
// what they accept is whole (dates, positive strikes in order, calls and
// puts of the expiration asked for).
func FuzzParseChain(f *testing.F) {
	for _, s := range []string{
		`{"expirations":{"date":["2024-06-21","2024-06-28"]}}`,
		`{"expirations":{"date":"2024-06-21"}}`,
		`{"expirations":null}`,
		`{"options":{"option":[{"symbol":"SPY240621C00500000","option_type":"call","strike":500,"bid":1.2,"ask":1.3,"last":1.25,"volume":10,"open_interest":100,"expiration_date":"2024-06-21","greeks":{"delta":0.5,"gamma":0.01,"theta":-0.2,"vega":0.3,"mid_iv":0.18}}]}}`,
		`{"options":{"option":{"symbol":"SPY240621P00490000","option_type":"put","strike":490,"bid":null,"ask":0,"last":null,"volume":0,"open_interest":0,"expiration_date":"2024-06-21","greeks":null}}}`,
		`{"options":null}`,
		`{"options":{"option":[{"symbol":"X","option_type":"call","strike":1e999999,"expiration_date":"2024-06-21"}]}}`,
		`{"options":{"option":[{"symbol":"X","option_type":"call","strike":5,"bid":-1,"expiration_date":"2024-06-21"}]}}`,
		`{"options":{"option":[{"symbol":"X","option_type":"call","strike":5,"volume":1e999999999,"expiration_date":"2024-06-21"}]}}`,
		`[]`, `null`, `{"expirations":{"date":["2024-13-01"]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if dates, err := parseExpirations(body); err == nil {
			for i, d := range dates {
				if len(d) != 10 || i > 0 && d <= dates[i-1] {
					t.Fatalf("accepted dates %q", dates)
				}
			}
		}
		contracts, err := parseChain(body, "2024-06-21")
		if err != nil {
			return
		}
		for i, c := range contracts {
			if !c.Strike.IsPositive() || c.Type != "call" && c.Type != "put" || i > 0 && c.Strike.LessThan(contracts[i-1].Strike) {
				t.Fatalf("accepted contract %d %+v", i, c)
			}
		}
	})
}
