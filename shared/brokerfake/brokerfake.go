// Package brokerfake is the brokers' APIs as local HTTP servers for tests
// (the brokers are on the public internet): Interactive Brokers' Flex Web
// Service, Alpaca's account activities and Kraken's private trade history,
// each following its published protocol (authentication, paging, the
// error and throttling answers), reached through the base URL a test
// configures (IBKR_FLEX_BASE_URL, ALPACA_API_BASE_URL, KRAKEN_API_BASE_URL).
package brokerfake

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Flex is the Flex Web Service: GET /SendRequest?t=&q=&v=3 and
// GET /GetStatement?t=&q=&v=3.
type Flex struct {
	mu sync.Mutex
	// Token and QueryID are the credentials it accepts.
	Token, QueryID string
	// Statement is the FlexQueryResponse GetStatement answers once ready.
	Statement string
	// InProgress is how many GetStatement calls of a reference answer 1019
	// (statement generation in progress) before the statement.
	InProgress int
	// SendError, when set, is the ErrorCode SendRequest answers (1012
	// token expired, 1014 query invalid, 1018 too many requests, ...).
	SendError string
	// Hold, when set, is waited on by GetStatement before it answers (a
	// sync caught in the middle).
	Hold chan struct{}
	// Calls counts the requests per endpoint.
	Calls map[string]int
	// Versions are the v parameters received.
	Versions []string
	refs     map[string]int
	next     int
}

// Count is how many requests reached path.
func (f *Flex) Count(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Calls[path]
}

