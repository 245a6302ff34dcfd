package brokerfile

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// The futures forms brokers and platforms write, each rewritten to the
// root, month code and year that instrument.ParseFuture reads (one parser of
// contracts). A futures symbol may carry a platform prefix ("F.US.",
// "CON.F.US."), a leading "/" and an exchange suffix (":XCME", ".CME").
var (
	// MNQ MAR25, MNQ Mar 2025, ES DEC-24, MES JUN 25.
	futureMonthName = regexp.MustCompile(`^([A-Z0-9]{1,5}) +(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)[A-Z]*[ \-']*([0-9]{2}|[0-9]{4})$`)
	// MES 09-26, MNQ 03/25 (NinjaTrader: month-year), MES 2026-09.
	futureNumeric = regexp.MustCompile(`^([A-Z0-9]{1,5}) +([0-9]{2})[-/]([0-9]{2})$`)
	futureYearMon = regexp.MustCompile(`^([A-Z0-9]{1,5}) +(20[0-9]{2})[-/]([0-9]{2})$`)
	// CON.F.US.MES.M25 (ProjectX contract ids): root, month code and year
	// as separate parts.
	futureDotted = regexp.MustCompile(`^([A-Z0-9]{1,5})\.([FGHJKMNQUVXZ])([0-9]{1,2})$`)
	// ESZ2024: a four-digit year.
	futureLongYear = regexp.MustCompile(`^([A-Z0-9]{1,5}[FGHJKMNQUVXZ])20([0-9]{2})$`)
)

// monthCodes are the contract month letters, January to December.
const monthCodes = "FGHJKMNQUVXZ"

// projectXRoots are ProjectX's product ids that differ from the exchange
// root.
var projectXRoots = map[string]string{"EP": "ES", "ENQ": "NQ"}

// futureForm rewrites a futures symbol to the compact form ParseFuture
// reads ("MNQH25"), and reports whether s looked like a futures symbol in
// one of the spelled-out forms (so that a symbol of unknown asset type is
// taken for a future).
func futureForm(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	marked := false
	if ex, rest, ok := exchangePrefix(s); ok {
		s, marked = rest, futuresExchange(ex)
	}
	for _, p := range []string{"CON.F.US.", "F.US.", "/"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s, marked = rest, true
			break
		}
	}
	if i := strings.IndexAny(s, ":"); i > 0 {
		s = s[:i]
	}
	for _, ex := range []string{".CME", ".CBOT", ".NYMEX", ".COMEX", ".GLOBEX", ".CBT", ".NYM", ".CMX"} {
		if rest, ok := strings.CutSuffix(s, ex); ok {
			s, marked = rest, true
		}
	}
	if m := futureDotted.FindStringSubmatch(s); m != nil {
		root := m[1]
		if r, ok := projectXRoots[root]; ok {
			root = r
		}
		return root + m[2] + m[3], true
	}
	if m := futureMonthName.FindStringSubmatch(s); m != nil {
		mon, _ := monthWord(m[2])
		return m[1] + string(monthCodes[mon-1]) + twoDigitYear(m[3]), true
	}
	if m := futureNumeric.FindStringSubmatch(s); m != nil {
		if mon := atoi(m[2]); mon >= 1 && mon <= 12 {
			return m[1] + string(monthCodes[mon-1]) + m[3], true
		}
	}
	if m := futureYearMon.FindStringSubmatch(s); m != nil {
		if mon := atoi(m[3]); mon >= 1 && mon <= 12 {
			return m[1] + string(monthCodes[mon-1]) + m[2][2:], true
		}
	}
	if m := futureLongYear.FindStringSubmatch(s); m != nil {
		return m[1] + m[2], marked
	}
	return s, marked
}

