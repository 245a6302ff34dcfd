package journal

import (
	"math"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/instrument"
)

// The standalone option tools of the options route group: an OCC symbol
// read into its parts or written from them, and one option's
// Black–Scholes–Merton value and Greeks.

// OCCOutput is an option contract: its canonical 21-character OCC symbol
// and the parts it spells.
type OCCOutput struct {
	Symbol     string `json:"symbol"`
	Underlying string `json:"underlying"`
	Expiry     string `json:"expiry"` // YYYY-MM-DD
	Right      string `json:"right"`  // call or put
	Strike     string `json:"strike"`
}

// NewOCCOutput describes an option.
func NewOCCOutput(o instrument.Option) OCCOutput {
	return OCCOutput{Symbol: o.Symbol(), Underlying: o.Underlying, Expiry: o.Expiry.Format(time.DateOnly), Right: rightName(o.Right), Strike: o.Strike.String()}
}

// rightName is the API's word for a right: call for "C", put for "P".
func rightName(right string) string {
	if right == "P" {
		return "put"
	}
	return "call"
}

// occStrikeRule is what an OCC symbol's eight strike digits hold: above 0,
// at most 99999.999, in thousandths.
var occStrikeRule = DecimalRule{MinOpen: true, Max: decimal.RequireFromString("99999.999"), Places: 3,
	Message: "must be greater than 0 and at most 99999.999 (an OCC symbol's strike)"}

// ParseRight reads an option's right as the API takes it: call or put (or
// C or P), any case; "" when it is neither.
func ParseRight(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "call", "c":
		return "C"
	case "put", "p":
		return "P"
	}
	return ""
}

// EncodeOCC checks an option given by its parts (the query of GET
// /api/options/occ/encode) and returns it, or a VALIDATION_ERROR naming
// every bad field. The root's shape is ParseOCC's (1 to 6 letters or
// digits, a letter first), so a symbol written here always reads back.
func EncodeOCC(underlying, expiry, right string, strike Field) (instrument.Option, error) {
	var p Problems
	o := instrument.Option{Underlying: strings.ToUpper(strings.TrimSpace(underlying)), Right: ParseRight(right)}
	if o.Underlying == "" {
		p.Add("underlying", "is required")
	} else if len(o.Underlying) > 6 {
		p.Add("underlying", "must be an option root of 1 to 6 letters or digits, such as AAPL")
	}
	switch t, err := ParseDate(expiry); {
	case expiry == "":
		p.Add("expiry", "is required")
	case err != nil:
		p.Add("expiry", "must be a date like 2024-01-19")
	case t.Year() < 2000 || t.Year() > 2099:
		p.Add("expiry", "must be in the years 2000 to 2099 (an OCC symbol has two digits for the year)")
	default:
		o.Expiry = t
	}
	if o.Right == "" {
		p.Add("right", "must be call or put")
	}
	o.Strike, _ = p.RequiredDecimal("strike", strike, occStrikeRule)
	if err := p.Err(); err != nil {
		return instrument.Option{}, err
	}
	if _, err := instrument.ParseOCC(o.Symbol()); err != nil {
		p.Add("underlying", "must be an option root of 1 to 6 letters or digits starting with a letter, such as AAPL")
		return instrument.Option{}, p.Err()
	}
	return o, nil
}

// BlackScholesInput is the body of POST /api/options/black-scholes.
// Volatility, rate and dividend yield are percents a year (20 for 20%).
// The time to expiry is given as years or as an expiry date, not both.
type BlackScholesInput struct {
	UnderlyingPrice Field  `json:"underlyingPrice"`
	Strike          Field  `json:"strike"`
	Years           Field  `json:"years"`
	Expiry          string `json:"expiry"`
	Volatility      Field  `json:"volatility"`
	Rate            Field  `json:"rate"`
	DividendYield   Field  `json:"dividendYield"`
	Right           string `json:"right"`
}

