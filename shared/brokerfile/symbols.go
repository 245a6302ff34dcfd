package brokerfile

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

// Instrument is what a row trades.
type Instrument struct {
	Symbol     string          // canonical
	AssetType  string          // one of instrument.AssetTypes
	Multiplier decimal.Decimal // 1, instrument.OptionMultiplier, a future's (or a futures option's future's) point value
	// Base and Quote are a forex or crypto pair's assets ("" otherwise).
	Base, Quote string
}

var optionMultiplier = decimal.NewFromInt(instrument.OptionMultiplier)

// stockWithSpace is a share class written with a space ("BRK B"), stored
// as the journal's dotted form ("BRK.B").
var stockWithSpace = regexp.MustCompile(`^([A-Z]{1,6}) ([A-Z])$`)

// ParseSymbol reads a symbol cell for an asset type ("" lets the symbol
// decide): an OCC option symbol (padded or not), a compact option symbol
// (TradeStation's "AAPL 240119C190", Fidelity's "-NVDA260710P195"), an
// option written out ("NVDA Jul 10 2026 195.00 Put"), a futures option
// (instrument.ParseFutureOption: "./ESZ24C5000", "./ESZ4 EW4X4 241122C5900";
// with asset "" when it starts with "." or is a "/" contract and a strike),
// a futures contract in
// any common form (futureForm, then instrument.ParseFuture; a one-digit year
// is read from traded, the fill's time, and the multiplier is the root's
// built-in point value), a currency pair (instrument.ParseForex: EURUSD,
// EUR/USD, EURUSD.m, XAUUSD), a crypto pair of a well-known coin
// (instrument.ParseCrypto: BTCUSD, BTC-USDT), an index or commodity CFD by
// its platform name (US500, GER40.cash, USOIL), or a ticker; with asset
// forex, crypto or cfd the symbol must be one of those. It returns the
// problem's code and message on failure.
func ParseSymbol(sym, asset string, traded time.Time) (Instrument, string, string) {
	return parseSymbol(sym, asset, traded, nil)
}

// parseSymbol is ParseSymbol with the point value of futures whose root
// has no built-in one (a mapping's multiplier), or nil.
func parseSymbol(sym, asset string, traded time.Time, multiplier *decimal.Decimal) (Instrument, string, string) {
	s := strings.ToUpper(strings.TrimSpace(sym))
	if len(s) > 64 {
		return Instrument{}, CodeInvalidSymbol, "the symbol is longer than 64 characters"
	}
	if asset == AssetFutureOption {
		return futureOptionSymbol(s, traded, nil, multiplier)
	}
	// The platforms mark a futures option with a leading "./" (tastytrade)
	// or "." (thinkorswim's .ESZ24C5000); "/ESZ4 C5000" reads too. A
	// "./" symbol that does not read is a futures option gone wrong.
	if asset == "" && (strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") && strings.Contains(s, " ")) {
		if _, err := instrument.ParseFutureOption(s, traded, nil); err == nil || strings.HasPrefix(s, "./") {
			return futureOptionSymbol(s, traded, nil, multiplier)
		}
	}
	form, looksFuture := futureForm(s)
	if !looksFuture {
		s = withoutExchange(s)
	}
	if asset == AssetOption || asset == "" {
		if len(s) >= 16 {
			if o, err := instrument.ParseOCC(s); err == nil {
				return Instrument{Symbol: o.Symbol(), AssetType: AssetOption, Multiplier: optionMultiplier}, "", ""
			}
		}
		if inst, ok := parseCompactOption(s); ok {
			return inst, "", ""
		}
		if merrillCode(s) {
			if inst, ok := parseMerrillOption(s); ok {
				return inst, "", ""
			}
			return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not an option in %s", clip(sym), merrillForm)
		}
		if strings.Contains(s, " ") {
			if inst, ok := parseOptionText(s); ok {
				return inst, "", ""
			}
		}
		if asset == AssetOption {
			return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not an option symbol (OCC like \"AAPL  240119C00190000\", like -AAPL240119C190, a description like \"AAPL Jan 19 2024 190 Call\", or give expiry, strike and right columns)", clip(sym))
		}
	}
	switch asset {
	case "":
		if inst, ok := marketSymbol(s); ok {
			return inst, "", ""
		}
	case instrument.AssetForex, instrument.AssetCrypto, instrument.AssetCFD:
		return marketInstrument(sym, asset)
	}
	if asset == AssetFuture || asset == "" && looksFuture {
		f, err := instrument.ParseFuture(form, traded)
		if err != nil {
			return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not a futures contract (root, month code and year like ESH4, /ESH24, MNQ MAR25, MES 09-26 or F.US.MESM26)", clip(sym))
		}
		point, known := f.PointValue()
		if !known && multiplier != nil {
			point, known = *multiplier, true
		}
		if !known {
			return Instrument{}, CodeUnknownPointValue, fmt.Sprintf("%q: the futures root %s has no built-in point value; give the mapping a multiplier, or record its positions through the positions API, which takes one", clip(sym), f.Root)
		}
		return Instrument{Symbol: f.Symbol(), AssetType: AssetFuture, Multiplier: point}, "", ""
	}
	if m := stockWithSpace.FindStringSubmatch(s); m != nil {
		s = m[1] + "." + m[2]
	}
	inst, err := instrument.Parse(instrument.AssetStock, s, traded)
	if e, ok := apperr.As(err); ok {
		return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not a ticker: it %s", clip(sym), e.Details[0].Message)
	}
	return Instrument{Symbol: inst.Symbol, AssetType: AssetStock, Multiplier: inst.Multiplier}, "", ""
}