// Set changes the fake under its lock (a test's move between syncs).
func (f *Flex) Set(change func(f *Flex)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

var flexWords = map[string]string{
	"1012": "Token has expired.",
	"1014": "Query is invalid.",
	"1015": "Token is invalid.",
	"1018": "Too many requests have been made from this token. Please try again shortly.",
	"1019": "Statement generation in progress. Please try again shortly.",
	"1020": "Invalid request or unable to validate request.",
}

func flexFail(w http.ResponseWriter, status, code string) {
	w.Header().Set("Content-Type", "text/xml")
	fmt.Fprintf(w, `<FlexStatementResponse timestamp="29 November, 2026 10:37 AM EST"><Status>%s</Status><ErrorCode>%s</ErrorCode><ErrorMessage>%s</ErrorMessage></FlexStatementResponse>`,
		status, code, flexWords[code])
}

func (f *Flex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f.mu.Lock()
	if f.Calls == nil {
		f.Calls, f.refs = map[string]int{}, map[string]int{}
	}
	f.Calls[r.URL.Path]++
	f.Versions = append(f.Versions, q.Get("v"))
	hold := f.Hold
	f.mu.Unlock()
	switch r.URL.Path {
	case "/SendRequest":
		f.mu.Lock()
		defer f.mu.Unlock()
		switch {
		case f.SendError != "":
			flexFail(w, "Fail", f.SendError)
		case q.Get("t") != f.Token:
			flexFail(w, "Fail", "1015")
		case q.Get("q") != f.QueryID:
			flexFail(w, "Fail", "1014")
		default:
			f.next++
			ref := strconv.Itoa(1000000000 + f.next)
			f.refs[ref] = 0
			w.Header().Set("Content-Type", "text/xml")
			fmt.Fprintf(w, `<FlexStatementResponse timestamp="29 November, 2026 10:37 AM EST"><Status>Success</Status><ReferenceCode>%s</ReferenceCode><Url>https://gdcdyn.interactivebrokers.com/AccountManagement/FlexWebService/GetStatement</Url></FlexStatementResponse>`, ref)
		}
	case "/GetStatement":
		if hold != nil {
			<-hold
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		n, ok := f.refs[q.Get("q")]
		switch {
		case q.Get("t") != f.Token:
			flexFail(w, "Fail", "1015")
		case !ok:
			flexFail(w, "Fail", "1020")
		case n < f.InProgress:
			f.refs[q.Get("q")] = n + 1
			flexFail(w, "Warn", "1019")
		default:
			w.Header().Set("Content-Type", "text/xml")
			_, _ = io.WriteString(w, f.Statement)
		}
	default:
		http.NotFound(w, r)
	}
}

// FlexTrade is one Trade element of a statement.
type FlexTrade struct {
	ExecID, Symbol, Asset, BuySell, OpenClose, DateTime, Quantity, Price, Commission string
}

// FlexStatement is an Activity Flex Query's XML with the trades of one account.
func FlexStatement(account string, trades ...FlexTrade) string {
	s := `<FlexQueryResponse queryName="journal" type="AF"><FlexStatements count="1"><FlexStatement accountId="` + account +
		`" fromDate="20240101" toDate="20240131" period="LastMonth" whenGenerated="20240201;020000"><Trades>`
	for _, t := range trades {
		s += fmt.Sprintf(`<Trade accountId=%q currency="USD" assetCategory=%q symbol=%q description="" conid="1" multiplier="1" tradeID="T%s" ibExecID=%q dateTime=%q tradeDate=%q quantity=%q tradePrice=%q ibCommission=%q taxes="0" openCloseIndicator=%q buySell=%q levelOfDetail="EXECUTION" ibOrderID="O%s" />`,
			account, t.Asset, t.Symbol, t.ExecID, t.ExecID, t.DateTime, t.DateTime[:8], t.Quantity, t.Price, t.Commission, t.OpenClose, t.BuySell, t.ExecID)
	}
	return s + `</Trades></FlexStatement></FlexStatements></FlexQueryResponse>`
}

// Alpaca is the Trading API's GET /v2/account and
// GET /v2/account/activities/FILL (direction, after, page_size,
// page_token).
type Alpaca struct {
	mu            sync.Mutex
	KeyID, Secret string
	// Fills are the account's FILL activities, oldest first.
	Fills []AlpacaFill
	// RateLimitAt, when positive, is the activities call (1-based) that
	// answers 429 instead; RateLimitAt stays until cleared.
	RateLimitAt int
	// Clock tells the rate limit's reset time (nil: time.Now).
	Clock func() time.Time
	Calls int
	// Queries are the activities calls' query strings.
	Queries []url.Values
}

// AlpacaFill is a FILL activity.
type AlpacaFill struct {
	ID              string `json:"id"`
	ActivityType    string `json:"activity_type"`
	TransactionTime string `json:"transaction_time"`
	Type            string `json:"type"`
	Price           string `json:"price"`
	Qty             string `json:"qty"`
	Side            string `json:"side"`
	Symbol          string `json:"symbol"`
	LeavesQty       string `json:"leaves_qty"`
	OrderID         string `json:"order_id"`
	CumQty          string `json:"cum_qty"`
	OrderStatus     string `json:"order_status"`
}

// Set changes the fake under its lock.
func (a *Alpaca) Set(change func(a *Alpaca)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	change(a)
}

func (a *Alpaca) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("APCA-API-KEY-ID") != a.KeyID || r.Header.Get("APCA-API-SECRET-KEY") != a.Secret {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"code":40110000,"message":"request is not authorized"}`)
		return
	}
	switch r.URL.Path {
	case "/v2/account":
		_, _ = io.WriteString(w, `{"id":"acc","status":"ACTIVE","currency":"USD"}`)
	case "/v2/account/activities/FILL":
		a.Calls++
		q := r.URL.Query()
		a.Queries = append(a.Queries, q)
		if a.RateLimitAt > 0 && a.Calls >= a.RateLimitAt {
			now := time.Now
			if a.Clock != nil {
				now = a.Clock
			}
			w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(now().Add(90*time.Second).Unix(), 10))
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"code":42910000,"message":"rate limit exceeded"}`)
			return
		}
		size, err := strconv.Atoi(q.Get("page_size"))
		if err != nil || size < 1 || size > 100 {
			size = 100
		}
		var after time.Time
		if s := q.Get("after"); s != "" {
			if after, err = time.Parse(time.RFC3339, s); err != nil {
				w.WriteHeader(http.StatusUnprocessableEntity)
				_, _ = io.WriteString(w, `{"code":42210000,"message":"invalid after"}`)
				return
			}
		}
		page := []AlpacaFill{}
		started := q.Get("page_token") == ""
		for _, f := range a.Fills {
			if !started {
				started = f.ID == q.Get("page_token")
				continue
			}
			at, _ := time.Parse(time.RFC3339Nano, f.TransactionTime)
			if !after.IsZero() && !at.After(after) {
				continue
			}
			if len(page) == size {
				break
			}
			page = append(page, f)
		}
		_ = json.NewEncoder(w).Encode(page)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"code":40410000,"message":"endpoint not found"}`)
	}
}

// Kraken is the REST API's POST /0/private/TradesHistory: API-Key and
// API-Sign checked, the nonce required to increase, `start` (exclusive) and
// `ofs` read, 50 trades a page, newest first.
type Kraken struct {
	mu     sync.Mutex
	APIKey string
	Secret []byte // the private key, decoded
	// Trades are the account's trades by txid.
	Trades map[string]KrakenTrade
	// Permission false answers EGeneral:Permission denied.
	NoPermission bool
	// RateLimited is how many calls answer EAPI:Rate limit exceeded first.
	RateLimited int
	Calls       int
	// Offsets are the ofs values asked for.
	Offsets   []string
	lastNonce int64
}

// KrakenTrade is one TradesHistory trade.
type KrakenTrade struct {
	OrderTxID string  `json:"ordertxid"`
	PosTxID   string  `json:"postxid"`
	Pair      string  `json:"pair"`
	Time      float64 `json:"time"`
	Type      string  `json:"type"`
	OrderType string  `json:"ordertype"`
	Price     string  `json:"price"`
	Cost      string  `json:"cost"`
	Fee       string  `json:"fee"`
	Vol       string  `json:"vol"`
	Margin    string  `json:"margin"`
	Misc      string  `json:"misc"`
}

func (k *Kraken) fail(w http.ResponseWriter, e string) {
	_ = json.NewEncoder(w).Encode(map[string]any{"error": []string{e}})
}

func (k *Kraken) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method != http.MethodPost || r.URL.Path != "/0/private/TradesHistory" {
		k.fail(w, "EGeneral:Unknown method")
		return
	}
	k.Calls++
	body, _ := io.ReadAll(r.Body)
	form, err := url.ParseQuery(string(body))
	if err != nil {
		k.fail(w, "EGeneral:Invalid arguments")
		return
	}
	nonce := form.Get("nonce")
	sum := sha256.Sum256([]byte(nonce + string(body)))
	mac := hmac.New(sha512.New, k.Secret)
	mac.Write([]byte(r.URL.Path))
	mac.Write(sum[:])
	sign, _ := base64.StdEncoding.DecodeString(r.Header.Get("API-Sign"))
	n, nerr := strconv.ParseInt(nonce, 10, 64)
	switch {
	case r.Header.Get("API-Key") != k.APIKey:
		k.fail(w, "EAPI:Invalid key")
		return
	case !hmac.Equal(sign, mac.Sum(nil)):
		k.fail(w, "EAPI:Invalid signature")
		return
	case nerr != nil || n <= k.lastNonce:
		k.fail(w, "EAPI:Invalid nonce")
		return
	case k.NoPermission:
		k.fail(w, "EGeneral:Permission denied")
		return
	case k.RateLimited > 0:
		k.RateLimited--
		k.fail(w, "EAPI:Rate limit exceeded")
		return
	}
	k.lastNonce = n
	k.Offsets = append(k.Offsets, form.Get("ofs"))
	start, _ := strconv.ParseFloat(form.Get("start"), 64)
	ids := make([]string, 0, len(k.Trades))
	for id, t := range k.Trades {
		if t.Time > start {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { // newest first
		return -cmp.Or(cmp.Compare(k.Trades[a].Time, k.Trades[b].Time), cmp.Compare(a, b))
	})
	ofs, _ := strconv.Atoi(form.Get("ofs"))
	page := map[string]KrakenTrade{}
	for i := ofs; i < len(ids) && i < ofs+50; i++ {
		page[ids[i]] = k.Trades[ids[i]]
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"error": []string{}, "result": map[string]any{"trades": page, "count": len(ids)}})
}
