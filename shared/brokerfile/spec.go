package brokerfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/instrument"
	"tradejournal/shared/money"

	"github.com/shopspring/decimal"
)

// Row shapes: one fill per row, or one closed trade per row.
const (
	ShapeExecution = "execution"
	ShapeRoundTrip = "round-trip"
)

// Date formats of the date cells. Every format also accepts a time after
// the date in the same cell ("01/19/2024 09:35:12 EST"); iso-datetime
// requires it. Dates that start with a four-digit year and dates with a
// month name ("19 JAN 24") are unambiguous and read in every format.
const (
	DateISO         = "iso"          // 2024-01-19, 2024/01/19, 20240119
	DateUS          = "us"           // 01/19/2024, 1/19/24, 01-19-2024
	DateEU          = "eu"           // 19/01/2024, 19.01.2024, 19-01-24
	DateISODateTime = "iso-datetime" // 2024-01-19T09:35:12Z, 2024-01-19 09:35:12, 20240119;093512
)

// Number formats: which of '.' and ',' is the decimal mark.
const (
	NumberUS = "us" // 1,234.56
	NumberEU = "eu" // 1.234,56 (also 1 234,56)
)

// The fields a mapping may name, by the JSON key of mapping.columns.
const (
	// Both shapes.
	FieldSymbol     = "symbol"     // ticker, OCC option symbol, or an option's underlying with expiry/strike/right
	FieldQuantity   = "quantity"   // shares or contracts; a negative quantity is a sell when there is no side
	FieldFees       = "fees"       // added to commission; negative values (IB's sign) count as charges
	FieldCommission = "commission" // added to fees
	FieldAssetType  = "assetType"  // stock, option (call, put), future; blank: from the symbol
	FieldExpiry     = "expiry"     // option expiry, when symbol is the underlying
	FieldStrike     = "strike"     // option strike, when symbol is the underlying
	FieldRight      = "right"      // C, P, call or put, when symbol is the underlying
	// FieldStatus ("status") and FieldAccount ("account") are in rules.go.
	FieldDescription = "description" // the row's description: an option written out ("NVDA Jul 10 2026 195.00 Put")

	// Execution rows.
	FieldDate   = "date"      // the fill's date (and time, if in the same cell)
	FieldTime   = "time"      // the fill's time of day, when in its own column
	FieldSide   = "side"      // buy or sell (BOT, SLD, Buy to Open, Sell Short, ...); round trips: long or short
	FieldPrice  = "price"     // the fill's price per share or per contract
	FieldEffect = "openClose" // the broker's open/close indicator (O, C, To Open, Closing, ...)

	// Round-trip rows.
	FieldEntryDate  = "entryDate"
	FieldEntryTime  = "entryTime"
	FieldEntryPrice = "entryPrice"
	FieldExitDate   = "exitDate"
	FieldExitTime   = "exitTime"
	FieldExitPrice  = "exitPrice"
	FieldPnL        = "pnl" // the file's own P&L: sets the direction when there is no side column
)

// fieldsOf lists the fields of each shape, in the order errors name them.
var fieldsOf = map[string][]string{
	ShapeExecution: {FieldDate, FieldTime, FieldSymbol, FieldAssetType, FieldExpiry, FieldStrike, FieldRight,
		FieldSide, FieldEffect, FieldQuantity, FieldPrice, FieldFees, FieldCommission, FieldStatus, FieldDescription, FieldAccount,
		fieldSwap, fieldFunding, fieldCharge, fieldProfit, fieldQuote, fieldFeeAsset, fieldSettle, fieldType, fieldRate, fieldMultiplier},
	ShapeRoundTrip: {FieldSymbol, FieldAssetType, FieldExpiry, FieldStrike, FieldRight, FieldSide, FieldQuantity,
		FieldEntryDate, FieldEntryTime, FieldEntryPrice, FieldExitDate, FieldExitTime, FieldExitPrice,
		FieldFees, FieldCommission, FieldPnL, FieldStatus, FieldDescription, FieldAccount,
		fieldSwap, fieldFunding, fieldCharge, fieldQuote, fieldFeeAsset, fieldSettle},
}

