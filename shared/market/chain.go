package market

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
)

// Options chains come from Tradier's market data API (docs/market-data.md),
// two calls with the token as "Authorization: Bearer TOKEN" and "Accept:
// application/json" (without it the API answers XML):
//
//	GET {base}/markets/options/expirations?symbol=AAPL
//	  -> {"expirations": {"date": ["2024-06-21", ...]}}, {"expirations": null} for none
//	GET {base}/markets/options/chains?symbol=AAPL&expiration=2024-06-21&greeks=true
//	  -> {"options": {"option": [{symbol, option_type, strike, bid, ask, last,
//	     volume, open_interest, expiration_date, greeks: {delta, ..., mid_iv}}]}},
//	     {"options": null} for none
//
// A list of one element arrives as that element, not as an array of one
// (the API renders its XML as JSON), so both shapes are read. Neither call
// pages: a chain is every contract of one expiration, some hundreds for an
// index fund, so the body is bounded by maxChainBody. The limit is 120
// market-data calls a minute per token (60 in the sandbox); past it, 429.

// DefaultChainBaseURL is Tradier's production API root, used when
// TRADIER_BASE_URL is empty. A sandbox token needs
// https://sandbox.tradier.com/v1 (delayed data).
const DefaultChainBaseURL = "https://api.tradier.com/v1"

// Bounds of a chain: what one answer may weigh and hold, and how long the
// provider has for it (a whole chain takes longer than a quote).
const (
	maxChainBody      = 8 << 20
	maxChainContracts = 5000
	chainTimeout      = 10 * time.Second
)

// OptionChain is the contracts of one expiration of an underlying, by
// strike, calls before puts.
type OptionChain struct {
	Underlying string `json:"underlying"`
	Expiration string `json:"expiration"` // YYYY-MM-DD
	// Expirations are all the expirations listed for the underlying,
	// nearest first, so a caller can ask for another.
	Expirations []string         `json:"expirations"`
	Contracts   []OptionContract `json:"contracts"`
}

// OptionContract is one contract's delayed quote. A price the provider
// has none of (no bid, never traded) is nil.
type OptionContract struct {
	Symbol       string           `json:"symbol"` // OCC symbol
	Type         string           `json:"type"`   // call or put
	Strike       decimal.Decimal  `json:"strike"`
	Bid          *decimal.Decimal `json:"bid"`
	Ask          *decimal.Decimal `json:"ask"`
	Last         *decimal.Decimal `json:"last"`
	Volume       int64            `json:"volume"`
	OpenInterest int64            `json:"openInterest"`
	Greeks       *OptionGreeks    `json:"greeks,omitempty"`
}

// OptionGreeks are a contract's greeks and implied volatility (the
// provider's mid IV, a fraction), as the provider computes them (hourly).
type OptionGreeks struct {
	Delta decimal.Decimal  `json:"delta"`
	Gamma decimal.Decimal  `json:"gamma"`
	Theta decimal.Decimal  `json:"theta"`
	Vega  decimal.Decimal  `json:"vega"`
	IV    *decimal.Decimal `json:"iv"`
}

// Chains looks options chains up with the instance's Tradier token
// (TRADIER_API_KEY). Without one it is disabled: Chain answers the
// codeless 404 and no request is sent. Answers go through flights: cached
// for TTL (an error for ErrorTTL), one call for concurrent look-ups.
type Chains struct {
	flights
	httpSource
	baseURL string
	key     string
}

// NewChains returns the chain client of cfg.
func NewChains(cfg config.Market, client *http.Client, now func() time.Time, log *slog.Logger) *Chains {
	base := cfg.TradierURL
	if base == "" {
		base = DefaultChainBaseURL
	}
	src := newHTTPSource("Tradier", client, log, cfg.TradierKey)
	src.maxBody = maxChainBody
	c := &Chains{flights: newFlights(now), httpSource: src, baseURL: strings.TrimSuffix(base, "/"), key: cfg.TradierKey}
	c.Timeout = chainTimeout
	return c
}

// Enabled reports whether a token is configured.
func (c *Chains) Enabled() bool { return c.key != "" }

// ErrNoChain is a symbol without listed options.
var ErrNoChain = apperr.New(apperr.NotFound, "no options are listed for this symbol")

