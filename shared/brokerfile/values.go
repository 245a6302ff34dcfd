package brokerfile

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/instrument"
	"tradejournal/shared/money"
)

// parseNumber reads a number cell in the given format: an optional sign,
// parentheses for a negative ("(25.00)", "$(25.00)"), a currency sign ($, €,
// £) or an "@" before the digits, thousands separators in whole groups of
// three, and the format's decimal mark. Exponents, NaN and stray
// characters are refused. The digits then go through money.Parse's strict
// grammar. ok is false for anything else.
func parseNumber(s, format string) (decimal.Decimal, bool) {
	s = trimCurrency(strings.TrimSpace(s))
	neg := false
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		neg, s = true, strings.TrimSpace(s[1:len(s)-1])
	}
	if s != "" && (s[0] == '-' || s[0] == '+') {
		if s[0] == '-' {
			neg = !neg
		}
		s = strings.TrimSpace(s[1:])
	}
	for _, prefix := range []string{"$", "€", "£", "¥", "@"} {
		if rest, ok := strings.CutPrefix(s, prefix); ok {
			s = strings.TrimSpace(rest)
			break
		}
	}
	if rest, ok := strings.CutSuffix(s, "-"); ok && !neg && rest != "" { // 25.00- (a trailing minus)
		neg, s = true, strings.TrimSpace(rest)
	}
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") && !neg { // $(25.00)
		neg, s = true, strings.TrimSpace(s[1:len(s)-1])
	}
	if s != "" && s[0] == '-' && !neg { // $-25.00
		neg, s = true, s[1:]
	}
	if s == "" || len(s) > 64 {
		return decimal.Zero, false
	}

	mark, group := byte('.'), ",'"
	if format == NumberEU {
		mark, group = ',', ". \u00a0\u202f'"
	}
	var b strings.Builder
	b.Grow(len(s) + 1)
	if neg {
		b.WriteByte('-')
	}
	intPart, frac, hasFrac := strings.Cut(s, string(mark))
	if hasFrac && strings.ContainsAny(frac, group+string(mark)) {
		return decimal.Zero, false
	}
	// Thousands separators: groups of exactly three digits after the first.
	groups := 0
	run, first := 0, true
	for i := 0; i < len(intPart); {
		c := intPart[i]
		switch {
		case c >= '0' && c <= '9':
			b.WriteByte(c)
			run++
			i++
		default:
			sep := ""
			for _, g := range strings.Split(group, "") {
				if g != "" && strings.HasPrefix(intPart[i:], g) {
					sep = g
					break
				}
			}
			if sep == "" {
				return decimal.Zero, false
			}
			if run == 0 || run > 3 || !first && run != 3 {
				return decimal.Zero, false
			}
			groups++
			first, run = false, 0
			i += len(sep)
		}
	}
	if run == 0 && (groups > 0 || !hasFrac) || groups > 0 && run != 3 {
		return decimal.Zero, false
	}
	if run == 0 { // ".5"
		b.WriteByte('0')
	}
	if hasFrac {
		if frac == "" {
			return decimal.Zero, false
		}
		b.WriteByte('.')
		b.WriteString(frac)
	}
	d, err := money.Parse(b.String())
	if err != nil {
		return decimal.Zero, false
	}
	return d, true
}

// currencyWords are the currency codes a number cell may carry before or
// after the digits ("USD 12.50", "0,62 EUR"); currencySigns the signs that
// may follow them ("0,62 $", "12.50€").
var (
	currencyWords = []string{"USD", "EUR", "GBP", "CAD", "AUD", "CHF", "JPY", "HKD", "SGD", "NZD", "US$", "C$", "A$"}
	currencySigns = []string{"$", "€", "£", "¥"}
)