// requiredOf lists the fields a file of each shape must have.
var requiredOf = map[string][]string{
	ShapeExecution: {FieldDate, FieldSymbol, FieldQuantity, FieldPrice},
	ShapeRoundTrip: {FieldSymbol, FieldQuantity, FieldEntryDate, FieldEntryPrice, FieldExitDate, FieldExitPrice},
}

// Fields lists the fields a mapping may name for a row shape.
func Fields(shape string) []string { return slices.Clone(fieldsOf[shape]) }

// Required lists the fields a mapping must name for a row shape.
func Required(shape string) []string { return slices.Clone(requiredOf[shape]) }

// Options are the import options of a preview: the JSON part "options".
type Options struct {
	// AccountID names the account the fills go to (the route checks it).
	AccountID string `json:"accountId"`
	// PresetID picks a built-in preset; Mapping describes the file instead.
	// Exactly one of the two is given.
	PresetID string   `json:"presetId,omitempty"`
	Mapping  *Mapping `json:"mapping,omitempty"`
	// RowShape is execution or round-trip; default the preset's, or execution.
	RowShape string `json:"rowShape,omitempty"`
	// Timezone is the IANA zone of the file's times without a zone of their
	// own; default the preset's (UTC for an exchange that writes it), else
	// the account's trading-day zone.
	Timezone string `json:"timezone,omitempty"`
	// DateFormat is iso, us, eu or iso-datetime; default the preset's, or iso.
	DateFormat string `json:"dateFormat,omitempty"`
	// NumberFormat is us or eu; default the preset's, or us.
	NumberFormat string `json:"numberFormat,omitempty"`
	// FileAccount picks, in a file of several accounts (an account
	// column), the account whose rows this import reads; the others are
	// skipped and counted. A file of several accounts without it is
	// refused (MULTIPLE_ACCOUNTS), listing them.
	FileAccount string `json:"fileAccount,omitempty"`
	// AccountMap splits a file of several accounts across the user's
	// journal accounts: each of the file's accounts (the account column's
	// values) to a journal account id, or to "" to skip its rows. Every
	// account of the file must be in it. The route checks the ids.
	AccountMap map[string]string `json:"accountMap,omitempty"`
	// TradeDate is the trading day (YYYY-MM-DD) of a file that has times
	// but no dates: a preset that needs it (DAS Trader's trade log), or a
	// mapping without a date column.
	TradeDate string `json:"tradeDate,omitempty"`
	// Symbol is the instrument of a file that names none, for a preset
	// that needs it (TradeStation's trades list of one chart).
	Symbol string `json:"symbol,omitempty"`
	// QuoteRates are the trader's own rates of quote currencies or coins
	// in the account's currency for this file's forex, crypto and CFD
	// fills that the file gives none ({"USDT": "0.9998"}: a USDT-quoted
	// pair in a dollar account, which no stored exchange rate can name);
	// they count as given on each fill. At most 20.
	QuoteRates map[string]string `json:"quoteRates,omitempty"`
}

