package money

// ValidCurrency reports whether code is an ISO 4217 alphabetic code of a
// currency an account can be held in: three uppercase letters on the
// standard's list of active codes (List One), including the fund codes
// (BOV, CLF, USN, ...) and the codes of currencies in the middle of a
// replacement (ANG and XCG, ZWL and ZWG, SLL and SLE, VED and VES). Codes
// that are not money are refused: precious metals (XAU, XAG, XPD, XPT), bond
// market units (XBA-XBD), the SDR (XDR), XSU, XUA, the test code XTS and
// "no currency" XXX. Lowercase is refused; callers that accept it upper-case
// first.
func ValidCurrency(code string) bool {
	if len(code) != 3 {
		return false
	}
	for i := range 3 {
		if code[i] < 'A' || code[i] > 'Z' {
			return false
		}
	}
	_, ok := currencies[code]
	return ok
}

// currencies is ISO 4217 List One (active codes) less the non-money codes
// named on ValidCurrency.
var currencies = setOf(
	"AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN",
	"BAM", "BBD", "BDT", "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV",
	"BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHE", "CHF",
	"CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC", "CUP", "CVE",
	"CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD",
	"FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD",
	"HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD",
	"JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD",
	"KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA",
	"MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV",
	"MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB",
	"PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB",
	"RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SLL",
	"SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT",
	"TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN",
	"UYI", "UYU", "UYW", "UZS", "VED", "VES", "VND", "VUV", "WST", "XAF",
	"XCD", "XCG", "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
)

func setOf(codes ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(codes))
	for _, c := range codes {
		m[c] = struct{}{}
	}
	return m
}
