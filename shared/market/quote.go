package market

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
)

// DefaultQuoteBaseURL is the quote provider's public API (Finnhub), used
// when STOCK_QUOTE_BASE_URL is unset. STOCK_QUOTE_BASE_URL exists so tests
// can point the client at a local stand-in; leave it unset in production.
const DefaultQuoteBaseURL = "https://finnhub.io/api/v1"

// Quote lookup defaults.
const (
	DefaultQuoteTimeout  = 3 * time.Second
	DefaultQuoteTTL      = 60 * time.Second
	DefaultQuoteErrorTTL = 5 * time.Second
	maxQuoteBody         = 1 << 20
)

// Quote is a delayed last price.
type Quote struct {
	Symbol   string          `json:"symbol"`
	Price    decimal.Decimal `json:"price"` // a decimal string
	Currency string          `json:"currency"`
	AsOf     time.Time       `json:"asOf"`
	Delayed  bool            `json:"delayed"`
}

// The errors a lookup answers. Gateway errors are written without a code;
// the provider's own words never reach the client.
var (
	ErrQuoteUnavailable = apperr.New(apperr.BadGateway, "the quote provider did not answer usably; try again shortly")
	ErrQuoteTimeout     = apperr.New(apperr.GatewayTimeout, "the quote provider did not answer in time, so no price can be shown now; try again in a minute, and tell the administrator if it keeps happening")
	ErrNoQuote          = &apperr.Error{Code: apperr.NotFound, Message: "no quote for this symbol"}
)

// Quotes looks up delayed prices from the provider with the platform-global
// key (STOCK_QUOTE_API_KEY). Without a key it is disabled: Get answers the
// codeless 404 and no request is ever sent.
//
// Each symbol's answer is cached for TTL (an error for ErrorTTL), and
// concurrent lookups of one symbol share one provider call, so a burst of
// users costs one call. A call is bounded by Timeout (504 past it) and runs
// detached from the request that started it, so one caller leaving does not
// fail the others waiting on it.
//
// The provider is Finnhub: GET {base}/quote?symbol=X with the key in the
// X-Finnhub-Token header (never in the URL, so it cannot reach a log through
// an error message), answering {"c": last, "t": unix seconds, ...}. Its free
// tier covers US listings, so the currency is USD. {"c":0,"t":0} means the
// provider has no data for the symbol: 404.
type Quotes struct {
	flights
	api finnhub
}

// NewQuotes returns the quote client of cfg.
func NewQuotes(cfg config.Market, client *http.Client, now func() time.Time, log *slog.Logger) *Quotes {
	return &Quotes{flights: newFlights(now), api: newFinnhub(cfg, client, log)}
}

// Enabled reports whether a key is configured.
func (q *Quotes) Enabled() bool { return q.api.key() != "" }

// finnhub is Finnhub's API with the instance's key (STOCK_QUOTE_API_KEY,
// at STOCK_QUOTE_BASE_URL): the quotes' provider, and a bar provider.
type finnhub struct {
	httpSource
	base string
}

func newFinnhub(cfg config.Market, client *http.Client, log *slog.Logger) finnhub {
	base := cfg.QuoteBaseURL
	if base == "" {
		base = DefaultQuoteBaseURL
	}
	return finnhub{httpSource: newHTTPSource("Finnhub", client, log, cfg.QuoteAPIKey), base: strings.TrimSuffix(base, "/")}
}

func (f finnhub) key() string { return f.secrets[0] }

// call sends GET {base}{path} with the key in the X-Finnhub-Token header
// (never in the URL, so it cannot reach a log through an error message):
// httpSource.get.
func (f finnhub) call(ctx context.Context, path string) (int, []byte, error) {
	return f.get(ctx, f.base+path, http.Header{"X-Finnhub-Token": {f.key()}})
}

// Bars are Finnhub's candles: GET {base}/stock/candle?symbol=&resolution=&from=&to=
// (unix seconds), answering {"s":"ok"|"no_data","t":[],"o":[],"h":[],"l":[],"c":[],"v":[]}.
// Its free plan no longer serves candles; a paid key does.
func (f finnhub) Bars(ctx context.Context, _ string, symbol string, w Window) ([]Bar, error) {
	from, to := strconv.FormatInt(w.From.Unix(), 10), strconv.FormatInt(w.To.Unix(), 10)
	status, body, err := f.call(ctx, "/stock/candle?symbol="+url.QueryEscape(symbol)+"&resolution="+w.Resolution.Code+"&from="+from+"&to="+to)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, f.unusable(fmt.Errorf("status %d", status))
	}
	bars, err := parseBars(body)
	if err != nil {
		return nil, f.unusable(err)
	}
	return bars, nil
}