// Mapping describes a file no preset knows.
type Mapping struct {
	// HasHeader says whether the first row names the columns; default true.
	HasHeader *bool `json:"hasHeader,omitempty"`
	// Delimiter is one character ("," by default; "\t" or "tab" for tabs).
	Delimiter string `json:"delimiter,omitempty"`
	// Columns maps each field to its column: the header text (matched
	// ignoring case and surrounding spaces) or the 1-based column number.
	Columns map[string]Column `json:"columns"`
	// Filters skip rows by a column's value (a status, a record type);
	// with a status column and no filter on it, orders that did not fill
	// (cancelled, rejected, expired, ...) are skipped.
	Filters []Filter `json:"filters,omitempty"`
	// SkipNonTrades skips (and counts) rows whose side is not a trade word
	// (dividends, transfers, interest in an activity file) instead of
	// refusing them.
	SkipNonTrades bool `json:"skipNonTrades,omitempty"`
	// Sides and OpenClose teach the file's own words.
	Vocabulary
	// DefaultAssetType types the rows the file does not (future for a
	// futures file); Multiplier is the point value of futures whose root
	// has no built-in one.
	DefaultAssetType string `json:"defaultAssetType,omitempty"`
	Multiplier       string `json:"multiplier,omitempty"`
	// Forex, crypto and CFD files, as a preset says them: the quantity
	// is in lots (Preset.Lots), the P&L column (pnl, profit) is in the
	// account's currency (ProfitInAccount), a crypto fee is in the quote
	// when the row does not name its coin (FeeInQuote), the crypto symbols
	// are perpetuals (Perpetual), and the values of the type column whose
	// rows are funding payments (Funding).
	Lots            bool     `json:"lots,omitempty"`
	ProfitInAccount bool     `json:"profitInAccount,omitempty"`
	FeeInQuote      bool     `json:"feeInQuote,omitempty"`
	Perpetual       bool     `json:"perpetual,omitempty"`
	Funding         []string `json:"funding,omitempty"`
}

// Column is a column of the file: by header text or by 1-based number.
type Column struct {
	Name  string
	Index int // 1-based; 0 when named
}

// UnmarshalJSON reads a column given as a string (header text) or a whole
// number (1-based position).
func (c *Column) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		*c = Column{}
		return json.Unmarshal(data, &c.Name)
	}
	// Anything but a string or a whole number from 1 is marked and refused
	// by Resolve with a message naming the field.
	n, err := strconv.Atoi(string(data))
	if err != nil || n < 1 {
		n = -1
	}
	*c = Column{Index: n}
	return nil
}

// MarshalJSON writes the column back as it was given.
func (c Column) MarshalJSON() ([]byte, error) {
	if c.Index != 0 {
		return json.Marshal(c.Index)
	}
	return json.Marshal(c.Name)
}

func (c Column) String() string {
	if c.Index > 0 {
		return "column " + strconv.Itoa(c.Index)
	}
	return strconv.Quote(c.Name)
}

// Spec is a checked set of options: everything Parse needs to read a file.
type Spec struct {
	Shape        string
	Delimiter    rune
	HasHeader    bool
	DateFormat   string
	NumberFormat string
	Location     *time.Location
	// Now bounds fill times: at most one day ahead (journal.ParseTime's rule).
	Now time.Time
	// MaxRows caps the data rows (CSV_IMPORT_MAX_ROWS); 0 means no cap.
	MaxRows int

	// columns maps each field to the columns that may hold it: one for a
	// mapping, the accepted header names for a preset.
	columns map[string][]Column
	preset  *Preset // nil for a mapping

	filters       []Filter
	fileAccount   string
	accountMap    map[string]string // the file's accounts to journal ids ("" skips)
	tradeDate     *time.Time        // the day of a file without dates
	symbol        string            // the instrument of a file without symbols
	extraFees     []string          // fields of a preset's FeeColumns
	skipNonTrades bool
	vocab         vocab
	defaults      defaults
	markets       marketRules
	quoteRates    map[string]decimal.Decimal // Options.QuoteRates, checked
}

// AccountMap returns the checked accountMap (the file's accounts to
// journal account ids, "" to skip), or nil.
func (s *Spec) AccountMap() map[string]string { return maps.Clone(s.accountMap) }

// Preset returns the preset the spec was resolved from, or nil.
func (s *Spec) Preset() *Preset { return s.preset }

// maxColumnName bounds a mapped header name.
const maxColumnName = 200

