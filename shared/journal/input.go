package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
	"tradejournal/shared/money"
)

// Limits of the journal's request fields. The decimal bounds keep every
// value inside its NUMERIC column without rounding: a value with more places
// than the column keeps is refused, not silently rounded.
const (
	MaxNameChars    = 100    // account, brokerage and position symbol names
	MaxTagNameChars = 50     // tag names
	MaxNotesChars   = 20_000 // position notes
	MaxNoteChars    = 500    // ledger entry notes
	MaxCaptionChars = 500    // image captions
	MaxFills        = 1000   // fills of one position
	MaxTagsPerItem  = 50     // tags on one position
)

// Decimal bounds, as strings for the messages and as values for the checks.
var (
	maxPrice    = decimal.RequireFromString("99999999")            // numeric(18,8)
	maxQuantity = decimal.RequireFromString("1000000000")          // numeric(24,8)
	maxFee      = decimal.RequireFromString("9999999.99")          // numeric(18,4), as the calculator
	maxBalance  = decimal.RequireFromString("99999999999999.9999") // numeric(18,4)
	hundred     = decimal.NewFromInt(100)
)

// Field is one JSON field of a request that holds a string: absent, null,
// a string, or some other JSON value. Decimals travel as strings; a JSON
// number where a string belongs is a VALIDATION_ERROR naming the field,
// reported with every other problem rather than stopping the decode. PATCH
// bodies tell "absent" (keep) from null (clear).
type Field struct {
	Set       bool // the key was present
	Null      bool // its value was null
	Str       string
	NotString bool // its value was a number, boolean, object or array
}

// UnmarshalJSON records what the body held. It never fails.
func (f *Field) UnmarshalJSON(data []byte) error {
	*f = Field{Set: true}
	switch {
	case bytes.Equal(data, []byte("null")):
		f.Null = true
	case len(data) > 0 && data[0] == '"':
		if err := json.Unmarshal(data, &f.Str); err != nil {
			f.NotString = true
		}
	default:
		f.NotString = true
	}
	return nil
}

// MarshalJSON writes the field back (absent and null as null).
func (f Field) MarshalJSON() ([]byte, error) {
	if !f.Set || f.Null || f.NotString {
		return []byte("null"), nil
	}
	return json.Marshal(f.Str)
}

// IsZero reports an absent field, for omitzero.
func (f Field) IsZero() bool { return !f.Set }

// Given reports a field holding a value (not absent, not null). An empty
// or blank string counts as absent in decimal fields (an emptied form
// input), so those use Blank.
func (f Field) Given() bool { return f.Set && !f.Null }

// Blank reports a field that holds no value: absent, null or a string of
// only spaces.
func (f Field) Blank() bool {
	return !f.Set || f.Null || (!f.NotString && strings.TrimSpace(f.Str) == "")
}

// S returns a Field holding the string s (for tests and callers building
// requests in Go).
func S(s string) Field { return Field{Set: true, Str: s} }

// Null is a Field holding JSON null.
var Null = Field{Set: true, Null: true}

// clock is a time of day, "HH:MM" on a 24-hour clock.
var clock = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

// ValidClock reports whether s is a time of day "HH:MM" ("09:30"), the
// form of the rules' and the prop-firm plans' hours: such strings compare
// in time order.
func ValidClock(s string) bool { return clock.MatchString(s) }

// Problems collects the field errors of one request; Err returns them as
// one VALIDATION_ERROR (nil without problems).
type Problems struct{ list []apperr.FieldError }

// Add records a problem with a field.
func (p *Problems) Add(field, message string) {
	p.list = append(p.list, apperr.FieldError{Field: field, Message: message})
}

// Has reports whether field already has a problem.
func (p *Problems) Has(field string) bool {
	for _, e := range p.list {
		if e.Field == field {
			return true
		}
	}
	return false
}

