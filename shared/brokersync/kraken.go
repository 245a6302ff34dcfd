package brokersync

import (
	"context"
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
	"strings"
	"sync"
	"time"

	"tradejournal/shared/brokerfile"
)

// kraken is Kraken's REST API: the private TradesHistory
// (POST /0/private/TradesHistory), signed with the API key's private key
// (API-Key header; API-Sign = base64 of HMAC-SHA512 over the URI path and
// SHA-256 of nonce and the form body, keyed by the decoded private key),
// with a nonce that never decreases, from `start` (exclusive, Unix
// seconds), paged by `ofs` over `count`, 50 trades a page.
type kraken struct {
	base   string // KRAKEN_API_BASE_URL
	client *http.Client
	wait   func(context.Context, time.Duration) error
	now    func() time.Time

	mu        sync.Mutex
	lastNonce int64
}

const (
	krakenTradesPath = "/0/private/TradesHistory"
	// krakenPace is the pause between two pages: TradesHistory costs 2 of
	// the call counter, which decays by 0.33 a second on the lowest tier.
	krakenPace = 6 * time.Second
	// krakenRateWait is the next try after Kraken's rate-limit answer
	// (the counter empties in under a minute on every tier).
	krakenRateWait = time.Minute
	// krakenRetries is how often a page is asked again after a rate-limit
	// answer, krakenPace apart, before the sync gives up for now.
	krakenRetries = 3
)

// krakenTrade is a TradesHistory trade, the fields a fill needs (Kraken
// writes numbers as strings, time as Unix seconds with a fraction).
type krakenTrade struct {
	OrderTxID string      `json:"ordertxid"`
	Pair      string      `json:"pair"`
	Time      json.Number `json:"time"`
	Type      string      `json:"type"`
	OrderType string      `json:"ordertype"`
	Price     string      `json:"price"`
	Cost      string      `json:"cost"`
	Fee       string      `json:"fee"`
	Vol       string      `json:"vol"`
}

type krakenAnswer struct {
	Error  []string        `json:"error"`
	Result json.RawMessage `json:"result"`
}

// krakenSecret decodes a private key as Kraken shows it.
func krakenSecret(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(s)
	if err == nil && len(key) == 0 {
		err = fmt.Errorf("empty key")
	}
	return key, err
}

// krakenSign is API-Sign for a request to path with the form body.
func krakenSign(path, nonce, body string, secret []byte) string {
	sum := sha256.Sum256([]byte(nonce + body))
	mac := hmac.New(sha512.New, secret)
	mac.Write([]byte(path))
	mac.Write(sum[:])
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// nonce is a strictly increasing number (microseconds, or one past the last).
func (s *kraken) nonce() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := time.Now().UnixMicro()
	if n <= s.lastNonce {
		n = s.lastNonce + 1
	}
	s.lastNonce = n
	return strconv.FormatInt(n, 10)
}

func (s *kraken) check(ctx context.Context, c Credentials) error {
	_, err := s.call(ctx, c, url.Values{"ofs": {"0"}})
	return err
}

func (s *kraken) fetch(ctx context.Context, req request) ([]execution, error) {
	var (
		rows [][]string
		ids  []string
	)
	form := url.Values{}
	if req.Since != nil {
		form.Set("start", strconv.FormatInt(req.Since.Unix(), 10))
	}
	for ofs := 0; ; {
		form.Set("ofs", strconv.Itoa(ofs))
		raw, err := s.call(ctx, req.Credentials, form)
		for retry := 0; err != nil && retry < krakenRetries && isRateLimited(err); retry++ {
			if werr := s.wait(ctx, krakenPace); werr != nil {
				return nil, werr
			}
			raw, err = s.call(ctx, req.Credentials, form)
		}
		if err != nil {
			return nil, err
		}
		pageRows, pageIDs, count, err := readKrakenPage(raw)
		if err != nil {
			return nil, err
		}
		rows, ids = append(rows, pageRows...), append(ids, pageIDs...)
		ofs += len(pageIDs)
		if len(pageIDs) == 0 || ofs >= count {
			break
		}
		if err := s.wait(ctx, krakenPace); err != nil {
			return nil, err
		}
	}
	return readRows(brokerfile.Options{PresetID: "kraken"}, krakenHeader, rows, ids, req.Zone, req.Now, "Kraken's trade history")
}