// Resolve checks opts and returns the spec of the file. zone is the
// account's trading-day zone (the default of opts.Timezone). Every problem is
// reported at once as a VALIDATION_ERROR naming the option.
func Resolve(opts Options, zone string, now time.Time, maxRows int) (*Spec, error) {
	var problems []apperr.FieldError
	bad := func(field, msg string) { problems = append(problems, apperr.FieldError{Field: field, Message: msg}) }

	s := &Spec{Now: now, MaxRows: maxRows, Delimiter: ',', HasHeader: true,
		Shape: ShapeExecution, DateFormat: DateISO, NumberFormat: NumberUS}
	switch {
	case opts.PresetID != "" && opts.Mapping != nil:
		bad("presetId", "give presetId or mapping, not both")
	case opts.PresetID != "":
		p := PresetByID(opts.PresetID)
		if p == nil {
			bad("presetId", "is not a known preset (GET /api/csv-import/presets lists them)")
			break
		}
		s.preset = p
		s.Shape, s.DateFormat, s.NumberFormat, s.HasHeader = p.RowShape, p.DateFormat, p.NumberFormat, true
		s.Delimiter, _ = utf8.DecodeRuneInString(p.Delimiter)
		s.filters, s.skipNonTrades = presetFilters(p), p.SkipNonTrades
		s.vocab = compileVocabulary(p.Vocabulary, "presetId", bad)
		s.defaults = defaults{asset: p.DefaultAssetType}
		s.markets = compileMarkets(p.Lots, p.ProfitInAccount, p.FeeInQuote, p.Perpetual, p.Funding, "presetId.", bad)
		s.columns = map[string][]Column{}
		for field, names := range p.Columns {
			for _, n := range names {
				s.columns[field] = append(s.columns[field], Column{Name: n})
			}
		}
		for _, n := range p.FeeColumns {
			f := "fee:" + n
			s.extraFees = append(s.extraFees, f)
			s.columns[f] = []Column{{Name: n}}
		}
	case opts.Mapping != nil:
		m := opts.Mapping
		if m.HasHeader != nil {
			s.HasHeader = *m.HasHeader
		}
		if m.Delimiter != "" {
			d, msg := parseDelimiter(m.Delimiter)
			if msg != "" {
				bad("mapping.delimiter", msg)
			}
			s.Delimiter = d
		}
		s.filters = compileFilters(m.Filters, s.HasHeader, bad)
		s.skipNonTrades = m.SkipNonTrades
		s.vocab = compileVocabulary(m.Vocabulary, "mapping", bad)
		s.defaults = compileDefaults(m.DefaultAssetType, m.Multiplier, "mapping.", bad)
		s.markets = compileMarkets(m.Lots, m.ProfitInAccount, m.FeeInQuote, m.Perpetual, m.Funding, "mapping.", bad)
	default:
		bad("presetId", "give presetId (a built-in preset) or mapping (the file's columns)")
	}

	switch opts.RowShape {
	case "":
	case ShapeExecution, ShapeRoundTrip:
		if s.preset != nil && opts.RowShape != s.preset.RowShape {
			bad("rowShape", "the preset "+s.preset.ID+" reads "+s.preset.RowShape+" rows")
		}
		s.Shape = opts.RowShape
	default:
		bad("rowShape", "must be execution or round-trip")
	}
	switch opts.DateFormat {
	case "":
	case DateISO, DateUS, DateEU, DateISODateTime:
		s.DateFormat = opts.DateFormat
	default:
		bad("dateFormat", "must be iso, us, eu or iso-datetime")
	}
	switch opts.NumberFormat {
	case "":
	case NumberUS, NumberEU:
		s.NumberFormat = opts.NumberFormat
	default:
		bad("numberFormat", "must be us (1,234.56) or eu (1.234,56)")
	}
	if len(opts.FileAccount) > maxColumnName {
		bad("fileAccount", "must be at most "+strconv.Itoa(maxColumnName)+" characters")
	}
	s.fileAccount = strings.TrimSpace(opts.FileAccount)
	s.accountMap = compileAccountMap(opts, bad)
	s.tradeDate = resolveTradeDate(opts, s.preset, bad)
	s.symbol = resolveSymbol(opts, s.preset, now, bad)
	s.quoteRates = compileQuoteRates(opts.QuoteRates, bad)
	if opts.Timezone != "" {
		zone = opts.Timezone
	} else if s.preset != nil && s.preset.Timezone != "" {
		zone = s.preset.Timezone // an exchange's file of UTC times
	}
	if msg := auth.CheckTimezone(zone); msg != "" {
		bad("timezone", msg)
	} else {
		s.Location, _ = time.LoadLocation(zone)
	}

	if opts.Mapping != nil && opts.PresetID == "" {
		s.columns = map[string][]Column{}
		allowed := fieldsOf[s.Shape]
		fields := make([]string, 0, len(opts.Mapping.Columns))
		for f := range opts.Mapping.Columns {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		for _, f := range fields {
			c := opts.Mapping.Columns[f]
			name := "mapping.columns." + f
			switch {
			case !slices.Contains(allowed, f):
				bad(name, "is not a field of "+s.Shape+" rows (fields: "+strings.Join(allowed, ", ")+")")
			case c.Index < 0:
				bad(name, "must be a header name or a column number from 1")
			case c.Index == 0 && strings.TrimSpace(c.Name) == "":
				bad(name, "must name a column")
			case c.Index == 0 && len(c.Name) > maxColumnName:
				bad(name, "must be at most "+strconv.Itoa(maxColumnName)+" characters")
			case c.Index == 0 && !s.HasHeader:
				bad(name, "must be a column number: the file has no header row (hasHeader is false)")
			default:
				s.columns[f] = []Column{c}
			}
		}
		if _, typed := opts.Mapping.Columns[fieldType]; len(opts.Mapping.Funding) > 0 && !typed {
			bad("mapping.funding", "needs the column of the rows' type (mapping.columns.type) the funding values are of")
		}
		for _, f := range requiredOf[s.Shape] {
			if f == FieldDate && s.tradeDate != nil {
				f = FieldTime // the day is tradeDate; the file gives the time
			}
			if _, ok := opts.Mapping.Columns[f]; !ok {
				bad("mapping.columns."+f, "is required for "+s.Shape+" rows")
			}
		}
	}
	if err := apperr.Fields(problems); err != nil {
		return nil, err
	}
	return s, nil
}

// maxAccountMap bounds the file accounts an accountMap names.
const maxAccountMap = 100

// compileAccountMap checks an accountMap's shape (the route checks that
// its ids are the user's accounts).
func compileAccountMap(opts Options, bad func(field, msg string)) map[string]string {
	if opts.AccountMap == nil {
		return nil
	}
	switch {
	case opts.FileAccount != "":
		bad("accountMap", "give fileAccount (one of the file's accounts) or accountMap (each of them), not both")
		return nil
	case len(opts.AccountMap) == 0:
		bad("accountMap", "must name the file's accounts")
		return nil
	case len(opts.AccountMap) > maxAccountMap:
		bad("accountMap", fmt.Sprintf("may name at most %d accounts", maxAccountMap))
		return nil
	}
	out := make(map[string]string, len(opts.AccountMap))
	for k, v := range opts.AccountMap {
		key := strings.TrimSpace(k)
		switch {
		case key == "" || len(k) > maxColumnName:
			bad("accountMap", fmt.Sprintf("%q is not an account of a file", clip(k)))
		case len(v) > maxColumnName:
			bad("accountMap."+key, "must be one of your accounts' ids, or empty to skip its rows")
		default:
			out[key] = strings.TrimSpace(v)
		}
	}
	return out
}

// resolveTradeDate checks opts.TradeDate against the layout: required by a
// preset that needs it, allowed for a mapping without a date column.
func resolveTradeDate(opts Options, p *Preset, bad func(field, msg string)) *time.Time {
	needs := p != nil && p.NeedsDate
	if opts.TradeDate == "" {
		if needs {
			bad("tradeDate", "is required: the file has times but no dates ("+p.Name+"); give the trading day it is of (YYYY-MM-DD)")
		}
		return nil
	}
	d, err := time.Parse("2006-01-02", opts.TradeDate)
	switch {
	case err != nil:
		bad("tradeDate", "must be a date like 2025-02-04")
		return nil
	case p != nil && !needs:
		bad("tradeDate", "applies only to a file without dates (DAS Trader's trade log, or a mapping without a date column)")
		return nil
	case opts.RowShape == ShapeRoundTrip:
		bad("tradeDate", "applies only to execution rows (a round trip has its own entry and exit dates)")
		return nil
	case p == nil && opts.Mapping != nil:
		if _, dated := opts.Mapping.Columns[FieldDate]; dated {
			bad("tradeDate", "applies only to a mapping without a date column")
			return nil
		}
	}
	return &d
}

// resolveSymbol checks opts.Symbol against the preset: required by one
// that needs it, refused elsewhere; it must read as an instrument.
func resolveSymbol(opts Options, p *Preset, now time.Time, bad func(field, msg string)) string {
	needs := p != nil && p.NeedsSymbol
	sym := strings.TrimSpace(opts.Symbol)
	switch {
	case sym == "" && needs:
		bad("symbol", "is required: the file names no symbol ("+p.Name+"); give the instrument it is of (AAPL, /ESH25 for a future, or an OCC option symbol)")
	case sym == "":
	case !needs:
		bad("symbol", "applies only to a file that names no symbol (TradeStation's trades list)")
	default:
		if _, _, msg := ParseSymbol(sym, "", now); msg != "" {
			bad("symbol", msg)
			return ""
		}
		return sym
	}
	return ""
}

// parseDelimiter reads a mapping's delimiter: one character other than a
// quote, a line break or a replacement character; "tab" and "\t" mean a tab.
func parseDelimiter(s string) (rune, string) {
	switch strings.ToLower(s) {
	case "tab", `\t`:
		return '\t', ""
	}
	r, size := utf8.DecodeRuneInString(s)
	if size != len(s) || r == utf8.RuneError || r == '"' || r == '\r' || r == '\n' || r == 0xFEFF {
		return ',', `must be one character such as "," ";" "|" or "tab"`
	}
	return r, ""
}

// maxQuoteRates bounds Options.QuoteRates.
const maxQuoteRates = 20

// compileQuoteRates checks Options.QuoteRates: coin or currency codes
// (upper-cased) to rates greater than 0 with at most 12 places.
func compileQuoteRates(in map[string]string, bad func(field, msg string)) map[string]decimal.Decimal {
	if len(in) == 0 {
		return nil
	}
	if len(in) > maxQuoteRates {
		bad("quoteRates", "must name at most "+strconv.Itoa(maxQuoteRates)+" currencies")
		return nil
	}
	out := make(map[string]decimal.Decimal, len(in))
	for code, v := range in {
		c := strings.ToUpper(strings.TrimSpace(code))
		field := "quoteRates." + clip(code)
		if !instrument.ValidAsset(c) {
			bad(field, "must be keyed by a coin or currency code of 2 to 10 letters or digits, such as USDT")
			continue
		}
		r, err := money.Parse(strings.TrimSpace(v))
		if err != nil || !r.IsPositive() || r.Exponent() < -12 || r.GreaterThan(decimal.NewFromInt(1_000_000_000)) {
			bad(field, "must be a rate greater than 0 and at most 1000000000 with at most 12 decimal places: what 1 "+c+" is worth in the account's currency")
			continue
		}
		out[c] = r
	}
	return out
}
