package brokersync

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/brokerfake"
	"tradejournal/shared/brokerfile"
)

// The protocol of each source against its fake broker, without a database:
// paging, retries, throttling and error answers. The sync's writes are
// tested through the API (functions/connections).

var t0 = time.Date(2024, 2, 1, 12, 0, 0, 0, time.UTC)

// waits records the pauses a source asked for instead of sleeping.
type waits []time.Duration

func (w *waits) wait(_ context.Context, d time.Duration) error { *w = append(*w, d); return nil }

func failure(t *testing.T, err error, code string) *Failure {
	t.Helper()
	f, ok := errors.AsType[*Failure](err)
	if !ok || f.Code != code {
		t.Fatalf("err = %v, want a %s failure", err, code)
	}
	return f
}

func aaplTrades() []brokerfake.FlexTrade {
	return []brokerfake.FlexTrade{
		{ExecID: "0000e0d5.65ae1a2b.01.01", Symbol: "AAPL", Asset: "STK", BuySell: "BUY", OpenClose: "O", DateTime: "20240122;093512",
			Quantity: "100", Price: "193.12", Commission: "-1"},
		{ExecID: "0000e0d5.65ae1a2b.01.02", Symbol: "AAPL", Asset: "STK", BuySell: "SELL", OpenClose: "C", DateTime: "20240122;104103",
			Quantity: "-100", Price: "194.05", Commission: "-1.0023"},
	}
}

func newFlex(fake *brokerfake.Flex) (*flex, *waits, func()) {
	srv := httptest.NewServer(fake)
	w := &waits{}
	return &flex{base: srv.URL, client: srv.Client(), wait: w.wait}, w, srv.Close
}

var flexCreds = Credentials{Token: "1234567890123456789012", QueryID: "987654"}

func TestFlexFetch(t *testing.T) {
	fake := &brokerfake.Flex{Token: flexCreds.Token, QueryID: flexCreds.QueryID, InProgress: 2,
		Statement: brokerfake.FlexStatement("U1234567", aaplTrades()...)}
	s, w, done := newFlex(fake)
	defer done()
	execs, err := s.fetch(context.Background(), request{Credentials: flexCreds, Zone: "America/New_York", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if len(execs) != 2 || execs[0].ID != "0000e0d5.65ae1a2b.01.01" || execs[1].ID != "0000e0d5.65ae1a2b.01.02" {
		t.Fatalf("executions %+v", execs)
	}
	f := execs[0].Fill
	if f.Symbol != "AAPL" || f.Side != "buy" || f.Quantity.String() != "100" || f.Price.String() != "193.12" || f.Fees.String() != "1" ||
		!f.FilledAt.Equal(time.Date(2024, 1, 22, 14, 35, 12, 0, time.UTC)) {
		t.Errorf("first fill %+v", f)
	}
	if len(*w) != 2 || fake.Calls["/GetStatement"] != 3 || fake.Calls["/SendRequest"] != 1 {
		t.Errorf("waits %v, calls %v: want 2 waits and 3 GetStatement calls while 1019", *w, fake.Calls)
	}
	for _, v := range fake.Versions {
		if v != "3" {
			t.Errorf("version %q, want 3", v)
		}
	}
}

func TestFlexStatementNeverReady(t *testing.T) {
	fake := &brokerfake.Flex{Token: flexCreds.Token, QueryID: flexCreds.QueryID, InProgress: 1000}
	s, w, done := newFlex(fake)
	defer done()
	_, err := s.fetch(context.Background(), request{Credentials: flexCreds, Zone: "UTC", Now: t0})
	failure(t, err, CodeStatementNotReady)
	if len(*w) != len(flexWaits) {
		t.Errorf("waited %d times, want %d", len(*w), len(flexWaits))
	}
}

func TestFlexErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sendError string
		creds     Credentials
		code      string
	}{
		{"TokenExpired", "1012", flexCreds, CodeTokenExpired},
		{"TooManyRequests", "1018", flexCreds, CodeRateLimited},
		{"WrongQuery", "", Credentials{Token: flexCreds.Token, QueryID: "1"}, CodeQueryInvalid},
		{"WrongToken", "", Credentials{Token: "revoked", QueryID: flexCreds.QueryID}, CodeTokenInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &brokerfake.Flex{Token: flexCreds.Token, QueryID: flexCreds.QueryID, SendError: tc.sendError}
			s, _, done := newFlex(fake)
			defer done()
			_, err := s.fetch(context.Background(), request{Credentials: tc.creds, Zone: "UTC", Now: t0})
			f := failure(t, err, tc.code)
			if !strings.Contains(f.Message, "IB error") {
				t.Errorf("message %q does not carry IB's words and code", f.Message)
			}
			if tc.code == CodeRateLimited && (f.RetryAt == nil || !f.RetryAt.Equal(t0.Add(flexRateWait))) {
				t.Errorf("retryAt %v, want %v", f.RetryAt, t0.Add(flexRateWait))
			}
			if strings.Contains(f.Message, flexCreds.Token) {
				t.Errorf("message %q carries the token", f.Message)
			}
		})
	}
}

func TestFlexUnavailableHidesToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	base := srv.URL
	srv.Close() // nothing listens: the client's error names the URL, with t=
	s := &flex{base: base, client: http.DefaultClient, wait: (&waits{}).wait}
	_, err := s.fetch(context.Background(), request{Credentials: flexCreds, Zone: "UTC", Now: t0})
	f := failure(t, err, CodeBrokerUnavailable)
	if strings.Contains(f.Message, flexCreds.Token) {
		t.Errorf("message %q carries the token", f.Message)
	}
}

func TestFlexStatementShapes(t *testing.T) {
	for _, tc := range []struct {
		name, body, code string
	}{
		{"CSVFormat", "\"ClientAccountID\",\"Symbol\"\n\"U1\",\"AAPL\"\n", CodeStatementUnreadable},
		{"NotXML", "<html><body>maintenance</body></html>", CodeAnswerUnreadable},
		{"NoExecID", `<FlexQueryResponse><FlexStatements><FlexStatement><Trades><Trade symbol="AAPL" quantity="1" tradePrice="1" dateTime="20240122;093512" buySell="BUY" /></Trades></FlexStatement></FlexStatements></FlexQueryResponse>`, CodeStatementUnreadable},
		{"TwoAccounts", strings.Replace(brokerfake.FlexStatement("U1", aaplTrades()...), `accountId="U1" currency="USD" assetCategory="STK" symbol="AAPL" description="" conid="1" multiplier="1" tradeID="T0000e0d5.65ae1a2b.01.02"`,
			`accountId="U2" currency="USD" assetCategory="STK" symbol="AAPL" description="" conid="1" multiplier="1" tradeID="T0000e0d5.65ae1a2b.01.02"`, 1), CodeStatementUnreadable},
		{"BadPrice", strings.Replace(brokerfake.FlexStatement("U1", aaplTrades()...), `tradePrice="193.12"`, `tradePrice="abc"`, 1), CodeStatementUnreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readFlexStatement([]byte(tc.body), "UTC", t0)
			failure(t, err, tc.code)
		})
	}
	execs, err := readFlexStatement([]byte(brokerfake.FlexStatement("U1")), "UTC", t0)
	if err != nil || len(execs) != 0 {
		t.Errorf("a statement without trades: %v, %v", execs, err)
	}
}

func alpacaFills(n int) []brokerfake.AlpacaFill {
	out := make([]brokerfake.AlpacaFill, n)
	for i := range out {
		side := "buy"
		if i%2 == 1 {
			side = "sell"
		}
		out[i] = brokerfake.AlpacaFill{ID: fmt.Sprintf("20240122093512%03d::%08d", i, i), ActivityType: "FILL",
			TransactionTime: t0.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano), Type: "fill", Price: "10.5", Qty: "3",
			Side: side, Symbol: "SPY", OrderID: fmt.Sprintf("o%d", i), CumQty: "3", LeavesQty: "0", OrderStatus: "filled"}
	}
	return out
}

