// Package instrument is what a position trades: a stock (or ETF) by its
// ticker, an option by its OCC symbol, a future by its contract; the
// symbol's forms the brokers write, the multiplier that turns a price move
// into money, and the columns a positions row holds of each. It has no
// SQL and no journal: the journal's domain (shared/journal) and the broker
// files (shared/brokerfile) build on it.
package instrument

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
)

// The asset types of a position, as stored and as the API writes them.
const (
	AssetStock  = "stock"
	AssetOption = "option"
	AssetFuture = "future"
)

// OptionMultiplier is the number of shares one option contract controls.
const OptionMultiplier = 100

var stockSymbol = regexp.MustCompile(`^[A-Z0-9^][A-Z0-9.\-/^=:_]{0,31}$`)

// Instrument is a position's symbol as validated for its asset type.
type Instrument struct {
	Symbol string // uppercase ticker, canonical OCC symbol, or canonical contract ("ESZ24")
	// Multiplier is 1 for stock, OptionMultiplier for options, and a
	// future's point value once SettleMultiplier has set it (zero before).
	Multiplier decimal.Decimal
	Option     *Option // for options
	Future     *Future // for futures
}

// Parse checks a symbol for an asset type ("stock", "option" or
// "future"): a ticker of 1 to 32 characters (letters, digits and . - / ^ = :
// _), for an option a parseable OCC symbol stored in its canonical padded
// form, for a future a contract symbol (ParseFuture, ref the trade's time)
// stored as root, month code and two-digit year. Its error names the field
// at fault (assetType or symbol).
func Parse(assetType, symbol string, ref time.Time) (Instrument, error) {
	if assetType != AssetStock && assetType != AssetOption && assetType != AssetFuture {
		if assetType == "" {
			return Instrument{}, apperr.Invalid("assetType", "is required")
		}
		return Instrument{}, apperr.Invalid("assetType", "must be stock, option or future")
	}
	if strings.TrimSpace(symbol) == "" {
		return Instrument{}, apperr.Invalid("symbol", "is required")
	}
	switch assetType {
	case AssetOption:
		o, err := ParseOCC(symbol)
		if err != nil {
			return Instrument{}, apperr.Invalid("symbol", err.Error())
		}
		return Instrument{Symbol: o.Symbol(), Multiplier: decimal.NewFromInt(OptionMultiplier), Option: &o}, nil
	case AssetFuture:
		f, err := ParseFuture(symbol, ref)
		if err != nil {
			return Instrument{}, apperr.Invalid("symbol", err.Error())
		}
		return Instrument{Symbol: f.Symbol(), Future: &f}, nil
	}
	s := strings.ToUpper(strings.TrimSpace(symbol))
	if !stockSymbol.MatchString(s) {
		return Instrument{}, apperr.Invalid("symbol", "must be a ticker of 1 to 32 letters, digits and . - / ^ = : _")
	}
	return Instrument{Symbol: s, Multiplier: decimal.NewFromInt(1)}, nil
}

// Columns are an instrument's own columns of a positions row:
// an option's root, expiry, right and strike, a future's root and contract
// month; nil where they do not apply.
type Columns struct {
	Underlying, Right     *string
	Expiry, ContractMonth *time.Time
	Strike                *decimal.Decimal
}

// Columns returns the instrument's own columns of a positions row.
func (in Instrument) Columns() Columns {
	var c Columns
	if o := in.Option; o != nil {
		c.Underlying, c.Right, c.Expiry, c.Strike = &o.Underlying, &o.Right, &o.Expiry, &o.Strike
	}
	if f := in.Future; f != nil {
		c.Underlying, c.ContractMonth = &f.Root, &f.Month
	}
	return c
}

// Contracts reports whether an asset type trades in whole contracts whose
// fees the fee schedule's options per-contract fields give: options and
// futures (a schedule has no futures fields of its own; a futures broker's
// per-contract commission goes in the options fields).
func Contracts(assetType string) bool {
	return assetType == AssetOption || assetType == AssetFuture
}
