// Package tax turns a trader's fills into the realised gains a tax return
// asks for: US (FIFO lots, wash sales, Section 1256 60/40 with year-end
// marks, Form 8949 boxes), UK (HMRC share matching: same day, 30 days,
// Section 104 pool) and a plain FIFO report for other countries. It is pure:
// values in, a Report out; no SQL, no HTTP, no clock. docs/tax.md says what
// each jurisdiction's rules cover and what they leave to the accountant.
package tax

import (
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
)

// Jurisdiction selects the rules a report follows.
type Jurisdiction string

// The jurisdictions Compute knows.
const (
	US    Jurisdiction = "us"
	UK    Jurisdiction = "uk"
	Other Jurisdiction = "other"
)

// Side is a trade's direction.
type Side string

// The two sides of a trade.
const (
	Buy  Side = "buy"
	Sell Side = "sell"
)

// BasisReporting says what a broker's Form 1099-B says about an account's
// sales; it picks the Form 8949 box (short-term / long-term).
type BasisReporting string

// The three Form 8949 cases. The zero value counts as BasisReported, the
// usual case of a US broker.
const (
	BasisReported    BasisReporting = "reported"     // basis reported to the IRS: box A / D
	BasisNotReported BasisReporting = "not_reported" // 1099-B without basis: box B / E
	NoForm1099B      BasisReporting = "none"         // no 1099-B (a foreign broker): box C / F
)

// Trade is one execution in the taxpayer's accounts (a fill of the
// journal).
type Trade struct {
	ID          string          // the fill's id, so each lot can say which fills made it
	Account     string          // account id: lots never cross accounts; US wash sales do
	Instrument  string          // instrument key: ticker for stock, OCC symbol for options, contract for futures
	Underlying  string          // the underlying ticker (a stock's own ticker)
	AssetType   string          // "stock", "option", "future" (more may come)
	Section1256 bool            // US: futures, options on futures, broad-based index options
	Time        time.Time       // execution time (UTC)
	Side        Side            // Buy or Sell
	Quantity    decimal.Decimal // shares or contracts, > 0
	Multiplier  decimal.Decimal // 1 for stock, 100 for a standard option, a future's point value
	Price       decimal.Decimal // per unit, may be 0 (an option expiring worthless)
	Fees        decimal.Decimal // >= 0, in Currency: added to cost on acquisitions, taken from proceeds on disposals
	Currency    string          // ISO code of Price and Fees
}

// Request is everything a report is computed from.
type Request struct {
	Jurisdiction Jurisdiction
	// Year is the calendar year (US, other) or, for the UK, the tax year
	// that starts on 6 April Year and ends on 5 April Year+1.
	Year int
	// Zone is the taxpayer's zone: a trade's date is its date there.
	Zone *time.Location
	// Currency is the report's currency. Empty means USD for the US and
	// GBP for the UK; the US and UK accept only those. Other needs one.
	Currency string
	// Rates are the stored exchange rates; a trade in another currency
	// converts at its own date's rate (fx.Spot).
	Rates []fx.Rate
	// Trades are every trade of every year, in any order: earlier years
	// make the basis, later ones can wash a loss.
	Trades []Trade
	// Marks (US 1256): instrument -> price, in the trade's currency, on
	// the last business day of Year, for contracts still open then.
	Marks map[string]decimal.Decimal
	// MarksByYear holds the year-end marks of other years (a contract
	// carried over an earlier year end takes its new basis from it). A
	// Year entry here is used only when Marks has no price.
	MarksByYear map[int]map[string]decimal.Decimal
	// Reporting is the Form 8949 case per account id; missing accounts
	// are BasisReported.
	Reporting map[string]BasisReporting
}

// Report is a year's realised gains under one jurisdiction's rules.
// Amounts are in Currency, rounded to cents (pence); dates are YYYY-MM-DD
// in the taxpayer's zone.
type Report struct {
	Jurisdiction Jurisdiction `json:"jurisdiction"`
	Year         int          `json:"year"`
	From         string       `json:"from"`
	To           string       `json:"to"`
	Method       string       `json:"method"`
	Currency     string       `json:"currency"`
	Lots         []Lot        `json:"lots"`
	WashSales    []WashSale   `json:"washSales"`
	// PossiblyIdentical lists US losses near a purchase of another
	// instrument on the same underlying (an option on the stock sold, or
	// the stock of an option sold). They are not washed: whether the two
	// are substantially identical is the taxpayer's call.
	PossiblyIdentical []PossiblyIdentical `json:"possiblyIdentical"`
	Section1256       *Section1256        `json:"section1256,omitempty"`
	Totals            Totals              `json:"totals"`
	// Missing names every problem that stops a figure being right. A lot
	// it touches has Incomplete set.
	Missing []Missing `json:"missing"`
}