func TestAlpacaPaging(t *testing.T) {
	fake := &brokerfake.Alpaca{KeyID: "PKTEST", Secret: "s3cret", Fills: alpacaFills(250)}
	fake.Fills[3].Symbol, fake.Fills[3].Side = "BTC/USD", "buy"
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s := &alpaca{base: srv.URL, client: srv.Client()}
	execs, err := s.fetch(context.Background(), request{Credentials: Credentials{KeyID: "PKTEST", Secret: "s3cret"}, Zone: "UTC", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if len(execs) != 250 || fake.Calls != 3 {
		t.Fatalf("%d executions in %d calls, want 250 in 3", len(execs), fake.Calls)
	}
	if tok := fake.Queries[1].Get("page_token"); tok != fake.Fills[99].ID {
		t.Errorf("second page_token %q, want the first page's last id %q", tok, fake.Fills[99].ID)
	}
	if execs[3].Fill.AssetType != "crypto" || execs[0].Fill.AssetType != "stock" || execs[1].Fill.Side != "sell" {
		t.Errorf("fills %+v %+v", execs[0].Fill, execs[3].Fill)
	}
	since := t0.Add(200 * time.Minute)
	fake.Calls = 0
	execs, err = s.fetch(context.Background(), request{Credentials: Credentials{KeyID: "PKTEST", Secret: "s3cret"}, Since: &since, Zone: "UTC", Now: t0})
	if err != nil || len(execs) != 49 || fake.Queries[len(fake.Queries)-1].Get("after") != since.Format(time.RFC3339) {
		t.Errorf("incremental: %d executions, %v; want the 49 after %v", len(execs), err, since)
	}
}

func TestAlpacaErrors(t *testing.T) {
	fake := &brokerfake.Alpaca{KeyID: "PKTEST", Secret: "s3cret", Fills: alpacaFills(150), RateLimitAt: 2}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	s := &alpaca{base: srv.URL, client: srv.Client()}
	now := time.Now()
	_, err := s.fetch(context.Background(), request{Credentials: Credentials{KeyID: "PKTEST", Secret: "s3cret"}, Zone: "UTC", Now: now})
	f := failure(t, err, CodeRateLimited)
	if f.RetryAt == nil || f.RetryAt.Sub(now) < 80*time.Second || f.RetryAt.Sub(now) > 95*time.Second {
		t.Errorf("retryAt %v, want X-RateLimit-Reset's (about 90 s on)", f.RetryAt)
	}
	err = s.check(context.Background(), Credentials{KeyID: "PKTEST", Secret: "wrong"})
	failure(t, err, CodeCredentialsRejected)
	if err := s.check(context.Background(), Credentials{KeyID: "PKTEST", Secret: "s3cret"}); err != nil {
		t.Errorf("check: %v", err)
	}
}

var krakenPrivate = base64.StdEncoding.EncodeToString([]byte("kraken private key of the tests, sixty-four bytes long.........."))

func newKraken(trades int) (*brokerfake.Kraken, *kraken, *waits, func()) {
	secret, _ := krakenSecret(krakenPrivate)
	fake := &brokerfake.Kraken{APIKey: "KAPIKEY", Secret: secret, Trades: map[string]brokerfake.KrakenTrade{}}
	for i := range trades {
		typ := "buy"
		if i%2 == 1 {
			typ = "sell"
		}
		fake.Trades[fmt.Sprintf("T%05d-ABCDE-FGHIJK", i)] = brokerfake.KrakenTrade{OrderTxID: fmt.Sprintf("O%05d", i), Pair: "XXBTZUSD",
			Time: float64(t0.Unix()+int64(i*60)) + 0.4512, Type: typ, OrderType: "limit", Price: "84000.0", Cost: "420.0", Fee: "1.092",
			Vol: "0.005"}
	}
	srv := httptest.NewServer(fake)
	w := &waits{}
	return fake, &kraken{base: srv.URL, client: srv.Client(), wait: w.wait, now: func() time.Time { return t0 }}, w, srv.Close
}

var krakenCreds = Credentials{KeyID: "KAPIKEY", Secret: krakenPrivate}

func TestKrakenPaging(t *testing.T) {
	fake, s, w, done := newKraken(120)
	defer done()
	fake.RateLimited = 1
	execs, err := s.fetch(context.Background(), request{Credentials: krakenCreds, Zone: "UTC", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if len(execs) != 120 || strings.Join(fake.Offsets, ",") != "0,50,100" {
		t.Fatalf("%d executions, offsets %v; want 120 over ofs 0,50,100", len(execs), fake.Offsets)
	}
	// One wait after the rate-limit answer, one between each two pages.
	if len(*w) != 3 {
		t.Errorf("waits %v", *w)
	}
	var f brokerfile.Fill
	for _, e := range execs {
		if e.ID == "T00000-ABCDE-FGHIJK" {
			f = e.Fill
		}
	}
	if f.Symbol != "BTC/USD" || f.AssetType != "crypto" || f.Quantity.String() != "0.005" ||
		!f.FilledAt.Equal(t0.Add(451200*time.Microsecond)) {
		t.Errorf("first fill %+v", f)
	}
	since := t0.Add(100 * time.Minute)
	fake.Offsets = nil
	execs, err = s.fetch(context.Background(), request{Credentials: krakenCreds, Since: &since, Zone: "UTC", Now: t0})
	if err != nil || len(execs) != 20 {
		t.Errorf("incremental: %d executions, %v; want the 20 from start", len(execs), err)
	}
}

func TestKrakenErrors(t *testing.T) {
	fake, s, _, done := newKraken(1)
	defer done()
	err := s.check(context.Background(), Credentials{KeyID: "KAPIKEY", Secret: base64.StdEncoding.EncodeToString([]byte("another key"))})
	failure(t, err, CodeCredentialsRejected)
	fake.RateLimited = krakenRetries + 1
	_, err = s.fetch(context.Background(), request{Credentials: krakenCreds, Zone: "UTC", Now: t0})
	if f := failure(t, err, CodeRateLimited); f.RetryAt == nil || !f.RetryAt.Equal(t0.Add(krakenRateWait)) {
		t.Errorf("retryAt %v", f.RetryAt)
	}
	fake.RateLimited, fake.NoPermission = 0, true
	failure(t, s.check(context.Background(), krakenCreds), CodePermissionDenied)
}

func TestKrakenTime(t *testing.T) {
	for in, want := range map[string]string{
		"1741000522.4512": "2025-03-03 11:15:22.451200",
		"1741000522":      "2025-03-03 11:15:22.000000",
	} {
		if got, ok := krakenTime(in); !ok || got != want {
			t.Errorf("krakenTime(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "-1", "1.2.3", "1e9", "12.1234567890", "abc"} {
		if _, ok := krakenTime(bad); ok {
			t.Errorf("krakenTime(%q) read", bad)
		}
	}
}