// futureOptionSymbol reads a futures option (instrument.ParseFutureOption,
// expiry the row's when it gives one apart) with its future's point value
// as multiplier, else the mapping's (multiplier), else a problem.
func futureOptionSymbol(text string, traded time.Time, expiry *time.Time, multiplier *decimal.Decimal) (Instrument, string, string) {
	o, err := instrument.ParseFutureOption(text, traded, expiry)
	var ep *instrument.ExpiryProblem
	switch {
	case errors.As(err, &ep):
		return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q: %s", clip(text), ep.Msg)
	case err != nil:
		return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not a futures option: the forms read are %s", clip(text), instrument.FutureOptionForms)
	}
	point, known := o.Future.PointValue()
	if !known && multiplier != nil {
		point, known = *multiplier, true
	}
	if !known {
		return Instrument{}, CodeUnknownPointValue, fmt.Sprintf("%q: the futures root %s has no built-in point value (a futures option's multiplier is its future's); give the mapping a multiplier, or record its positions through the positions API, which takes one", clip(text), o.Future.Root)
	}
	return Instrument{Symbol: o.Symbol(), AssetType: AssetFutureOption, Multiplier: point}, "", ""
}

// optionFrom builds the OCC symbol of an option given by its parts.
func optionFrom(underlying string, expiry ymd, right string, strike decimal.Decimal) (Instrument, string) {
	root := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(underlying)), ".")
	k := strike.Shift(3)
	if !k.Equal(k.Truncate(0)) || !k.IsPositive() || k.GreaterThan(decimal.NewFromInt(99999999)) {
		return Instrument{}, fmt.Sprintf("the strike %s does not fit an OCC symbol (at most 99999.999, 3 places)", strike.String())
	}
	if len(root) == 0 || len(root) > 6 {
		return Instrument{}, fmt.Sprintf("%q is not an option root (1 to 6 letters or digits)", clip(underlying))
	}
	if expiry.y < 2000 || expiry.y > 2099 {
		return Instrument{}, "the expiry year must be between 2000 and 2099"
	}
	occ := fmt.Sprintf("%-6s%s%s%08d", root, time.Date(expiry.y, expiry.m, expiry.d, 0, 0, 0, 0, time.UTC).Format("060102"), right, k.IntPart())
	o, err := instrument.ParseOCC(occ)
	if err != nil {
		return Instrument{}, fmt.Sprintf("%q with that expiry, strike and right is not an option (%v)", clip(underlying), err)
	}
	return Instrument{Symbol: o.Symbol(), AssetType: AssetOption, Multiplier: optionMultiplier}, ""
}
