package brokerfile

import (
	"time"

	"github.com/shopspring/decimal"
)

// Problem is a located error or warning: the row (the line on which the
// record starts), the 1-based column and its header text, the importer
// field, a code and a message for a person.
type Problem struct {
	Row        int    `json:"row"`        // 0: the whole file
	Column     int    `json:"column"`     // 0: the whole row
	ColumnName string `json:"columnName"` // the header text of Column, or ""
	Field      string `json:"field"`      // the importer field, or ""
	Code       string `json:"code"`
	Message    string `json:"message"`
	// Symbol is the canonical symbol of the row's instrument when it could
	// be read (a partial import leaves that instrument's rows out).
	Symbol string `json:"-"`
	// Account is the row's account in a file of several accounts (the
	// account column), or "".
	Account string `json:"account,omitempty"`
}

// Codes of errors: the row cannot be imported as it is.
const (
	CodeMalformedRow     = "MALFORMED_ROW"      // not valid CSV (a stray quote)
	CodeMissingValue     = "MISSING_VALUE"      // a required cell is empty, or the row is too short to have it
	CodeInvalidNumber    = "INVALID_NUMBER"     // not a number in the chosen number format
	CodeInvalidDate      = "INVALID_DATE"       // not a date in the chosen date format
	CodeInvalidTime      = "INVALID_TIME"       // not a time of day (or an unknown zone)
	CodeInvalidSide      = "INVALID_SIDE"       // not buy or sell (long or short), or against the quantity's sign
	CodeInvalidValue     = "INVALID_VALUE"      // an open/close, asset type or option right word not understood
	CodeInvalidSymbol    = "INVALID_SYMBOL"     // not a ticker or an option symbol
	CodeOutOfRange       = "OUT_OF_RANGE"       // a value outside what the journal records
	CodeUnsupportedAsset = "UNSUPPORTED_ASSET"  // forex, crypto, ...: the journal records stocks, options and futures
	CodeReversal         = "REVERSAL"           // an exit larger than the open quantity: split into a close and the opposite position
	CodeExitWithoutEntry = "EXIT_WITHOUT_ENTRY" // a fill marked closing when nothing is open
	CodeEffectMismatch   = "EFFECT_MISMATCH"    // marked opening but it reduces the position, or the reverse
	CodeTooManyFills     = "TOO_MANY_FILLS"     // a position of more than journal.MaxFills fills
	// The file holds several accounts (an account column) and the options
	// did not say which one to import (fileAccount) or where each goes
	// (accountMap, which must name every account of the file).
	CodeMultipleAccounts = "MULTIPLE_ACCOUNTS"
	// A future whose root has no built-in point value (the positions API
	// takes its multiplier; a file has no column for it).
	CodeUnknownPointValue = "UNKNOWN_POINT_VALUE"
)

// Codes of warnings: the row is imported, but look.
const (
	CodeDuplicateInJournal = "DUPLICATE_IN_JOURNAL" // the journal has this fill: skipped unless confirmed
	CodeDuplicateInFile    = "DUPLICATE_IN_FILE"    // an earlier row has the same fill: both are imported
	CodeNoFeesColumn       = "NO_FEES_COLUMN"       // no fee or commission column: fees estimated (or 0)
	CodeFeesEstimated      = "FEES_ESTIMATED"       // rows with an empty fee cell: estimated
	CodeDirectionInferred  = "DIRECTION_INFERRED"   // a short (or a round trip's side) read from the order of fills
	CodeRounded            = "ROUNDED"              // more decimal places than the journal keeps
	CodeRowsSkipped        = "ROWS_SKIPPED"         // rows that are not fills (cancelled orders, summaries)
	CodeContinuesPosition  = "CONTINUES_POSITION"   // fills added to a position open in the journal
	// An amount of the row the journal does not book: a credit larger than
	// the charges of a fill whose fees are never below 0 (a stock's), or a
	// funding payment without a fill of its contract in the file.
	CodeNotBooked = "NOT_BOOKED"
	// A forex, crypto or CFD position with an exit whose P&L, or a fee
	// whose coin, has no rate into the account's currency: its figures
	// wait for one (the journal's awaitingRate).
	CodeAwaitingRate = "AWAITING_RATE"
)

// Fill is one fill read from the file.
type Fill struct {
	Row        int             // the line of the row it came from
	Symbol     string          // canonical: uppercase ticker, OCC option symbol, futures contract, pair
	AssetType  string          // one of instrument.AssetTypes
	Multiplier decimal.Decimal // 1, instrument.OptionMultiplier, or a future's point value
	Side       string          // Buy or Sell
	// Effect is what the file said: EffectOpen, EffectClose, or "" (then
	// the running quantity decides).
	Effect       string
	Price        decimal.Decimal
	Quantity     decimal.Decimal // > 0
	Fees         decimal.Decimal // >= 0
	FeesGiven    bool            // the row gave a fee (else EstimateFees may)
	FeeEstimated bool            // set from the account's fee schedule
	FilledAt     time.Time       // UTC, microseconds
	// Trip groups the fills of round-trip rows that Build reads apart
	// from everything else: the rows of one unit from flat to flat
	// (joinTrips), named by its first row; 0 for execution rows.
	Trip int
	// The 1-based columns of the quantity, symbol and side cells, for
	// locating grouping errors; 0 when the file has none.
	QtyColumn, SymbolColumn, SideColumn int
	// Account is the row's account in a file with an account column (the
	// import's accountMap sends it to a journal account), or "". It is not
	// part of the staged form: a staged preview holds each journal
	// account's fills apart.
	Account string
	// OrderID names the broker's order (or strategy, or combo) the fill
	// belongs to, when the file tells: the legs of one multi-leg order
	// share it, and strategy grouping reads it (GroupStrategies). "" when
	// the file has none.
	OrderID string
	// Rate is the file's rate of a forex, crypto or CFD fill's quote
	// currency in the account's (journal.Fill.Rate), when it tells one
	// (a MetaTrader deal's profit in the account's currency over its profit
	// in the quote); nil lets the journal find it.
	Rate *decimal.Decimal
	// Quote is a CFD's currency when the file names it ("" for the
	// account's; a pair's is in its symbol).
	Quote string
	// FeeAsset is the currency or coin Fees is in when it is not the
	// account's (a crypto fee in the base, the quote or BNB): the journal
	// converts it when it writes the fill (journalstore's convert).
	FeeAsset string

	// fillID is the broker's id of the fill a round-trip row's entry or
	// exit is, when the file names it (Tradovate's buyFillId and
	// sellFillId): rows that share a fill name it alike (joinTrips). Not
	// staged.
	fillID string

	// profit is the file's P&L of the fill in the account's currency
	// (ProfitInAccount), from which Parse works out Rate; not staged.
	profit *decimal.Decimal
}

// Key identifies a fill for duplicate detection: same symbol and asset
// type, instant, side, price and quantity (decimals in canonical form).
type Key struct {
	Symbol, AssetType, Side string
	At                      int64 // Unix microseconds
	Price, Quantity         string
}

// Key returns the fill's duplicate key.
func (f *Fill) Key() Key {
	return Key{Symbol: f.Symbol, AssetType: f.AssetType, Side: f.Side, At: f.FilledAt.UnixMicro(),
		Price: f.Price.String(), Quantity: f.Quantity.String()}
}