// Lot is one disposal: what was sold (or, for a short sale, bought back),
// when, for what, and what made its basis.
type Lot struct {
	ID          string `json:"id"`
	Description string `json:"description"` // "100 sh AAPL", "1 AAPL 19 Jan 2024 190 Call", "2 ESZ24"
	Instrument  string `json:"instrument"`
	Underlying  string `json:"underlying,omitempty"`
	AssetType   string `json:"assetType,omitempty"`
	// Account is the disposal's account; a UK lot of one day's disposals
	// in several accounts lists them, comma-separated.
	Account string `json:"account"`
	// DisposalFills are the fills that disposed: the sell of a long, the
	// short sale of a short. Empty for a Section 1256 year-end mark.
	DisposalFills []string        `json:"disposalFills"`
	Short         bool            `json:"short,omitempty"` // closes a short sale
	Quantity      decimal.Decimal `json:"quantity"`
	// Acquired is the date acquired, "VARIOUS" where several dates or the
	// UK pool make it so. A US wash sale replacement carries the holding
	// period of the shares it replaced, so its date is moved back by it.
	Acquired string `json:"acquired"`
	// Sold is the date sold; for a closed short sale, the date it was
	// closed (the date the shares were delivered).
	Sold     string          `json:"sold"`
	Proceeds decimal.Decimal `json:"proceeds"`
	Basis    decimal.Decimal `json:"basis"`
	// AdjustmentCode is Form 8949's column (f): "W" for a wash sale.
	AdjustmentCode string `json:"adjustmentCode,omitempty"`
	// Adjustment is Form 8949's column (g): the disallowed loss, added to
	// the gain (it is positive, the loss negative).
	Adjustment decimal.Decimal `json:"adjustment"`
	// Gain is Proceeds - Basis + Adjustment.
	Gain decimal.Decimal `json:"gain"`
	// Term is "short" or "long" (US), "1256" for a Section 1256 contract
	// (60/40 whatever the holding), "" elsewhere.
	Term        string `json:"term,omitempty"`
	Box         string `json:"box,omitempty"` // Form 8949 box A-F; "" for 1256 and outside the US
	Section1256 bool   `json:"section1256,omitempty"`
	// MarkToMarket: a Section 1256 contract open at a year end, treated as
	// sold at the mark (Sold is the last business day).
	MarkToMarket bool `json:"markToMarket,omitempty"`
	// Mark is the price per unit (in the trade's currency) of a year-end
	// mark.
	Mark *decimal.Decimal `json:"mark,omitempty"`
	// Rule names the UK matching rules used, in order ("same day, 30
	// days, section 104"); "fifo" elsewhere.
	Rule     string       `json:"rule"`
	Matches  []Match      `json:"matches"`
	WashedTo []WashTarget `json:"washedTo,omitempty"`
	// Incomplete: a figure of this lot lacks an exchange rate, a mark or
	// a matching acquisition; Report.Missing says which.
	Incomplete bool `json:"incomplete,omitempty"`
}

// Match is one part of a lot's basis: the acquisition (or, for a short
// sale, the covering purchase) it came from.
type Match struct {
	Rule     string          `json:"rule"`             // "fifo", "same day", "30 days", "section 104", "later acquisition", "year-end mark"
	FillID   string          `json:"fillId,omitempty"` // empty for the Section 104 pool
	Account  string          `json:"account,omitempty"`
	Date     string          `json:"date,omitempty"` // the acquisition's own date
	Quantity decimal.Decimal `json:"quantity"`
	// Cost is the basis this part brings, a carried wash loss included.
	Cost decimal.Decimal `json:"cost"`
	// WashAdjustment is the part of Cost that is a loss disallowed on the
	// lot WashedFrom and carried to these replacement shares.
	WashAdjustment decimal.Decimal `json:"washAdjustment"`
	WashedFrom     string          `json:"washedFrom,omitempty"`
	// PoolQuantity and PoolCost are the Section 104 pool just before this
	// disposal took its part (UK).
	PoolQuantity *decimal.Decimal `json:"poolQuantity,omitempty"`
	PoolCost     *decimal.Decimal `json:"poolCost,omitempty"`
}

// WashTarget says where part of a washed loss went.
type WashTarget struct {
	FillID   string          `json:"fillId"` // the replacement acquisition
	Account  string          `json:"account"`
	Date     string          `json:"date"`
	Quantity decimal.Decimal `json:"quantity"`
	Amount   decimal.Decimal `json:"amount"`
}

