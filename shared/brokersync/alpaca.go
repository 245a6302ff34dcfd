package brokersync

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"tradejournal/shared/brokerfile"
)

// alpaca is Alpaca's Trading API: the account's FILL activities
// (GET /v2/account/activities/FILL), authenticated by the APCA-API-KEY-ID
// and APCA-API-SECRET-KEY headers, oldest first from `after`, paged by
// page_token (the last activity's id) until a page comes back short.
type alpaca struct {
	base   string // ALPACA_API_BASE_URL
	client *http.Client
}

// alpacaPage is the page size asked for (Alpaca's maximum).
const alpacaPage = 100

// alpacaRateWait is the next try after a 429 that names no reset time.
const alpacaRateWait = time.Minute

// alpacaFill is a FILL activity, the fields a fill needs.
type alpacaFill struct {
	ID              string `json:"id"`
	ActivityType    string `json:"activity_type"`
	TransactionTime string `json:"transaction_time"`
	Symbol          string `json:"symbol"`
	Side            string `json:"side"`
	Qty             string `json:"qty"`
	Price           string `json:"price"`
	OrderID         string `json:"order_id"`
}

// alpacaOCC is an option's symbol as Alpaca writes it: OCC without padding.
var alpacaOCC = regexp.MustCompile(`^[A-Z]{1,6}\d{6}[CP]\d{8}$`)

func (s *alpaca) check(ctx context.Context, c Credentials) error {
	_, err := s.call(ctx, c, "/v2/account", time.Now())
	return err
}

func (s *alpaca) fetch(ctx context.Context, req request) ([]execution, error) {
	var (
		rows [][]string
		ids  []string
	)
	q := url.Values{"direction": {"asc"}, "page_size": {strconv.Itoa(alpacaPage)}}
	if req.Since != nil {
		q.Set("after", req.Since.UTC().Format(time.RFC3339))
	}
	for {
		body, err := s.call(ctx, req.Credentials, "/v2/account/activities/FILL?"+q.Encode(), req.Now)
		if err != nil {
			return nil, err
		}
		pageRows, pageIDs, n, last, err := readAlpacaPage(body)
		if err != nil {
			return nil, err
		}
		rows, ids = append(rows, pageRows...), append(ids, pageIDs...)
		if n < alpacaPage {
			break
		}
		if last == "" || last == q.Get("page_token") {
			return nil, unreadable("Alpaca", "a full page of activities without a new last id to page from")
		}
		q.Set("page_token", last)
	}
	return readRows(alpacaOptions, alpacaHeader, rows, ids, req.Zone, req.Now, "Alpaca's activities")
}

// alpacaHeader and alpacaOptions are the CSV an activities page becomes
// and the import mapping that reads it.
var (
	alpacaHeader  = []string{"transaction_time", "symbol", "asset_type", "side", "qty", "price"}
	alpacaOptions = brokerfile.Options{Timezone: "UTC", Mapping: &brokerfile.Mapping{Columns: map[string]brokerfile.Column{
		brokerfile.FieldDate: {Name: "transaction_time"}, brokerfile.FieldSymbol: {Name: "symbol"},
		brokerfile.FieldAssetType: {Name: "asset_type"}, brokerfile.FieldSide: {Name: "side"},
		brokerfile.FieldQuantity: {Name: "qty"}, brokerfile.FieldPrice: {Name: "price"},
	}}}
)

// readAlpacaPage reads one page of activities: its FILL activities as
// rows under alpacaHeader with their ids, how many activities the page
// held, and the last one's id (the next page_token). The asset type is
// told by the symbol: a pair is crypto, an OCC symbol an option, anything
// else a stock.
func readAlpacaPage(body []byte) (rows [][]string, ids []string, n int, last string, err error) {
	var page []alpacaFill
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, nil, 0, "", unreadable("Alpaca", "the activities are not a JSON list")
	}
	if len(page) > 0 {
		last = page[len(page)-1].ID
	}
	for _, a := range page {
		if a.ActivityType != "" && a.ActivityType != "FILL" {
			continue
		}
		ids = append(ids, a.ID)
		asset := "stock"
		switch {
		case strings.Contains(a.Symbol, "/"):
			asset = "crypto"
		case alpacaOCC.MatchString(a.Symbol):
			asset = "option"
		}
		rows = append(rows, []string{a.TransactionTime, a.Symbol, asset, a.Side, a.Qty, a.Price})
	}
	return rows, ids, len(page), last, nil
}

// call GETs path with the key headers and answers the body, or the
// *Failure of Alpaca's answer.
func (s *alpaca) call(ctx context.Context, c Credentials, path string, now time.Time) ([]byte, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return nil, unreadable("Alpaca", "ALPACA_API_BASE_URL is not a URL")
	}
	r.Header.Set("APCA-API-KEY-ID", c.KeyID)
	r.Header.Set("APCA-API-SECRET-KEY", c.Secret)
	res, err := s.client.Do(r)
	if err != nil {
		return nil, unavailable("Alpaca", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxStatementBytes))
	if err != nil {
		return nil, unavailable("Alpaca", err)
	}
	var e struct {
		Message string `json:"message"`
	}
	_ = json.Unmarshal(body, &e)
	words := e.Message
	if words == "" {
		words = fmt.Sprintf("HTTP status %d", res.StatusCode)
	}
	switch {
	case res.StatusCode == http.StatusOK:
		return body, nil
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		return nil, &Failure{Code: CodeCredentialsRejected, Message: "Alpaca refused the key: " + words}
	case res.StatusCode == http.StatusTooManyRequests:
		return nil, rateLimited(now, retryAfter(res.Header, now, alpacaRateWait), "Alpaca's rate limit: "+words)
	case res.StatusCode >= 500:
		return nil, unavailable("Alpaca", fmt.Errorf("%s", words))
	}
	return nil, unreadable("Alpaca", words)
}

// retryAfter reads how long a 429 asks to wait: Retry-After (seconds), or
// X-RateLimit-Reset (the Unix second the limit resets), or def.
func retryAfter(h http.Header, now time.Time, def time.Duration) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if s, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
		if d := time.Unix(s, 0).Sub(now); d > 0 {
			return d
		}
	}
	return def
}