// Chain returns the chain of symbol (already valid: ValidSymbol) expiring
// on expiration (YYYY-MM-DD), or on the nearest listed expiration not
// before today in New York when expiration is "". An expiration that is
// not listed is a validation error of "expiration" naming the nearest
// ones; a symbol without options is ErrNoChain.
func (c *Chains) Chain(ctx context.Context, symbol, expiration string) (OptionChain, error) {
	if !c.Enabled() {
		return OptionChain{}, apperr.ErrNotFound
	}
	v, err := c.flights.get(ctx, "expirations "+symbol, errTimedOut(c.name), func(ctx context.Context) (any, error) { return c.fetchExpirations(ctx, symbol) })
	if err != nil {
		return OptionChain{}, err
	}
	dates, _ := v.([]string)
	if len(dates) == 0 {
		return OptionChain{}, ErrNoChain
	}
	if expiration == "" {
		expiration = nearestExpiration(dates, c.now())
	} else if !slices.Contains(dates, expiration) {
		return OptionChain{}, apperr.Invalid("expiration", fmt.Sprintf("has no %s options on %s; listed expirations include %s",
			symbol, expiration, strings.Join(dates[:min(len(dates), 6)], ", ")))
	}
	v, err = c.flights.get(ctx, "chain "+symbol+" "+expiration, errTimedOut(c.name), func(ctx context.Context) (any, error) {
		return c.fetchChain(ctx, symbol, expiration)
	})
	if err != nil {
		return OptionChain{}, err
	}
	contracts, _ := v.([]OptionContract)
	return OptionChain{Underlying: symbol, Expiration: expiration, Expirations: dates, Contracts: contracts}, nil
}

// nearestExpiration is the first of the sorted dates not before today in
// New York (where US options expire), or the last one when all are past.
func nearestExpiration(dates []string, now time.Time) string {
	today := now.In(newYork).Format(time.DateOnly)
	for _, d := range dates {
		if d >= today {
			return d
		}
	}
	return dates[len(dates)-1]
}

var newYork = func() *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		return time.UTC
	}
	return loc
}()

func (c *Chains) fetchExpirations(ctx context.Context, symbol string) ([]string, error) {
	body, err := c.call(ctx, "/markets/options/expirations?symbol="+url.QueryEscape(symbol))
	if err != nil {
		return nil, err
	}
	dates, err := parseExpirations(body)
	if err != nil {
		return nil, c.unusable(fmt.Errorf("%s: %w", symbol, err))
	}
	return dates, nil
}

func (c *Chains) fetchChain(ctx context.Context, symbol, expiration string) ([]OptionContract, error) {
	q := url.Values{"symbol": {symbol}, "expiration": {expiration}, "greeks": {"true"}}
	body, err := c.call(ctx, "/markets/options/chains?"+q.Encode())
	if err != nil {
		return nil, err
	}
	contracts, err := parseChain(body, expiration)
	if err != nil {
		return nil, c.unusable(fmt.Errorf("%s: %w", symbol, err))
	}
	return contracts, nil
}

// call sends GET {base}{path} with the token and returns the body of a
// 200; httpSource answers a refused token, the rate limit and a transport
// failure, and any other status is unusable.
func (c *Chains) call(ctx context.Context, path string) ([]byte, error) {
	status, body, err := c.httpSource.get(ctx, c.baseURL+path, http.Header{"Authorization": {"Bearer " + c.key}})
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, c.unusable(fmt.Errorf("status %d", status))
	}
	return body, nil
}

// oneOrMany reads a JSON array of T, or a single T standing for an array
// of one; null is none.
type oneOrMany[T any] []T

func (o *oneOrMany[T]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		return json.Unmarshal(data, (*[]T)(o))
	}
	if string(data) == "null" {
		*o = nil
		return nil
	}
	var one T
	if err := json.Unmarshal(data, &one); err != nil {
		return err
	}
	*o = oneOrMany[T]{one}
	return nil
}

