package tax

// broadBasedIndexes are the underlyings of the listed options the IRS
// treats as nonequity options on a broad-based index (IRC 1256(g)(3),
// (6)): cash-settled index options of the CBOE and Nasdaq families that
// brokers report on Form 1099-B as Section 1256 contracts. An option on an
// ETF that tracks an index (SPY, QQQ, IWM) is an equity option and is not
// here. The list is what brokers commonly treat as 1256; docs/tax.md says
// so, and a trader whose broker differs follows the 1099-B.
var broadBasedIndexes = map[string]bool{
	"SPX": true, "SPXW": true, "SPXPM": true, "XSP": true, // S&P 500 and Mini-SPX
	"NDX": true, "NDXP": true, "XND": true, // Nasdaq-100 and its Micro
	"RUT": true, "RUTW": true, "MRUT": true, // Russell 2000
	"VIX": true, "VIXW": true, // Cboe Volatility Index
	"DJX": true, "OEX": true, "XEO": true, // Dow Jones and S&P 100
	"MXEA": true, "MXEF": true, // MSCI EAFE and Emerging Markets
}

// IsSection1256 reports whether an instrument of the journal is a US
// Section 1256 contract: a regulated futures contract, an option on one,
// or an option on a broad-based index. assetType is the journal's
// ("stock", "option", "future", "future_option"); underlying is the
// option's or future's root.
func IsSection1256(assetType, underlying string) bool {
	switch assetType {
	case "future", "future_option":
		return true
	case "option":
		return broadBasedIndexes[underlying]
	}
	return false
}