// exchangePrefix splits TradingView's "EXCHANGE:SYMBOL" ("NASDAQ:AAPL",
// "CME_MINI:MESH2025"). A symbol with a colon after the prefix's is not
// one ("A:A:0" stays whole, so that its canonical form reads back the
// same).
func exchangePrefix(s string) (exchange, rest string, ok bool) {
	ex, rest, found := strings.Cut(s, ":")
	if !found || ex == "" || rest == "" || len(ex) > 16 || strings.Contains(rest, ":") {
		return "", s, false
	}
	for i := 0; i < len(ex); i++ {
		if (ex[i] < 'A' || ex[i] > 'Z') && ex[i] != '_' {
			return "", s, false
		}
	}
	return ex, rest, true
}

// futuresExchange reports an exchange prefix of futures.
func futuresExchange(ex string) bool {
	for _, f := range []string{"CME", "CBOT", "NYMEX", "COMEX", "ICE", "EUREX"} {
		if strings.HasPrefix(ex, f) {
			return true
		}
	}
	return false
}

// withoutExchange drops an exchange prefix from a stock or option symbol.
func withoutExchange(s string) string {
	if _, rest, ok := exchangePrefix(s); ok {
		return rest
	}
	return s
}

func twoDigitYear(y string) string {
	if len(y) == 4 {
		return y[2:]
	}
	return y
}

// compactOption is an option as root, YYMMDD, C or P and a plain strike,
// with an optional leading '-' or '.' (Fidelity: "-NVDA260710P195") or a
// space after the root (TradeStation: "AAPL 240119C190").
var compactOption = regexp.MustCompile(`^[-.]?([A-Z][A-Z0-9]{0,5}) *([0-9]{6})([CP])([0-9]{1,5}(?:\.[0-9]{1,3})?)$`)

// parseCompactOption reads a compact option symbol.
func parseCompactOption(s string) (Instrument, bool) {
	m := compactOption.FindStringSubmatch(s)
	if m == nil {
		return Instrument{}, false
	}
	d, ok := parseDateToken("20"+m[2], DateISO)
	k, err := decimal.NewFromString(m[4])
	if !ok || err != nil {
		return Instrument{}, false
	}
	inst, msg := optionFrom(m[1], d, m[3], k)
	return inst, msg == ""
}

// merrillOption is Merrill's option code ("TSLA#B1326C425000"): the root,
// "#", a letter for the expiry's month and the right (A-L: the calls of
// January to December, M-X: the puts), the expiry's day and two-digit
// year, a letter for the strike's implied decimal places (A: 1, B: 2, C:
// 3, D: 4, ...) and the strike's digits. TSLA#B1326C425000 is the TSLA
// call expiring 2026-02-13 at 425.000; SOFI#V1725D260000 the SOFI put
// expiring 2025-10-17 at 26.0000.
var merrillOption = regexp.MustCompile(`^([A-Z][A-Z0-9]{0,5})#([A-X])([0-9]{2})([0-9]{2})([A-H])([0-9]{1,12})$`)

// merrillForm is what a message says of merrillOption.
const merrillForm = "Merrill's option code: the root, #, a month letter (A-L calls, M-X puts, January to December), the day, " +
	"the year, the strike's decimal places as a letter (A 1, B 2, C 3, D 4) and the strike's digits, as TSLA#B1326C425000"

// merrillCode reports a symbol in the shape of a Merrill option code: a
// "#" with something before and after it (a trailing "#" is a MetaTrader
// broker's suffix: "EURUSD#").
func merrillCode(s string) bool {
	i := strings.IndexByte(s, '#')
	return i > 0 && i < len(s)-1
}

// parseMerrillOption reads a Merrill option code (upper case).
func parseMerrillOption(s string) (Instrument, bool) {
	m := merrillOption.FindStringSubmatch(s)
	if m == nil {
		return Instrument{}, false
	}
	month, right := int(m[2][0]-'A')+1, "C"
	if month > 12 {
		month, right = month-12, "P"
	}
	d, ok := makeDate(2000+atoi(m[4]), time.Month(month), atoi(m[3]), true)
	k, err := decimal.NewFromString(m[6])
	if !ok || err != nil {
		return Instrument{}, false
	}
	inst, msg := optionFrom(m[1], d, right, k.Shift(-int32(m[5][0]-'A'+1)))
	return inst, msg == ""
}