// Bounds of the model's inputs beyond the journal's price and volatility
// rules: up to 30 years (LEAPS run 3), a dividend yield of 0 to 50%.
var (
	yearsRule    = DecimalRule{MinOpen: true, Max: decimal.NewFromInt(30), Places: 8, Message: "must be greater than 0 and at most 30"}
	dividendRule = DecimalRule{Max: decimal.NewFromInt(50), Places: 4, Message: "must be at least 0 and at most 50 (percent a year)"}
)

// BlackScholesOutput is the model's answer, decimals as strings rounded to
// 6 places: the value per share, delta, gamma, theta per calendar day, vega
// per volatility point and rho per rate point; Years is the time to expiry
// the model used.
type BlackScholesOutput struct {
	Right string `json:"right"`
	Years string `json:"years"`
	Price string `json:"price"`
	Delta string `json:"delta"`
	Gamma string `json:"gamma"`
	Theta string `json:"theta"`
	Vega  string `json:"vega"`
	Rho   string `json:"rho"`
}

// greekPlaces is the rounding of the model's figures: finer than any quote,
// and the model is an estimate.
const greekPlaces = 6

// PriceBlackScholes checks a request and answers it, or returns a
// VALIDATION_ERROR naming every bad field. An expiry date counts whole
// days from today (now's UTC date) over 365 and must be after today. The
// rate defaults to DefaultRatePercent, the dividend yield to 0.
func PriceBlackScholes(in BlackScholesInput, now time.Time) (BlackScholesOutput, error) {
	var p Problems
	s, _ := p.RequiredDecimal("underlyingPrice", in.UnderlyingPrice, PriceRule)
	k, _ := p.RequiredDecimal("strike", in.Strike, PriceRule)
	sigma, _ := p.RequiredDecimal("volatility", in.Volatility, VolatilityRule)
	rate := decimal.NewFromInt(DefaultRatePercent)
	if r, ok := p.Decimal("rate", in.Rate, RateRule); ok {
		rate = r
	}
	q, _ := p.Decimal("dividendYield", in.DividendYield, dividendRule)
	right := ParseRight(in.Right)
	if right == "" {
		p.Add("right", "must be call or put")
	}
	var years float64
	switch {
	case !in.Years.Blank() && in.Expiry != "":
		p.Add("years", "give the years to expiry or the expiry date, not both")
	case in.Expiry != "":
		today := now.UTC().Truncate(24 * time.Hour)
		switch t, err := ParseDate(in.Expiry); {
		case err != nil:
			p.Add("expiry", "must be a date like 2024-01-19")
		case !t.After(today) || t.Sub(today) > 30*365*24*time.Hour:
			p.Add("expiry", "must be after today and at most 30 years away")
		default:
			years = t.Sub(today).Hours() / 24 / 365
		}
	default:
		y, _ := p.RequiredDecimal("years", in.Years, yearsRule)
		years = y.InexactFloat64()
	}
	if err := p.Err(); err != nil {
		return BlackScholesOutput{}, err
	}
	g := BlackScholesMerton(right, s.InexactFloat64(), k.InexactFloat64(), years,
		rate.InexactFloat64()/100, q.InexactFloat64()/100, sigma.InexactFloat64()/100)
	out := BlackScholesOutput{Right: rightName(right), Years: modelFigure(years)}
	for _, f := range []struct {
		dst *string
		v   float64
	}{{&out.Price, g.Price}, {&out.Delta, g.Delta}, {&out.Gamma, g.Gamma}, {&out.Theta, g.Theta}, {&out.Vega, g.Vega}, {&out.Rho, g.Rho}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return BlackScholesOutput{}, errModelRange
		}
		*f.dst = modelFigure(f.v)
	}
	return out, nil
}

// modelFigure writes a model figure as a decimal string of greekPlaces places.
func modelFigure(v float64) string {
	return decimal.NewFromFloat(v).Round(greekPlaces).StringFixed(greekPlaces)
}
