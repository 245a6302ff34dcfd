package market_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
)

const tradierToken = "tradier-test-token-31415"

// spyContracts: two expirations of SPY; the nearer has three strikes (a
// put without a bid or greeks), the later one contract alone.
var spyContracts = []markettest.OptionContract{
	{Underlying: "SPY", Expiration: "2024-06-21", Type: "put", Strike: "540", Ask: "0.05", Last: "0.04", Volume: 10, OpenInterest: 120},
	{Underlying: "SPY", Expiration: "2024-06-21", Type: "call", Strike: "545", Bid: "2.1", Ask: "2.15", Last: "2.12", Volume: 900, OpenInterest: 5000, Delta: "0.5123", MidIV: "0.1234"},
	{Underlying: "SPY", Expiration: "2024-06-21", Type: "put", Strike: "545", Bid: "1.9", Ask: "1.95", Last: "1.93", Volume: 800, OpenInterest: 4200, Delta: "-0.4877", MidIV: "0.1301"},
	{Underlying: "SPY", Expiration: "2024-06-21", Type: "call", Strike: "540", Bid: "5.5", Ask: "5.6", Last: "5.55", Volume: 300, OpenInterest: 900, Delta: "0.81", MidIV: "0.14"},
	{Underlying: "SPY", Expiration: "2024-06-28", Type: "call", Strike: "550", Bid: "1", Ask: "1.1", Volume: 1, OpenInterest: 2, Delta: "0.4", MidIV: "0.12"},
	{Underlying: "QQQ", Expiration: "2024-06-21", Type: "call", Strike: "480", Bid: "3", Ask: "3.1", Volume: 5, OpenInterest: 6, Delta: "0.5", MidIV: "0.15"},
}

// chains returns the client of a stand-in at url, its clock at now.
func chains(url, token string, now time.Time) (*market.Chains, *logs) {
	log, out := newLogger()
	return market.NewChains(config.Market{TradierKey: token, TradierURL: url + "/v1"}, nil, func() time.Time { return now }, log), out
}

