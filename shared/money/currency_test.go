package money

import "testing"

func TestValidCurrency(t *testing.T) {
	for _, code := range []string{"USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "HKD", "SGD", "XCG", "XOF", "ZWG"} {
		if !ValidCurrency(code) {
			t.Errorf("ValidCurrency(%q) = false", code)
		}
	}
	for _, code := range []string{"", "usd", "Usd", "US", "USDD", "ABC", "XXX", "XTS", "XAU", "XDR", "HRK", "U$D", "ÜSD"} {
		if ValidCurrency(code) {
			t.Errorf("ValidCurrency(%q) = true", code)
		}
	}
	if n := len(currencies); n < 150 {
		t.Errorf("only %d codes", n)
	}
	for code := range currencies {
		if !ValidCurrency(code) {
			t.Errorf("listed code %q is not valid", code)
		}
	}
}