// krakenHeader is the trades.csv export's columns the kraken preset reads.
var krakenHeader = []string{"txid", "ordertxid", "pair", "time", "type", "ordertype", "price", "cost", "fee", "vol"}

// readKrakenPage reads one TradesHistory result: its trades as rows under
// krakenHeader (by txid, so a page reads alike every time), their ids, and
// the count of trades over all pages.
func readKrakenPage(raw json.RawMessage) (rows [][]string, ids []string, count int, err error) {
	var page struct {
		Trades map[string]krakenTrade `json:"trades"`
		Count  int                    `json:"count"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, nil, 0, unreadable("Kraken", "TradesHistory's result is not its documented object")
	}
	ids = make([]string, 0, len(page.Trades))
	for id := range page.Trades {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t := page.Trades[id]
		at, ok := krakenTime(string(t.Time))
		if !ok {
			return nil, nil, 0, unreadable("Kraken", "trade "+id+" has no readable time")
		}
		rows = append(rows, []string{id, t.OrderTxID, t.Pair, at, t.Type, t.OrderType, t.Price, t.Cost, t.Fee, t.Vol})
	}
	return rows, ids, page.Count, nil
}

// krakenTime turns Kraken's Unix seconds ("1741000522.4512") into the
// trades.csv export's time, read by the same preset.
func krakenTime(s string) (string, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	const year10000 = 253402300800
	if err != nil || sec < 0 || sec >= year10000 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return "", false
	}
	frac = (frac + "000000000")[:9]
	ns, _ := strconv.Atoi(frac)
	return time.Unix(sec, int64(ns)).UTC().Format("2006-01-02 15:04:05.000000"), true
}

func isRateLimited(err error) bool {
	f, ok := err.(*Failure)
	return ok && f.Code == CodeRateLimited
}

// call POSTs a signed TradesHistory request and answers its result.
func (s *kraken) call(ctx context.Context, c Credentials, form url.Values) (json.RawMessage, error) {
	secret, err := krakenSecret(c.Secret)
	if err != nil {
		return nil, &Failure{Code: CodeCredentialsRejected, Message: "the private key is not base64 as Kraken shows it"}
	}
	nonce := s.nonce()
	form.Set("nonce", nonce)
	body := form.Encode()
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+krakenTradesPath, strings.NewReader(body))
	if err != nil {
		return nil, unreadable("Kraken", "KRAKEN_API_BASE_URL is not a URL")
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	r.Header.Set("API-Key", c.KeyID)
	r.Header.Set("API-Sign", krakenSign(krakenTradesPath, nonce, body, secret))
	res, err := s.client.Do(r)
	if err != nil {
		return nil, unavailable("Kraken", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxStatementBytes))
	if err != nil {
		return nil, unavailable("Kraken", err)
	}
	if res.StatusCode >= 500 {
		return nil, unavailable("Kraken", fmt.Errorf("HTTP status %d", res.StatusCode))
	}
	var a krakenAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, unreadable("Kraken", fmt.Sprintf("HTTP status %d without its JSON answer", res.StatusCode))
	}
	if len(a.Error) > 0 {
		return nil, krakenFailure(a.Error, s.now())
	}
	return a.Result, nil
}

// krakenFailure words Kraken's error strings (its REST API's error list).
func krakenFailure(errs []string, now time.Time) *Failure {
	words := "Kraken answered " + strings.Join(errs, ", ")
	e := errs[0]
	switch {
	case e == "EAPI:Invalid key" || e == "EAPI:Invalid signature":
		return &Failure{Code: CodeCredentialsRejected, Message: words}
	case e == "EGeneral:Permission denied":
		return &Failure{Code: CodePermissionDenied, Message: words}
	case e == "EAPI:Rate limit exceeded" || e == "EGeneral:Too many requests" || strings.HasPrefix(e, "EService:Throttled"):
		return rateLimited(now, krakenRateWait, words)
	case e == "EAPI:Invalid nonce":
		return &Failure{Code: CodeCredentialsRejected, Message: words + ": the key is used by another program; give the journal a key of its own"}
	case strings.HasPrefix(e, "EService:"):
		return &Failure{Code: CodeBrokerUnavailable, Message: words}
	}
	return unreadable("Kraken", strings.Join(errs, ", "))
}
