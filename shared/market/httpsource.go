package market

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"

	"tradejournal/shared/apperr"
)

// refusal is a provider's refusal to serve this instance at all for now
// (its rate limit, a refused key): the client sees the *apperr.Error it
// wraps; Refused tells a job to stop asking.
type refusal struct{ e *apperr.Error }

func (r refusal) Error() string { return r.e.Error() }
func (r refusal) Unwrap() error { return r.e }

// Refused reports whether err is a provider's refusal of every look-up
// for now (a rate limit, a bad key), rather than a failure of one.
func Refused(err error) bool {
	var r refusal
	return errors.As(err, &r)
}

// The errors of a provider, in the trader's words.
func errKeyRefused(name string) error {
	return refusal{apperr.New(apperr.BadGateway, "%s refused this instance's market-data key, so it sends no data; the administrator should check the key (docs/market-data.md)", name)}
}

func errRateLimited(name string, retryAfter int) error {
	e := apperr.New(apperr.BadGateway, "%s's request limit for this instance is used up for now; try again in a minute", name)
	e.RetryAfterSeconds = retryAfter
	return refusal{e}
}

// errBeyondPlan is a symbol the provider's plan for this instance does
// not cover: no bars from it (the job marks the position measured
// without them), not a refusal of every look-up.
func errBeyondPlan(name string) error {
	return &apperr.Error{Code: apperr.NotFound, Message: fmt.Sprintf("%s's plan for this instance does not cover this symbol, so it has no bars of it: upload a bars file (CSV) exported from your platform, or ask the administrator about the plan", name)}
}

func errUnusable(name string) error {
	return apperr.New(apperr.BadGateway, "%s did not answer usably; try again shortly", name)
}

func errTimedOut(name string) error {
	return apperr.New(apperr.GatewayTimeout, "%s did not answer in time; try again shortly", name)
}

// httpSource is the one HTTP path of every market-data provider (the bar
// providers, and Finnhub's quotes): the client, the name their errors
// carry, and the secrets masked in a log line.
type httpSource struct {
	name    string
	client  *http.Client
	log     *slog.Logger
	secrets []string
	// planForbids: a 403 is a symbol beyond the key's plan (Twelve
	// Data's), not a refused key, and is the caller's to read.
	planForbids bool
	// maxBody bounds an answer; 0 is maxQuoteBody.
	maxBody int
}

// newHTTPSource is the provider name's HTTP path through client (nil:
// the default), logging to log (nil: nowhere), masking secrets.
func newHTTPSource(name string, client *http.Client, log *slog.Logger, secrets ...string) httpSource {
	if client == nil {
		client = http.DefaultClient
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return httpSource{name: name, client: client, log: log, secrets: secrets}
}

func (h httpSource) Name() string { return h.name }

// get sends GET u with header and returns the status and body (at most
// maxQuoteBody). A status of 401 or 403 (unless planForbids) is errKeyRefused, 429 (and
// Binance's ban, 418) errRateLimited, a transport failure errUnusable or
// errTimedOut; any other status is the caller's to read.
func (h httpSource) get(ctx context.Context, u string, header http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		h.fail("building the request failed", err)
		return 0, nil, errUnusable(h.name)
	}
	maps.Copy(req.Header, header)
	req.Header.Set("Accept", "application/json")
	res, err := h.client.Do(req)
	if err != nil {
		return 0, nil, h.transportError(ctx, err)
	}
	defer res.Body.Close()
	limit := cmp.Or(h.maxBody, maxQuoteBody)
	body, err := io.ReadAll(io.LimitReader(res.Body, int64(limit)+1))
	if err != nil {
		return 0, nil, h.transportError(ctx, err)
	}
	switch res.StatusCode {
	case http.StatusForbidden:
		if h.planForbids {
			break
		}
		fallthrough
	case http.StatusUnauthorized:
		h.log.Warn("market-data provider refused the key", "provider", h.name, "status", res.StatusCode)
		return 0, nil, errKeyRefused(h.name)
	case http.StatusTooManyRequests, http.StatusTeapot:
		h.log.Warn("market-data provider's rate limit reached", "provider", h.name, "status", res.StatusCode)
		retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		return 0, nil, errRateLimited(h.name, max(retry, 60))
	}
	if len(body) > limit {
		h.fail("answer too large", fmt.Errorf("over %d bytes", limit))
		return 0, nil, errUnusable(h.name)
	}
	return res.StatusCode, body, nil
}

func (h httpSource) transportError(ctx context.Context, err error) error {
	var ne net.Error
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		h.log.Warn("market-data provider did not answer in time", "provider", h.name)
		return errTimedOut(h.name)
	}
	h.fail("market-data provider not reachable", err)
	return errUnusable(h.name)
}

// fail logs a provider failure with every secret masked.
func (h httpSource) fail(msg string, err error) {
	text := err.Error()
	for _, s := range h.secrets {
		if s != "" {
			text = strings.ReplaceAll(text, s, "[redacted]")
		}
	}
	h.log.Warn(msg, "provider", h.name, "err", text)
}

// unusable logs why an answer was refused and returns errUnusable.
func (h httpSource) unusable(err error) error {
	h.fail("market-data provider answered unusably", err)
	return errUnusable(h.name)
}