// Merge records the field problems of a validator's error (an
// apperr.Error naming its fields); nil adds nothing.
func (p *Problems) Merge(err error) {
	if err == nil {
		return
	}
	if e, ok := apperr.As(err); ok && len(e.Details) > 0 {
		p.list = append(p.list, e.Details...)
		return
	}
	p.Add("", err.Error())
}

// Err returns every problem as one VALIDATION_ERROR, or nil.
func (p *Problems) Err() error { return apperr.Fields(p.list) }

// DecimalRule bounds a decimal field.
type DecimalRule struct {
	Min       decimal.Decimal
	MinOpen   bool // Min itself is refused ("greater than")
	Max       decimal.Decimal
	Places    int32 // most fraction digits the column keeps
	Message   string
	AllowSign bool // negative values are in range (Min is then -Max)
}

// The rules of the journal's decimal fields.
var (
	PriceRule = DecimalRule{MinOpen: true, Max: maxPrice, Places: 8, Message: "must be greater than 0 and at most 99999999"}
	// ExitPriceRule lets an exit be at 0: an option that expired worthless,
	// a share delisted without a payout.
	ExitPriceRule = DecimalRule{Max: maxPrice, Places: 8, Message: "must be at least 0 (0 for an option that expired worthless) and at most 99999999"}
	QuantityRule  = DecimalRule{MinOpen: true, Max: maxQuantity, Places: 8, Message: "must be greater than 0 and at most 1000000000"}
	FeeRule       = DecimalRule{Max: maxFee, Places: 4, Message: "must be at least 0 and at most 9999999.99"}
	// ScheduleRule bounds the seven fee-schedule fields, as the calculator does.
	ScheduleRule = DecimalRule{Max: maxFee, Places: 8, Message: "must be at least 0 and at most 9999999.99"}
	BalanceRule  = DecimalRule{AllowSign: true, Max: maxBalance, Places: 4, Message: "must be between -99999999999999.9999 and 99999999999999.9999"}
	AmountRule   = DecimalRule{MinOpen: true, Max: maxBalance, Places: 4, Message: "must be greater than 0 and at most 99999999999999.9999"}
	PercentRule  = DecimalRule{MinOpen: true, Max: hundred, Places: 4, Message: "must be greater than 0 and at most 100"}
	// FillRateRule bounds a fill's rate of its quote currency in the
	// account's (numeric(30,12)): 1 JPY is 0.0067 USD, 1 USD is 16,000 IDR.
	FillRateRule = DecimalRule{MinOpen: true, Max: maxQuantity, Places: 12, Message: "must be greater than 0 and at most 1000000000"}
)

// CryptoPlaces is the decimal places a crypto fill's price and quantity
// may have (the columns' scale): an ether quantity in wei, a coin priced at
// 0.000001234.
const CryptoPlaces = 18

// Decimal parses a non-blank field by money.Parse's strict grammar and
// checks it against r. ok is false (with a problem recorded) when the value
// is bad, and false without a problem when the field is blank.
func (p *Problems) Decimal(field string, f Field, r DecimalRule) (d decimal.Decimal, ok bool) {
	if f.Blank() {
		return decimal.Zero, false
	}
	if f.NotString {
		p.Add(field, "must be a JSON string holding a decimal like \"123.45\", not a number or other value")
		return decimal.Zero, false
	}
	d, err := money.Parse(f.Str)
	if err != nil {
		if errors.Is(err, money.ErrTooLong) {
			p.Add(field, money.ErrTooLong.Error())
		} else {
			p.Add(field, money.ErrFormat.Error())
		}
		return decimal.Zero, false
	}
	if msg := r.check(d); msg != "" {
		p.Add(field, msg)
		return decimal.Zero, false
	}
	return d, true
}

// RequiredDecimal is Decimal with "is required" for a blank field.
func (p *Problems) RequiredDecimal(field string, f Field, r DecimalRule) (decimal.Decimal, bool) {
	if f.Blank() {
		p.Add(field, "is required")
		return decimal.Zero, false
	}
	return p.Decimal(field, f, r)
}