// parseOptionText reads an option written out in words, as statements and
// descriptions do: "NVDA Jul 10 2026 195.00 Put", "NVDA 07/10/2026 195.00
// P", "PUT NVDA 07/10/26 195", "NVDA 100 (Weeklys) 10 JUL 26 195 PUT",
// "CALL (NVDA) NVIDIA CORP JUL 10 26 $195 (100 SHS)". The root is the
// first ticker-like word, the expiry a date (numeric, US order, or with a
// month name), the right a call/put word and the strike the last number
// that is not part of the date. ok is false for anything else.
func parseOptionText(s string) (Instrument, bool) {
	if len(s) > 200 {
		return Instrument{}, false
	}
	words := strings.Fields(strings.NewReplacer(",", " ", "$", "", "'", "").Replace(strings.ToUpper(s)))
	if len(words) < 4 {
		return Instrument{}, false
	}
	var (
		right, root string
		expiry      ymd
		haveDate    bool
		strike      decimal.Decimal
		haveStrike  bool
		paren       string // a root in parentheses wins: "(NVDA)"
	)
	used := make([]bool, len(words))
	for i, w := range words {
		switch w {
		case "CALL", "CALLS", "C":
			if right == "" {
				right, used[i] = "C", true
			}
		case "PUT", "PUTS", "P":
			if right == "" {
				right, used[i] = "P", true
			}
		}
	}
	if right == "" {
		return Instrument{}, false
	}
	// The date: three words with a month name, or one numeric word.
	for i := 0; i+2 < len(words) && !haveDate; i++ {
		if used[i] || used[i+1] || used[i+2] {
			continue
		}
		if !isMonth(words[i]) && !isMonth(words[i+1]) {
			continue
		}
		if d, ok := parseDateToken(words[i]+" "+words[i+1]+" "+words[i+2], DateISO); ok {
			expiry, haveDate = d, true
			used[i], used[i+1], used[i+2] = true, true, true
		}
	}
	for i, w := range words {
		if haveDate {
			break
		}
		if !used[i] && (strings.ContainsAny(w, "/-") || len(w) == 7) {
			if d, ok := parseDateToken(w, DateUS); ok {
				expiry, haveDate, used[i] = d, true, true
			}
		}
	}
	if !haveDate {
		return Instrument{}, false
	}
	for i, w := range words {
		if used[i] {
			continue
		}
		if strings.HasPrefix(w, "(") && strings.HasSuffix(w, ")") && paren == "" && tickerLike(w[1:len(w)-1]) {
			paren = w[1 : len(w)-1]
			continue
		}
		if strings.HasPrefix(w, "(") || strings.HasSuffix(w, ")") {
			continue // (Weeklys), (100 SHS)
		}
		if d, err := decimal.NewFromString(w); err == nil && isNumberWord(w) {
			strike, haveStrike = d, true
			continue
		}
		if root == "" && tickerLike(w) {
			root = strings.TrimPrefix(w, ".")
		}
	}
	if paren != "" {
		root = paren
	}
	if root == "" || !haveStrike {
		return Instrument{}, false
	}
	inst, msg := optionFrom(root, expiry, right, strike)
	return inst, msg == ""
}

// tickerLike reports a word that may be an option root.
func tickerLike(w string) bool {
	w = strings.TrimPrefix(w, ".")
	if w == "" || len(w) > 6 || w[0] < 'A' || w[0] > 'Z' || isMonth(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if (w[i] < 'A' || w[i] > 'Z') && (w[i] < '0' || w[i] > '9') {
			return false
		}
	}
	return true
}

func isNumberWord(w string) bool {
	dot := false
	for i := 0; i < len(w); i++ {
		switch {
		case w[i] == '.' && !dot:
			dot = true
		case w[i] < '0' || w[i] > '9':
			return false
		}
	}
	return w != "" && w != "."
}