func TestOptionChains(t *testing.T) {
	ctx := context.Background()
	// 22:00 in New York on 2024-06-21 is already the 22nd in UTC: the
	// nearest expiration is still New York's today, the 21st.
	evening := time.Date(2024, 6, 22, 2, 0, 0, 0, time.UTC)

	t.Run("NearestExpiration", func(t *testing.T) {
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 0))
		c, _ := chains(p.URL, tradierToken, evening)
		got, err := c.Chain(ctx, "SPY", "")
		if err != nil {
			t.Fatal(err)
		}
		if got.Underlying != "SPY" || got.Expiration != "2024-06-21" || strings.Join(got.Expirations, ",") != "2024-06-21,2024-06-28" || len(got.Contracts) != 4 {
			t.Fatalf("chain %+v", got)
		}
		// By strike, calls first.
		var order []string
		for _, k := range got.Contracts {
			order = append(order, k.Strike.String()+k.Type)
		}
		if strings.Join(order, " ") != "540call 540put 545call 545put" {
			t.Fatalf("order %v", order)
		}
		call, put := got.Contracts[2], got.Contracts[1]
		if call.Symbol != "SPY240621C00545000" || call.Bid.String() != "2.1" || call.Volume != 900 || call.OpenInterest != 5000 ||
			call.Greeks == nil || call.Greeks.Delta.String() != "0.5123" || call.Greeks.IV.String() != "0.1234" {
			t.Fatalf("call %+v %+v", call, call.Greeks)
		}
		if put.Bid != nil || put.Greeks != nil || put.Ask.String() != "0.05" {
			t.Fatalf("a put without a bid or greeks: %+v", put)
		}
		calls := p.Calls()
		if _, err := c.Chain(ctx, "SPY", ""); err != nil || p.Calls() != calls {
			t.Fatalf("not cached: %v, %d calls", err, p.Calls())
		}
		// Once the 22nd has begun in New York the nearest is the 28th.
		later, _ := chains(p.URL, tradierToken, time.Date(2024, 6, 22, 5, 0, 0, 0, time.UTC))
		if got, err := later.Chain(ctx, "SPY", ""); err != nil || got.Expiration != "2024-06-28" {
			t.Fatalf("the next day: %v %v", got.Expiration, err)
		}
	})

	t.Run("OneOfEach", func(t *testing.T) {
		// One expiration with one contract: the API sends each as an object.
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 0))
		c, _ := chains(p.URL, tradierToken, evening)
		got, err := c.Chain(ctx, "QQQ", "")
		if err != nil || len(got.Expirations) != 1 || len(got.Contracts) != 1 || got.Contracts[0].Strike.String() != "480" {
			t.Fatalf("%+v %v", got, err)
		}
		got, err = c.Chain(ctx, "SPY", "2024-06-28")
		if err != nil || len(got.Contracts) != 1 || got.Contracts[0].Symbol != "SPY240628C00550000" || got.Contracts[0].Last != nil {
			t.Fatalf("%+v %v", got, err)
		}
	})

	t.Run("UnlistedExpiration", func(t *testing.T) {
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 0))
		c, _ := chains(p.URL, tradierToken, evening)
		_, err := c.Chain(ctx, "SPY", "2024-06-22")
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.Validation || e.Details[0].Field != "expiration" || !strings.Contains(e.Message, "2024-06-21, 2024-06-28") {
			t.Fatalf("%v", err)
		}
	})

	t.Run("NoOptions", func(t *testing.T) {
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 0))
		c, _ := chains(p.URL, tradierToken, evening)
		if _, err := c.Chain(ctx, "ZZZZ", ""); !errors.Is(err, market.ErrNoChain) {
			t.Fatalf("%v", err)
		}
	})

	t.Run("RefusedToken", func(t *testing.T) {
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 0))
		c, out := chains(p.URL, "wrong-token-27182", evening)
		_, err := c.Chain(ctx, "SPY", "")
		if e, ok := apperr.As(err); !ok || e.Code != apperr.BadGateway || !strings.Contains(e.Message, "Tradier refused this instance's market-data key") {
			t.Fatalf("%v", err)
		}
		if strings.Contains(out.String(), "wrong-token-27182") || len(out.Lines("WARN")) == 0 {
			t.Fatalf("logs %s", out.String())
		}
	})

	t.Run("RateLimit", func(t *testing.T) {
		// Two calls a minute: the expirations and the chain of SPY, then
		// QQQ's expirations are refused.
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 2))
		c, _ := chains(p.URL, tradierToken, evening)
		if _, err := c.Chain(ctx, "SPY", ""); err != nil {
			t.Fatal(err)
		}
		_, err := c.Chain(ctx, "QQQ", "")
		if e, ok := apperr.As(err); !ok || e.Code != apperr.BadGateway || e.RetryAfterSeconds != 60 || !strings.Contains(e.Message, "request limit") {
			t.Fatalf("%v", err)
		}
	})

	t.Run("Unusable", func(t *testing.T) {
		for name, body := range map[string]string{
			"NotJSON":       `<html>maintenance</html>`,
			"BadDate":       `{"expirations":{"date":["June 21"]}}`,
			"NegativeBid":   `{"options":{"option":{"symbol":"SPY240621C00545000","option_type":"call","strike":545,"bid":-1,"expiration_date":"2024-06-21"}}}`,
			"OtherExpiry":   `{"options":{"option":{"symbol":"SPY240628C00545000","option_type":"call","strike":545,"expiration_date":"2024-06-28"}}}`,
			"NotCallOrPut":  `{"options":{"option":{"symbol":"SPY240621X00545000","option_type":"swap","strike":545,"expiration_date":"2024-06-21"}}}`,
			"FractionalVol": `{"options":{"option":{"symbol":"SPY240621C00545000","option_type":"call","strike":545,"volume":1.5,"expiration_date":"2024-06-21"}}}`,
		} {
			t.Run(name, func(t *testing.T) {
				p := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
					if strings.HasSuffix(r.URL.Path, "/expirations") && !strings.HasPrefix(body, `{"expirations"`) {
						w.Write([]byte(`{"expirations":{"date":"2024-06-21"}}`))
						return
					}
					w.Write([]byte(body))
				})
				c, _ := chains(p.URL, tradierToken, evening)
				_, err := c.Chain(ctx, "SPY", "")
				if e, ok := apperr.As(err); !ok || e.Code != apperr.BadGateway || !strings.Contains(e.Message, "did not answer usably") {
					t.Fatalf("%v", err)
				}
			})
		}
	})

	t.Run("Off", func(t *testing.T) {
		p := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyContracts, 0))
		c, _ := chains(p.URL, "", evening)
		if _, err := c.Chain(ctx, "SPY", ""); !errors.Is(err, apperr.ErrNotFound) || c.Enabled() || p.Calls() != 0 {
			t.Fatalf("%v, %d calls", err, p.Calls())
		}
	})
}