func (r DecimalRule) check(d decimal.Decimal) string {
	switch {
	case r.AllowSign && d.Abs().GreaterThan(r.Max),
		!r.AllowSign && (d.LessThan(r.Min) || r.MinOpen && d.Equal(r.Min) || d.GreaterThan(r.Max)):
		return r.Message
	case d.Exponent() < -r.Places && !d.Equal(d.Truncate(r.Places)):
		return fmt.Sprintf("must have at most %d decimal places", r.Places)
	}
	return ""
}

// Text checks the free-text value of field: at most max characters and no
// NUL (which PostgreSQL text cannot hold).
func Text(field, s string, max int) error {
	if strings.IndexByte(s, 0) >= 0 {
		return apperr.Invalid(field, "must not contain NUL characters")
	}
	if utf8.RuneCountInString(s) > max {
		return apperr.Invalid(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
	return nil
}

// Name trims the required name of field and checks it: 1 to max
// characters, no control characters.
func Name(field, s string, max int) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", apperr.Invalid(field, "is required")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return "", apperr.Invalid(field, "must not contain control characters")
		}
	}
	if utf8.RuneCountInString(s) > max {
		return "", apperr.Invalid(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
	return s, nil
}

// Earliest and the future allowance bound fill times and ledger dates: a
// time before 1970 or more than a day ahead of the server clock is a typo.
var Earliest = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// ParseTime reads field, an RFC 3339 timestamp with a zone
// ("2024-01-19T14:30:00Z", "2024-01-19T09:30:00-05:00") between 1970 and
// one day after now. It returns the time in UTC, truncated to microseconds
// (what timestamptz keeps).
func ParseTime(field, s string, now time.Time) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, apperr.Invalid(field, "must be a timestamp like 2024-01-19T14:30:00Z (RFC 3339, with a zone)")
	}
	t = t.UTC().Truncate(time.Microsecond)
	if t.Before(Earliest) || t.After(now.Add(24*time.Hour)) {
		return time.Time{}, apperr.Invalid(field, "must be between 1970 and tomorrow")
	}
	return t, nil
}

// FillInput is a fill as a request carries it (POST /api/positions fills,
// POST and PATCH /api/positions/{id}/fills).
type FillInput struct {
	Type     *string `json:"type"`
	Price    Field   `json:"price,omitzero"`
	Quantity Field   `json:"quantity,omitzero"`
	Fees     Field   `json:"fees,omitzero"`
	FilledAt *string `json:"filledAt"`
	// Rate is a forex, crypto or CFD fill's rate of its quote currency in
	// the account's (journal.Fill.Rate); blank lets the journal find it.
	Rate Field `json:"rate,omitzero"`
	// FeeAsset is the coin or currency a crypto fill's fees are in when
	// not the account's ("BNB", the base or the quote); blank for the
	// account's.
	FeeAsset *string `json:"feeAsset"`
}

// FillValues is a validated FillInput. FeesGiven is false when the fee is
// to be estimated from the account's fee schedule.
type FillValues struct {
	Type      string
	Price     decimal.Decimal
	Quantity  decimal.Decimal
	Fees      decimal.Decimal
	FeesGiven bool
	FilledAt  time.Time
	Rate      *decimal.Decimal // given; nil to be found
	FeeAsset  string           // "" for the account's currency
}