// Get returns the delayed quote of symbol, which must already be valid
// (ValidSymbol). Errors are *apperr.Error values: 404 (disabled, or no data),
// 502 (the provider failed or answered nonsense), 504 (no answer within
// Timeout, or the caller's own deadline passed).
func (q *Quotes) Get(ctx context.Context, symbol string) (Quote, error) {
	v, err := q.lookup(ctx, symbol, func(ctx context.Context) (any, error) { return q.fetch(ctx, symbol) })
	quote, _ := v.(Quote)
	return quote, err
}

// lookup answers the cached or shared answer of key (flights.get), or
// the codeless 404 when no key is configured.
func (q *Quotes) lookup(ctx context.Context, key string, fetch func(context.Context) (any, error)) (any, error) {
	if !q.Enabled() {
		return nil, apperr.ErrNotFound
	}
	return q.get(ctx, key, ErrQuoteTimeout, fetch)
}

// providerQuote is the part of the provider's answer used. Numbers stay raw
// JSON, read as json.Number into a decimal, so a price never passes through
// float64.
type providerQuote struct {
	C json.RawMessage `json:"c"`
	T json.RawMessage `json:"t"`
}

// number returns raw as a JSON number, refusing null, strings and anything
// else that is not one.
func number(raw json.RawMessage) (json.Number, bool) {
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return "", false
	}
	var n json.Number
	return n, json.Unmarshal(raw, &n) == nil && n != ""
}

func (q *Quotes) fetch(ctx context.Context, symbol string) (Quote, error) {
	status, body, err := q.api.call(ctx, "/quote?symbol="+url.QueryEscape(symbol))
	switch {
	case err != nil:
		// A refused key or a used-up limit, logged by the call, is a
		// failed look-up in the quote's words.
		if e, ok := apperr.As(err); ok && e.Code == apperr.GatewayTimeout {
			return Quote{}, ErrQuoteTimeout
		}
		return Quote{}, ErrQuoteUnavailable
	case status != http.StatusOK:
		q.api.fail("quote provider refused the lookup", fmt.Errorf("status %d", status))
		return Quote{}, ErrQuoteUnavailable
	}
	quote, err := parseQuote(symbol, body)
	if err != nil && !errors.Is(err, ErrNoQuote) {
		q.api.fail("quote provider answered something unusable", err)
		return Quote{}, ErrQuoteUnavailable
	}
	return quote, err
}

// parseQuote reads the provider's body.
func parseQuote(symbol string, body []byte) (Quote, error) {
	var p providerQuote
	if err := json.Unmarshal(body, &p); err != nil {
		return Quote{}, errors.New("answer is not the expected JSON object")
	}
	c, okC := number(p.C)
	t, okT := number(p.T)
	if !okC || !okT {
		return Quote{}, errors.New("answer lacks c or t as a number")
	}
	price, err := decimal.NewFromString(c.String())
	if err != nil {
		return Quote{}, errors.New("c is not a number")
	}
	unix, err := strconv.ParseInt(t.String(), 10, 64)
	if err != nil {
		return Quote{}, errors.New("t is not whole seconds")
	}
	switch {
	case price.IsZero() && unix == 0:
		return Quote{}, ErrNoQuote
	case !price.IsPositive():
		return Quote{}, fmt.Errorf("c is %s", price)
	case unix <= 0 || unix > 1<<40:
		return Quote{}, fmt.Errorf("t is %d", unix)
	}
	return Quote{Symbol: symbol, Price: price, Currency: "USD", AsOf: time.Unix(unix, 0).UTC(), Delayed: true}, nil
}

// ValidSymbol uppercases s and reports whether it is a ticker the quote
// route accepts: 1 to 10 of A-Z, 0-9, '.' and '-'.
func ValidSymbol(s string) (string, bool) {
	u := strings.ToUpper(s)
	return u, tickerShape.MatchString(u)
}