// trimCurrency drops a currency code before or after the number, and a
// currency sign after it.
func trimCurrency(s string) string {
	for _, w := range currencyWords {
		if len(s) > len(w) && strings.EqualFold(s[len(s)-len(w):], w) {
			s = strings.TrimSpace(s[:len(s)-len(w)])
			break
		}
		if len(s) > len(w) && strings.EqualFold(s[:len(w)], w) {
			s = strings.TrimSpace(s[len(w):])
			break
		}
	}
	for _, sign := range currencySigns {
		if rest, ok := strings.CutSuffix(s, sign); ok {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

// month names (English, as brokers write them), by their first three letters.
var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// ymd is a calendar date.
type ymd struct {
	y int
	m time.Month
	d int
}

// splitDate separates the date at the start of s from what follows (a
// time, after 'T', ';', ',' or spaces). A month-name date of three words
// ("19 JAN 24", "Jan 19, 2024") keeps its spaces.
func splitDate(s string) (date, rest string) {
	s = strings.TrimSpace(s)
	if words := strings.Fields(strings.ReplaceAll(s, ",", " ")); len(words) >= 3 {
		if _, ok1 := monthWord(words[0]); ok1 || isMonth(words[1]) {
			if _, ok := parseDateToken(strings.Join(words[:3], " "), DateISO); ok {
				return strings.Join(words[:3], " "), strings.Join(words[3:], " ")
			}
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'T':
			// 'T' separates only between digits ("2024-01-19T09:30").
			if i > 0 && isDigits(s[i-1:i]) && i+1 < len(s) && isDigits(s[i+1:i+2]) {
				return s[:i], s[i+1:]
			}
		case ' ', ';', ',':
			return s[:i], strings.TrimLeft(s[i+1:], " ,;")
		}
	}
	return s, ""
}

func prefix3(s string) string {
	if len(s) >= 3 {
		return s[:3]
	}
	return s
}

func isMonth(w string) bool {
	w = strings.ToLower(w)
	_, ok := months[prefix3(w)]
	if !ok {
		return false
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return c == '.'
		}
	}
	return len(w) >= 3
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseDateToken reads a date in format (see the Date constants).
func parseDateToken(s, format string) (ymd, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 32 {
		return ymd{}, false
	}
	// Month names: "19 JAN 24", "19-Jan-2024", "Jan 19, 2024", "19JAN24".
	if f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' || r == ',' || r == '/' || r == '.' }); len(f) == 3 {
		if m, ok := monthWord(f[1]); ok && isDigits(f[0]) && isDigits(f[2]) {
			return makeDate(year(f[2]), m, atoi(f[0]), len(f[0]) <= 2)
		}
		if m, ok := monthWord(f[0]); ok && isDigits(f[1]) && isDigits(f[2]) {
			return makeDate(year(f[2]), m, atoi(f[1]), len(f[1]) <= 2)
		}
	}
	if len(s) == 7 && isDigits(s[:2]) && isDigits(s[5:]) { // 19JAN24
		if m, ok := monthWord(s[2:5]); ok {
			return makeDate(year(s[5:]), m, atoi(s[:2]), true)
		}
	}
	if len(s) == 8 && isDigits(s) { // 20240119
		return makeDate(atoi(s[:4]), time.Month(atoi(s[4:6])), atoi(s[6:]), true)
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '/' || r == '.' })
	if len(parts) != 3 || !isDigits(parts[0]) || !isDigits(parts[1]) || !isDigits(parts[2]) {
		return ymd{}, false
	}
	if n := len(s) - len(parts[0]) - len(parts[1]) - len(parts[2]); n != 2 {
		return ymd{}, false
	}
	a, b, c := parts[0], parts[1], parts[2]
	if len(a) == 4 { // year first: unambiguous
		return makeDate(atoi(a), time.Month(atoi(b)), atoi(c), len(b) <= 2 && len(c) <= 2)
	}
	if len(a) > 2 || len(b) > 2 || len(c) != 2 && len(c) != 4 {
		return ymd{}, false
	}
	switch format {
	case DateUS:
		return makeDate(year(c), time.Month(atoi(a)), atoi(b), true)
	case DateEU:
		return makeDate(year(c), time.Month(atoi(b)), atoi(a), true)
	}
	return ymd{}, false // iso formats: the year comes first
}

func monthWord(w string) (time.Month, bool) {
	if !isMonth(w) {
		return 0, false
	}
	return months[prefix3(strings.ToLower(w))], true
}

// year reads a two- or four-digit year; two digits are 1970-2069.
func year(s string) int {
	y := atoi(s)
	if len(s) == 2 {
		if y < 70 {
			return 2000 + y
		}
		return 1900 + y
	}
	if len(s) != 4 {
		return -1
	}
	return y
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func makeDate(y int, m time.Month, d int, ok bool) (ymd, bool) {
	if !ok || y < 1 || m < 1 || m > 12 || d < 1 || d > 31 {
		return ymd{}, false
	}
	t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d { // 31 April
		return ymd{}, false
	}
	return ymd{y, m, d}, true
}

// clock is a time of day with an optional zone of its own.
type clock struct {
	h, m, s, ns int
	loc         *time.Location // nil: the file's zone
}

// zones are the zone words brokers print after a time. Abbreviations of a
// season (EST, EDT) are fixed offsets; region words (ET) are the region's
// zone, daylight saving included.
var zones = map[string]*time.Location{
	"Z": time.UTC, "UTC": time.UTC, "GMT": time.UTC,
	"EST": time.FixedZone("EST", -5*3600), "EDT": time.FixedZone("EDT", -4*3600),
	"CST": time.FixedZone("CST", -6*3600), "CDT": time.FixedZone("CDT", -5*3600),
	"MST": time.FixedZone("MST", -7*3600), "MDT": time.FixedZone("MDT", -6*3600),
	"PST": time.FixedZone("PST", -8*3600), "PDT": time.FixedZone("PDT", -7*3600),
	"BST": time.FixedZone("BST", 3600), "CET": time.FixedZone("CET", 3600), "CEST": time.FixedZone("CEST", 2*3600),
}

// regionZones are loaded on use (the embedded zone database).
var regionZones = map[string]string{"ET": "America/New_York", "CT": "America/Chicago", "PT": "America/Los_Angeles"}

// parseClock reads a time of day: H:MM, H:MM:SS, H:MM:SS.fraction or the
// compact HHMMSS, then optionally AM/PM, then optionally a zone (Z, +01:00,
// -0500, UTC, EST, ET, ...).
func parseClock(s string) (clock, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 40 {
		return clock{}, false
	}
	var c clock
	// The digits part ends at a space, a comma ("09:30:00, GMT-04"), a
	// zone sign or a letter.
	end := len(s)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == ' ' || ch == ',' || ch == '+' || ch == '-' || ch == 'Z' || ch >= 'A' && ch <= 'Y' || ch >= 'a' && ch <= 'z' {
			end = i
			break
		}
	}
	digits, rest := s[:end], strings.TrimSpace(strings.TrimLeft(s[end:], " ,"))
	if len(digits) == 6 && isDigits(digits) {
		c.h, c.m, c.s = atoi(digits[:2]), atoi(digits[2:4]), atoi(digits[4:])
	} else {
		hms, frac, hasFrac := strings.Cut(digits, ".")
		parts := strings.Split(hms, ":")
		if len(parts) < 2 || len(parts) > 3 {
			return clock{}, false
		}
		for i, p := range parts {
			if !isDigits(p) || len(p) > 2 || i > 0 && len(p) != 2 {
				return clock{}, false
			}
		}
		c.h, c.m = atoi(parts[0]), atoi(parts[1])
		if len(parts) == 3 {
			c.s = atoi(parts[2])
		}
		if hasFrac {
			if len(parts) != 3 || !isDigits(frac) || len(frac) > 9 {
				return clock{}, false
			}
			ns := atoi(frac)
			for range 9 - len(frac) {
				ns *= 10
			}
			c.ns = ns
		}
	}
	// AM/PM.
	upper := strings.ToUpper(rest)
	for _, ap := range []string{"AM", "A.M.", "PM", "P.M."} {
		if strings.HasPrefix(upper, ap) && (len(upper) == len(ap) || upper[len(ap)] == ' ') {
			if c.h < 1 || c.h > 12 {
				return clock{}, false
			}
			if ap[0] == 'A' && c.h == 12 {
				c.h = 0
			} else if ap[0] == 'P' && c.h != 12 {
				c.h += 12
			}
			upper = strings.TrimSpace(upper[len(ap):])
			break
		}
	}
	if c.h > 23 || c.m > 59 || c.s > 60 {
		return clock{}, false
	}
	if c.s == 60 { // a leap second as some feeds print it
		c.s = 59
	}
	if upper != "" {
		loc, ok := parseZone(upper)
		if !ok {
			return clock{}, false
		}
		c.loc = loc
	}
	return c, true
}

// parseZone reads a zone word or offset (upper case): a zone word (UTC,
// EST, ET, ...), an offset (+01:00, -0500, -05), or an offset written after
// UTC or GMT ("UTC+02", "GMT-4", "UTC+5:30", "GMT +01:00"), as some exports
// write it after a time or in a column of its own.
func parseZone(z string) (*time.Location, bool) {
	if z == "" {
		return nil, false
	}
	if loc, ok := zones[z]; ok {
		return loc, true
	}
	if name, ok := regionZones[z]; ok {
		loc, err := time.LoadLocation(name)
		return loc, err == nil
	}
	compact := strings.ReplaceAll(z, " ", "")
	for _, base := range []string{"UTC", "GMT"} {
		if rest, ok := strings.CutPrefix(compact, base); ok && rest != "" && (rest[0] == '+' || rest[0] == '-') {
			return offsetZone(compact, rest, true)
		}
	}
	if z[0] != '+' && z[0] != '-' {
		return nil, false
	}
	return offsetZone(z, z, false)
}

// offsetZone reads a signed offset from UTC: HH, HHMM or HH:MM, and after
// UTC or GMT (short) also H and H:MM. name names the zone.
func offsetZone(name, s string, short bool) (*time.Location, bool) {
	hours, minutes, colon := strings.Cut(s[1:], ":")
	switch {
	case colon && isDigits(minutes) && len(minutes) == 2:
	case colon:
		return nil, false
	case len(hours) == 4:
		hours, minutes = hours[:2], hours[2:]
	default:
		minutes = "00"
	}
	if !isDigits(hours) || !isDigits(minutes) || len(hours) != 2 && !(short && len(hours) == 1) {
		return nil, false
	}
	h, m := atoi(hours), atoi(minutes)
	if h > 14 || m > 59 {
		return nil, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return time.FixedZone(name, off), true
}

// at builds the instant of a date and a clock; the clock's zone wins over
// the file's. It truncates to microseconds, what timestamptz keeps.
func at(d ymd, c clock, file *time.Location) time.Time {
	loc := file
	if c.loc != nil {
		loc = c.loc
	}
	return time.Date(d.y, d.m, d.d, c.h, c.m, c.s, c.ns, loc).UTC().Truncate(time.Microsecond)
}

// Sides of a fill.
const (
	Buy  = "buy"
	Sell = "sell"
)

// Declared effects of a fill: whether the broker said it opens or closes.
const (
	EffectOpen  = "open"
	EffectClose = "close"
)

// normWords lowercases s and turns '_' and '-' into single spaces.
func normWords(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("_", " ", "-", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// actions maps an execution's side word to its side and declared effect.
var actions = map[string][2]string{
	"buy": {Buy, ""}, "b": {Buy, ""}, "bot": {Buy, ""}, "bought": {Buy, ""}, "buy market": {Buy, ""},
	"buy to open": {Buy, EffectOpen}, "bto": {Buy, EffectOpen}, "buy open": {Buy, EffectOpen}, "buy to open position": {Buy, EffectOpen},
	"buy to close": {Buy, EffectClose}, "btc": {Buy, EffectClose}, "buy close": {Buy, EffectClose},
	"buy to cover": {Buy, EffectClose}, "cover": {Buy, EffectClose}, "buy cover": {Buy, EffectClose},
	"sell": {Sell, ""}, "s": {Sell, ""}, "sld": {Sell, ""}, "sold": {Sell, ""}, "sell market": {Sell, ""},
	"sell to close": {Sell, EffectClose}, "stc": {Sell, EffectClose}, "sell close": {Sell, EffectClose},
	"sell to open": {Sell, EffectOpen}, "sto": {Sell, EffectOpen}, "sell open": {Sell, EffectOpen},
	"sell short": {Sell, EffectOpen}, "short": {Sell, EffectOpen}, "ss": {Sell, EffectOpen}, "short sell": {Sell, EffectOpen},
	"sell short exempt": {Sell, EffectOpen}, "shrt": {Sell, EffectOpen},
	// Two-letter codes (TradeZero, E*TRADE, DAS): BC is a buy to cover or
	// to close, SC a sell to close; BO and SO open.
	"bc": {Buy, EffectClose}, "sc": {Sell, EffectClose}, "bo": {Buy, EffectOpen}, "so": {Sell, EffectOpen},
	"bought to open": {Buy, EffectOpen}, "bought to close": {Buy, EffectClose}, "bought to cover": {Buy, EffectClose},
	"sold to open": {Sell, EffectOpen}, "sold to close": {Sell, EffectClose}, "sold short": {Sell, EffectOpen},
	"you bought": {Buy, ""}, "you sold": {Sell, ""}, "bought opening": {Buy, EffectOpen}, "sold closing": {Sell, EffectClose},
	"buy to cover short": {Buy, EffectClose}, "sell short sale": {Sell, EffectOpen}, "short sale": {Sell, EffectOpen},
	// ProjectX (TopstepX) and DOM platforms write the book side: a buy
	// lifts the ask from the bid side (Bid), a sell hits the bid (Ask).
	"bid": {Buy, ""}, "ask": {Sell, ""},
	"long": {Buy, ""}, "buy long": {Buy, ""}, "sell long": {Sell, ""}, "market buy": {Buy, ""}, "market sell": {Sell, ""},
	"limit buy": {Buy, ""}, "limit sell": {Sell, ""}, "stop buy": {Buy, ""}, "stop sell": {Sell, ""},
}

// actionPhrases read a side out of a longer text (Fidelity's "YOU BOUGHT
// OPENING TRANSACTION CALL (NVDA) ..."), by its first words and what
// follows them.
var actionPhrases = []struct {
	prefix string
	side   string
}{
	{"you bought ", Buy}, {"you sold ", Sell}, {"bought ", Buy}, {"sold ", Sell},
	{"buy ", Buy}, {"sell ", Sell},
}

// parseAction reads an execution's side: a side word, or a description
// that starts with one (then "opening"/"to open", "closing"/"to close" or
// "short" in it declare the effect).
func parseAction(s string) (side, effect string, ok bool) {
	w := normWords(s)
	if a, ok := actions[w]; ok {
		return a[0], a[1], true
	}
	for _, ph := range actionPhrases {
		rest, found := strings.CutPrefix(w, ph.prefix)
		if !found {
			continue
		}
		switch {
		case strings.Contains(rest, "opening") || strings.HasPrefix(rest, "to open") || strings.Contains(rest, "short sale") ||
			strings.HasPrefix(rest, "short"):
			effect = EffectOpen
		case strings.Contains(rest, "closing") || strings.HasPrefix(rest, "to close") || strings.HasPrefix(rest, "to cover"):
			effect = EffectClose
		}
		return ph.side, effect, true
	}
	return "", "", false
}

// directions maps a round trip's side word to the position's side.
var directions = map[string]string{
	"long": "long", "l": "long", "buy": "long", "b": "long", "bot": "long",
	"short": "short", "s": "short", "sell": "short", "sell short": "short", "sld": "short", "ss": "short",
	"bought": "long", "sold": "short", "buy long": "long", "sell short sale": "short", "sold short": "short",
}

// effects maps an open/close indicator to a declared effect; "c;o" (a
// close and an open in one execution, IB's mark of a flip) declares none.
var effects = map[string]string{
	"o": EffectOpen, "open": EffectOpen, "opening": EffectOpen, "to open": EffectOpen, "entry": EffectOpen,
	"c": EffectClose, "close": EffectClose, "closing": EffectClose, "to close": EffectClose, "exit": EffectClose,
	"c;o": "", "o;c": "",
	// AUTO (platforms that net positions), blank words: the running
	// position decides.
	"auto": "", "n/a": "", "none": "",
	"opening transaction": EffectOpen, "closing transaction": EffectClose, "open position": EffectOpen,
	"close position": EffectClose, "opening trade": EffectOpen, "closing trade": EffectClose, "in": EffectOpen, "out": EffectClose,
	"bto": EffectOpen, "sto": EffectOpen, "btc": EffectClose, "stc": EffectClose,
}

func parseEffect(s string) (string, bool) {
	e, ok := effects[normWords(s)]
	return e, ok
}

// Asset types of a parsed fill: the journal's.
const (
	AssetStock  = instrument.AssetStock
	AssetOption = instrument.AssetOption
	AssetFuture = instrument.AssetFuture

	AssetFutureOption = instrument.AssetFutureOption
)

// assetWords maps an asset-type cell to an asset type, and for "call" and
// "put" the option's right.
var assetWords = map[string][2]string{
	"stock": {AssetStock, ""}, "stk": {AssetStock, ""}, "equity": {AssetStock, ""}, "equities": {AssetStock, ""},
	"etf": {AssetStock, ""}, "etfs": {AssetStock, ""}, "share": {AssetStock, ""}, "shares": {AssetStock, ""},
	"common stock": {AssetStock, ""}, "cs": {AssetStock, ""}, "stocks": {AssetStock, ""},
	"option": {AssetOption, ""}, "options": {AssetOption, ""}, "opt": {AssetOption, ""}, "equity option": {AssetOption, ""},
	"equity and index options": {AssetOption, ""}, "call": {AssetOption, "C"}, "put": {AssetOption, "P"},
	"future": {AssetFuture, ""}, "futures": {AssetFuture, ""}, "fut": {AssetFuture, ""},
	"eq": {AssetStock, ""}, "optn": {AssetOption, ""}, "equity options": {AssetOption, ""},
	"future option": {AssetFutureOption, ""}, "futures option": {AssetFutureOption, ""}, "fop": {AssetFutureOption, ""},
	"future options": {AssetFutureOption, ""}, "futures options": {AssetFutureOption, ""},
	"option on future": {AssetFutureOption, ""}, "options on futures": {AssetFutureOption, ""},
	// IB's Flex AssetClass CASH and its statement's Forex are currency
	// pairs.
	"forex": {instrument.AssetForex, ""}, "fx": {instrument.AssetForex, ""}, "cash": {instrument.AssetForex, ""},
	"currency": {instrument.AssetForex, ""}, "currencies": {instrument.AssetForex, ""}, "spot fx": {instrument.AssetForex, ""},
	"crypto": {instrument.AssetCrypto, ""}, "cryptocurrency": {instrument.AssetCrypto, ""}, "cryptocurrencies": {instrument.AssetCrypto, ""},
	"cfd": {instrument.AssetCFD, ""}, "cfds": {instrument.AssetCFD, ""}, "contract for difference": {instrument.AssetCFD, ""},
}

// parseAssetType reads an asset-type cell (unsupportedWord names the
// words of what the journal cannot hold: bonds, funds, ...).
func parseAssetType(s string) (asset, right string, ok bool) {
	a, ok := assetWords[normWords(s)]
	return a[0], a[1], ok
}

// parseRight reads an option right cell.
func parseRight(s string) (string, bool) {
	switch normWords(s) {
	case "c", "call", "calls":
		return "C", true
	case "p", "put", "puts":
		return "P", true
	}
	return "", false
}