// WashSale is one replacement of one loss lot (a lot replaced by two buys
// has two).
type WashSale struct {
	LossLot            string          `json:"lossLot"`
	Instrument         string          `json:"instrument"`
	Account            string          `json:"account"`
	Sold               string          `json:"sold"`
	ReplacementFill    string          `json:"replacementFill"`
	ReplacementAccount string          `json:"replacementAccount"`
	ReplacementDate    string          `json:"replacementDate"`
	Quantity           decimal.Decimal `json:"quantity"`
	Disallowed         decimal.Decimal `json:"disallowed"`
	// DaysBetween is the replacement's date minus the sale's: negative
	// for a purchase before the sale.
	DaysBetween int `json:"daysBetween"`
	// ProRata: the replacement covered only part of the loss lot's
	// quantity, so only that share of the loss is disallowed here.
	ProRata bool `json:"proRata"`
	// ReplacementLots are the later lots that sold the replacement shares
	// (empty while they are held).
	ReplacementLots []string `json:"replacementLots"`
}

// PossiblyIdentical is a loss with purchases of another instrument on the
// same underlying within 30 days of the sale: the nearest one (FillID,
// Date, DaysBetween) and how many there were.
type PossiblyIdentical struct {
	LossLot     string          `json:"lossLot"`
	Instrument  string          `json:"instrument"`
	Sold        string          `json:"sold"`
	Loss        decimal.Decimal `json:"loss"`
	Other       string          `json:"otherInstrument"`
	FillID      string          `json:"fillId"`
	Account     string          `json:"account"`
	Date        string          `json:"date"`
	DaysBetween int             `json:"daysBetween"`
	Purchases   int             `json:"purchases"`
}

// Section1256 is Form 6781's part I: the year's net gain on Section 1256
// contracts, split 60% long-term and 40% short-term whatever the holding.
type Section1256 struct {
	Lots      int             `json:"lots"`
	NetGain   decimal.Decimal `json:"netGain"`
	LongTerm  decimal.Decimal `json:"longTerm60"`
	ShortTerm decimal.Decimal `json:"shortTerm40"`
	Marked    []Marked        `json:"marked"`
}

// Marked is a Section 1256 contract open at the year end, treated as sold
// at Mark on Date; its basis for the next year is the mark.
type Marked struct {
	Instrument string          `json:"instrument"`
	Account    string          `json:"account"`
	Short      bool            `json:"short,omitempty"`
	Quantity   decimal.Decimal `json:"quantity"`
	Date       string          `json:"date"`
	Mark       decimal.Decimal `json:"mark"`
	Gain       decimal.Decimal `json:"gain"`
	Lot        string          `json:"lot"`
}

// Figures sum a set of lots.
type Figures struct {
	Lots        int             `json:"lots"`
	Proceeds    decimal.Decimal `json:"proceeds"`
	Basis       decimal.Decimal `json:"basis"`
	Adjustments decimal.Decimal `json:"adjustments"`
	Gain        decimal.Decimal `json:"gain"`
}

// ScheduleDLine is one line of US Schedule D part I or II.
type ScheduleDLine struct {
	Line  string `json:"line"` // "1a", "1b", "2", "3", "4", "8a", "8b", "9", "10", "11"
	Label string `json:"label"`
	Figures
}

// UKTotals are the figures of the capital gains pages (SA108).
type UKTotals struct {
	Disposals        int             `json:"disposals"`
	DisposalProceeds decimal.Decimal `json:"disposalProceeds"`
	AllowableCosts   decimal.Decimal `json:"allowableCosts"`
	Gains            decimal.Decimal `json:"gains"`  // the sum of the lots' gains
	Losses           decimal.Decimal `json:"losses"` // the sum of the lots' losses, as a positive number
	NetGain          decimal.Decimal `json:"netGain"`
}

// Totals sum the period's lots. All is every lot outside Section 1256;
// ShortTerm, LongTerm and ScheduleD are US only, UK only for the UK.
type Totals struct {
	All       Figures         `json:"all"`
	ShortTerm *Figures        `json:"shortTerm,omitempty"`
	LongTerm  *Figures        `json:"longTerm,omitempty"`
	ScheduleD []ScheduleDLine `json:"scheduleD,omitempty"`
	UK        *UKTotals       `json:"uk,omitempty"`
}

// The kinds of Missing.
const (
	MissingRate      = "rate"      // no exchange rate for Pair on Days
	MissingMark      = "mark"      // a 1256 contract open at a year end without a mark
	MissingUnmatched = "unmatched" // a disposal (a short) with no acquisition to match yet
)

// Missing is one named problem that stops a figure being right.
type Missing struct {
	Kind       string           `json:"kind"`
	Pair       string           `json:"pair,omitempty"`
	Days       []string         `json:"days,omitempty"`
	Instrument string           `json:"instrument,omitempty"`
	Account    string           `json:"account,omitempty"`
	Date       string           `json:"date,omitempty"`
	Quantity   *decimal.Decimal `json:"quantity,omitempty"`
	Message    string           `json:"message"`
}