// ValidateFill checks a complete fill (every field but fees and rate
// required) of a position of assetType, naming fields with prefix ("" or
// "fills[2]."): options and futures trade whole contracts
// (instrument.Contracts), crypto takes 18 places of price and quantity, and
// only a quoted asset type (instrument.QuotedApart) takes a rate.
func ValidateFill(p *Problems, prefix string, in FillInput, assetType string, now time.Time) FillValues {
	var v FillValues
	switch {
	case in.Type == nil:
		p.Add(prefix+"type", "is required")
	case *in.Type == FillEntry, *in.Type == FillExit:
		v.Type = *in.Type
	default:
		p.Add(prefix+"type", "must be entry or exit")
	}
	priceRule, quantityRule, feeRule := PriceRule, QuantityRule, FeeRule
	if v.Type == FillExit {
		priceRule = ExitPriceRule
	}
	if assetType == instrument.AssetCrypto {
		priceRule.Places, quantityRule.Places, feeRule.Places = CryptoPlaces, CryptoPlaces, CryptoPlaces
	}
	if instrument.QuotedApart(assetType) {
		// A swap credited, funding received or a maker rebate is a negative fee.
		feeRule.AllowSign, feeRule.Message = true, "must be between -9999999.99 and 9999999.99 (negative for a swap or funding credited)"
	}
	v.Price, _ = p.RequiredDecimal(prefix+"price", in.Price, priceRule)
	v.Quantity, _ = p.RequiredDecimal(prefix+"quantity", in.Quantity, quantityRule)
	if instrument.Contracts(assetType) && v.Quantity.IsPositive() && !v.Quantity.Equal(v.Quantity.Truncate(0)) {
		p.Add(prefix+"quantity", "must be a whole number of contracts")
	}
	v.Fees, v.FeesGiven = p.Decimal(prefix+"fees", in.Fees, feeRule)
	if a := in.FeeAsset; a != nil && strings.TrimSpace(*a) != "" {
		code := strings.ToUpper(strings.TrimSpace(*a))
		switch {
		case assetType != instrument.AssetCrypto:
			p.Add(prefix+"feeAsset", "applies only to crypto (other fees are in the account's currency)")
		case !instrument.ValidAsset(code):
			p.Add(prefix+"feeAsset", "must be a coin or currency code of 2 to 10 letters or digits, such as BNB or USDT")
		default:
			v.FeeAsset = code
		}
	}
	if r, ok := p.Decimal(prefix+"rate", in.Rate, FillRateRule); ok {
		if instrument.QuotedApart(assetType) {
			v.Rate = &r
		} else {
			p.Add(prefix+"rate", "applies only to forex, crypto and CFDs (what 1 unit of the quote currency is worth in the account's)")
		}
	}
	if !v.FeesGiven {
		v.FeeAsset = "" // an estimated fee is in the account's currency
	}
	if in.FilledAt == nil {
		p.Add(prefix+"filledAt", "is required")
	} else if t, err := ParseTime(prefix+"filledAt", *in.FilledAt, now); err != nil {
		p.Merge(err)
	} else {
		v.FilledAt = t
	}
	return v
}

// MultiplierRule bounds a multiplier given for a future: the point value
// of one contract, numeric(18,8).
var MultiplierRule = DecimalRule{MinOpen: true, Max: decimal.NewFromInt(1_000_000_000), Places: 8,
	Message: "must be greater than 0 and at most 1000000000"}

// ParseDate reads a calendar date YYYY-MM-DD of year 1 to 9999: Go reads
// year 0000, PostgreSQL refuses it (there is no year 0).
func ParseDate(s string) (time.Time, error) {
	if len(s) != 10 {
		return time.Time{}, errors.New("not a date")
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || !InDatabaseRange(t) {
		return time.Time{}, errors.New("not a date")
	}
	return t, nil
}

// InDatabaseRange reports whether PostgreSQL reads t written as text the
// way Go does: a year from 1 to 9999 (Go reads 0000, PostgreSQL has no
// year 0) and a UTC offset within PostgreSQL's +-15:59 (Go reads up to
// +-23:59).
func InDatabaseRange(t time.Time) bool {
	_, offset := t.Zone()
	return t.Year() >= 1 && t.Year() <= 9999 && offset > -16*3600 && offset < 16*3600
}