// parseExpirations reads the expirations answer: dates, sorted.
func parseExpirations(body []byte) ([]string, error) {
	var a struct {
		Expirations *struct {
			Date oneOrMany[string] `json:"date"`
		} `json:"expirations"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, errors.New("the expirations are not the expected JSON object")
	}
	if a.Expirations == nil {
		return nil, nil
	}
	dates := []string(a.Expirations.Date)
	for _, d := range dates {
		if _, err := time.Parse(time.DateOnly, d); err != nil {
			return nil, fmt.Errorf("the expiration %q is not a date", clip(d))
		}
	}
	slices.Sort(dates)
	return slices.Compact(dates), nil
}

// tradierOption is the part of a chain's contract used. Numbers stay JSON
// numbers (never float64) until they are decimals.
type tradierOption struct {
	Symbol         string      `json:"symbol"`
	OptionType     string      `json:"option_type"`
	Strike         json.Number `json:"strike"`
	Bid            json.Number `json:"bid"`
	Ask            json.Number `json:"ask"`
	Last           json.Number `json:"last"`
	Volume         json.Number `json:"volume"`
	OpenInterest   json.Number `json:"open_interest"`
	ExpirationDate string      `json:"expiration_date"`
	Greeks         *struct {
		Delta json.Number `json:"delta"`
		Gamma json.Number `json:"gamma"`
		Theta json.Number `json:"theta"`
		Vega  json.Number `json:"vega"`
		MidIV json.Number `json:"mid_iv"`
	} `json:"greeks"`
}

// parseChain reads the chain answer of expiration: its contracts sorted by
// strike, calls first.
func parseChain(body []byte, expiration string) ([]OptionContract, error) {
	var a struct {
		Options *struct {
			Option oneOrMany[tradierOption] `json:"option"`
		} `json:"options"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, errors.New("the chain is not the expected JSON object")
	}
	if a.Options == nil {
		return []OptionContract{}, nil
	}
	if len(a.Options.Option) > maxChainContracts {
		return nil, fmt.Errorf("%d contracts", len(a.Options.Option))
	}
	out := make([]OptionContract, 0, len(a.Options.Option))
	for _, o := range a.Options.Option {
		c, err := o.contract(expiration)
		if err != nil {
			return nil, fmt.Errorf("contract %q: %w", clip(o.Symbol), err)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b OptionContract) int {
		return cmp.Or(a.Strike.Cmp(b.Strike), cmp.Compare(a.Type, b.Type))
	})
	return out, nil
}

func (o tradierOption) contract(expiration string) (OptionContract, error) {
	c := OptionContract{Symbol: o.Symbol, Type: o.OptionType}
	switch {
	case o.Symbol == "" || len(o.Symbol) > 32:
		return c, errors.New("no symbol")
	case o.OptionType != "call" && o.OptionType != "put":
		return c, errors.New("neither a call nor a put")
	case o.ExpirationDate != expiration:
		return c, errors.New("of another expiration")
	}
	var err error
	if c.Strike, err = decimal.NewFromString(o.Strike.String()); err != nil || !c.Strike.IsPositive() {
		return c, errors.New("the strike is not a positive number")
	}
	for _, p := range []struct {
		raw json.Number
		dst **decimal.Decimal
	}{{o.Bid, &c.Bid}, {o.Ask, &c.Ask}, {o.Last, &c.Last}} {
		if *p.dst, err = optionalPrice(p.raw); err != nil {
			return c, err
		}
	}
	if c.Volume, err = count(o.Volume); err != nil {
		return c, err
	}
	if c.OpenInterest, err = count(o.OpenInterest); err != nil {
		return c, err
	}
	if g := o.Greeks; g != nil {
		c.Greeks = &OptionGreeks{}
		for _, f := range []struct {
			raw json.Number
			dst *decimal.Decimal
		}{{g.Delta, &c.Greeks.Delta}, {g.Gamma, &c.Greeks.Gamma}, {g.Theta, &c.Greeks.Theta}, {g.Vega, &c.Greeks.Vega}} {
			if f.raw != "" {
				if *f.dst, err = decimal.NewFromString(f.raw.String()); err != nil {
					return c, errors.New("a greek is not a number")
				}
			}
		}
		if c.Greeks.IV, err = optionalPrice(g.MidIV); err != nil {
			return c, err
		}
	}
	return c, nil
}

// optionalPrice reads a price that may be absent: null and 0 are none, a
// negative one is refused.
func optionalPrice(raw json.Number) (*decimal.Decimal, error) {
	if raw == "" {
		return nil, nil
	}
	d, err := decimal.NewFromString(raw.String())
	switch {
	case err != nil:
		return nil, errors.New("a price is not a number")
	case d.IsNegative():
		return nil, errors.New("a price is negative")
	case d.IsZero():
		return nil, nil
	}
	return &d, nil
}

// count reads a whole number of contracts: null is 0.
func count(raw json.Number) (int64, error) {
	if raw == "" {
		return 0, nil
	}
	d, err := decimal.NewFromString(raw.String())
	if err != nil || d.IsNegative() || !d.Equal(d.Truncate(0)) {
		return 0, errors.New("a volume or open interest is not a whole number")
	}
	return d.IntPart(), nil
}
