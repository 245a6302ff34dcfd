package positions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	authgroup "tradejournal/functions/auth"
	"tradejournal/functions/positions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
	"tradejournal/shared/objectstore/s3test"
)

const quoteKey = "qk_positions_3c2b1a"

var (
	entryAt = time.Date(2025, 6, 2, 14, 7, 0, 0, time.UTC)
	exitAt  = entryAt.Add(5 * time.Minute)
)

// minuteBars are 1-minute bars from 13:40 to 14:40 on entryAt's day, each
// 10.00 to 10.50, except: 14:05 (before the entry) down to 8, 14:09 down to
// 9.40, 14:11 up to 11.35, 14:14 (after the exit) up to 13.
func minuteBars() []markettest.Candle {
	var out []markettest.Candle
	for at := entryAt.Add(-27 * time.Minute); !at.After(entryAt.Add(33 * time.Minute)); at = at.Add(time.Minute) {
		low, high := "10", "10.5"
		switch at.Sub(entryAt) {
		case -2 * time.Minute:
			low = "8"
		case 2 * time.Minute:
			low = "9.4"
		case 4 * time.Minute:
			high = "11.35"
		case 7 * time.Minute:
			high = "13"
		}
		out = append(out, markettest.Candle{T: at.Unix(), O: "10.2", H: high, L: low, C: "10.3", V: 1200})
	}
	return out
}

// marketProvider stands in for the quote provider: AAPL and MSFT have the
// minute bars and quotes; RL answers 429; SLOW does not answer for 5 s.
func marketProvider(t *testing.T) *markettest.Provider {
	bars := minuteBars()
	serve := markettest.Candles(map[string][]markettest.Candle{"AAPL": bars, "MSFT": bars}, map[string]string{"AAPL": "261.74", "MSFT": "261.74"})
	return markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Finnhub-Token") != quoteKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Query().Get("symbol") {
		case "RL":
			w.WriteHeader(http.StatusTooManyRequests)
		case "SLOW":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		default:
			serve(w, r)
		}
	})
}

func marketConfig(t *testing.T, p *markettest.Provider) config.Config {
	cfg := apitest.Config(t)
	cfg.Market.QuoteAPIKey = quoteKey
	cfg.Market.QuoteBaseURL = p.URL
	cfg.Market.Bars.Providers = map[string]string{"stock": config.BarsFinnhub} // as the loader sets it with a quote key
	return cfg
}

// newPosition creates a position of c's with fills; it returns its id.
func newPosition(t *testing.T, c *apitest.Client, account, symbol, assetType, side string, extra map[string]any, fills ...map[string]any) string {
	t.Helper()
	body := map[string]any{"accountId": account, "symbol": symbol, "assetType": assetType, "side": side, "fills": fills}
	for k, v := range extra {
		body[k] = v
	}
	return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", body), 201), "position")["id"].(string)
}

// body decodes a JSON object answer.
func body(t *testing.T, r apitest.Response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("%d %s: %v", r.Status, r.Body, err)
	}
	return m
}

func at(tm time.Time) string { return tm.Format(time.RFC3339) }

func TestExcursionsAndReview(t *testing.T) {
	f := setup(t, nil)
	id := newPosition(t, f.a, f.account, "AAPL", "stock", "long", map[string]any{"stopLoss": "9", "targetPrice": "12"},
		fill("entry", "10", "100", "0", at(entryAt)), fill("exit", "11", "100", "0", at(exitAt)))
	path := "/api/positions/" + id

	pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position")
	rv := pos["review"].(map[string]any)
	// 5 minutes; reward 2 over risk 1.
	if rv["holdSeconds"] != float64(300) || rv["plannedRR"] != "2.00" || rv["mae"] != nil || pos["maePrice"] != nil {
		t.Fatalf("review %v", pos)
	}

	t.Run("Refused", func(t *testing.T) {
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"maePrice": "10.5"}, "maePrice"},    // above a long's entry
			{map[string]any{"mfePrice": "9.99"}, "mfePrice"},    // below it
			{map[string]any{"mfePrice": "10.5"}, "mfePrice"},    // below the exit at 11
			{map[string]any{"maePrice": "10.0001"}, "maePrice"}, // above the entry at 10
			{map[string]any{"maePrice": "0"}, "maePrice"},
			{map[string]any{"maePrice": "-1"}, "maePrice"},
			{map[string]any{"mfePrice": 11}, "mfePrice"},
			{map[string]any{"mfePrice": "1.123456789"}, "mfePrice"},
		} {
			r := f.a.Do("PATCH", path, tc.body)
			if r.Status != 400 || !slices.Contains(detailFields(t, r), tc.field) {
				t.Errorf("%v: %d %s", tc.body, r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		}
		// Nothing of a refused patch is written, the notes with it.
		r := f.a.Do("PATCH", path, map[string]any{"notes": "kept?", "maePrice": "10.01"})
		if r.Status != 400 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if p := apitest.Object(t, apitest.Must(t, f.a.Do("GET", path, nil), 200), "position"); p["notes"] != "" || p["maePrice"] != nil {
			t.Fatalf("a refused patch wrote %v", p)
		}
	})

	t.Run("Figures", func(t *testing.T) {
		pos := apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", path, map[string]any{"maePrice": "9.4", "mfePrice": "11.35"}), 200), "position")
		rv := pos["review"].(map[string]any)
		mae, mfe := rv["mae"].(map[string]any), rv["mfe"].(map[string]any)
		// (9.40 - 10) x 100 = -60 of a 100 risk; (11.35 - 10) x 100 = 135.
		if pos["maePrice"] != "9.4" || mae["price"] != "9.4" || mae["amount"] != "-60.0000" || mae["r"] != "-0.60" ||
			mfe["amount"] != "135.0000" || mfe["r"] != "1.35" {
			t.Fatalf("review %v", rv)
		}
		pos = apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", path, map[string]any{"maePrice": nil}), 200), "position")
		if pos["maePrice"] != nil || pos["mfePrice"] != "11.35" || pos["review"].(map[string]any)["mae"] != nil {
			t.Fatalf("cleared %v", pos)
		}
	})

	t.Run("OtherUser", func(t *testing.T) {
		if r := f.b.Do("PATCH", path, map[string]any{"maePrice": "9"}); r.Status != 404 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})

	t.Run("Short", func(t *testing.T) {
		id := newPosition(t, f.a, f.account, "MSFT", "stock", "short", nil, fill("entry", "50", "10", "0", at(entryAt)))
		r := f.a.Do("PATCH", "/api/positions/"+id, map[string]any{"maePrice": "49", "mfePrice": "51"})
		if fs := detailFields(t, r); r.Status != 400 || !slices.Equal(fs, []string{"maePrice", "mfePrice"}) {
			t.Fatalf("%d %v", r.Status, fs)
		}
		pos := apitest.Object(t, apitest.Must(t, f.a.Do("PATCH", "/api/positions/"+id, map[string]any{"maePrice": "52", "mfePrice": "47"}), 200), "position")
		rv := pos["review"].(map[string]any)
		// Open: held to now. (50 - 52) x 10 = -20; no stop, no R.
		if rv["mae"].(map[string]any)["amount"] != "-20.0000" || rv["mae"].(map[string]any)["r"] != nil || rv["holdSeconds"].(float64) < 3600 {
			t.Fatalf("short review %v", rv)
		}
	})
}

func TestImageCaptions(t *testing.T) {
	minio := s3test.Start(t)
	f := setup(t, nil) // inline storage
	id := newPosition(t, f.a, f.account, "AAPL", "stock", "long", nil)
	base := "/api/positions/" + id + "/images"
	inline := apitest.Object(t, apitest.Must(t, upload(t, f.a, base, map[string][]byte{"file": pngBytes, "caption": []byte("before")}, "image/png"), 201), "image")["id"].(string)

	edit := func(c *apitest.Client, imageID string, body any) apitest.Response {
		return c.Do("PATCH", base+"/"+imageID, body)
	}
	img := apitest.Object(t, apitest.Must(t, edit(f.a, inline, map[string]any{"caption": "Entry on the retest"}), 200), "image")
	if img["caption"] != "Entry on the retest" || img["id"] != inline || img["contentType"] != "image/png" {
		t.Fatalf("inline image %v", img)
	}

	t.Run("Refused", func(t *testing.T) {
		for _, body := range []any{map[string]any{}, map[string]any{"caption": strings.Repeat("x", 501)}, map[string]any{"caption": 5},
			map[string]any{"caption": "x", "other": 1}} {
			r := edit(f.a, inline, body)
			if r.Status != 400 {
				t.Errorf("%v: %d %s", body, r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		}
		for _, r := range []apitest.Response{
			edit(f.b, inline, map[string]any{"caption": "mine now"}),
			edit(f.a, missingID, map[string]any{"caption": "x"}),
			edit(f.a, "not-a-uuid", map[string]any{"caption": "x"}),
			f.a.Do("PATCH", "/api/positions/"+missingID+"/images/"+inline, map[string]any{"caption": "x"}),
		} {
			if r.Status != 404 {
				t.Errorf("%d %s", r.Status, r.Body)
			}
		}
		anon := f.srv.Client(t)
		if r := anon.Do("PATCH", base+"/"+inline, map[string]any{"caption": "x"}); r.Status != 401 {
			t.Errorf("no session: %d", r.Status)
		}
		l := apitest.Items(t, apitest.Must(t, f.a.Do("GET", base, nil), 200))
		if l[0].(map[string]any)["caption"] != "Entry on the retest" {
			t.Fatalf("a refused edit changed the caption: %v", l)
		}
	})

	t.Run("ObjectStorage", func(t *testing.T) {
		on := restartWith(t, f.srv, minio.Config())
		a := login(t, on, "a@example.com")
		stored := apitest.Object(t, apitest.Must(t, upload(t, a, base, map[string][]byte{"file": jpegBytes}, "image/jpeg"), 201), "image")["id"].(string)
		key := storedKey(t, on, stored)
		for imageID, caption := range map[string]string{stored: "Exit into strength", inline: ""} {
			img := apitest.Object(t, apitest.Must(t, a.Do("PATCH", base+"/"+imageID, map[string]any{"caption": caption}), 200), "image")
			if img["caption"] != caption {
				t.Fatalf("image %s: %v", imageID, img)
			}
		}
		if storedKey(t, on, stored) != key || !objectExists(t, on.App.Objects, key) {
			t.Fatal("the edit moved the object")
		}
		r := apitest.Must(t, a.Do("GET", base+"/"+stored, nil), 200)
		if string(r.Body) != string(jpegBytes) {
			t.Fatal("the bytes changed")
		}
		l := apitest.Items(t, apitest.Must(t, a.Do("GET", base, nil), 200))
		if len(l) != 2 || l[0].(map[string]any)["caption"] != "" || l[1].(map[string]any)["caption"] != "Exit into strength" {
			t.Fatalf("list %v", l)
		}
	})
}

func TestBarsAndUnrealized(t *testing.T) {
	p := marketProvider(t)
	srv := apitest.Start(t, marketConfig(t, p), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	account := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")["id"].(string)
	long := newPosition(t, a, account, "AAPL", "stock", "long", nil, fill("entry", "10", "100", "0", at(entryAt)), fill("exit", "11", "100", "0", at(exitAt)))
	short := newPosition(t, a, account, "MSFT", "stock", "short", nil, fill("entry", "10", "100", "0", at(entryAt)), fill("exit", "9.5", "100", "0", at(exitAt)))

	t.Run("Bars", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", "/api/positions/"+long+"/bars", nil), 200)
		got := body(t, r)
		bars := got["bars"].([]any)
		// Held 5 minutes: 1-minute bars with 20 of margin: 13:47 to 14:32.
		if got["resolution"] != "1" || got["from"] != "2025-06-02T13:47:00Z" || got["to"] != "2025-06-02T14:32:00Z" || len(bars) != 46 {
			t.Fatalf("bars %v %v %v (%d)", got["resolution"], got["from"], got["to"], len(bars))
		}
		// Only the bars of 14:07 to 14:12 count: not 14:05's 8 nor 14:14's 13.
		if got["maePrice"] != "9.4" || got["mfePrice"] != "11.35" || got["heldFrom"] != "2025-06-02T14:07:00Z" {
			t.Fatalf("long excursions %v %v", got["maePrice"], got["mfePrice"])
		}
		if bar := bars[0].(map[string]any); bar["time"] != "2025-06-02T13:47:00Z" || bar["high"] != "10.5" || bar["volume"] != "1200" {
			t.Fatalf("bar %v", bar)
		}
		got = body(t, apitest.Must(t, a.Do("GET", "/api/positions/"+short+"/bars", nil), 200))
		if got["maePrice"] != "11.35" || got["mfePrice"] != "9.4" {
			t.Fatalf("short excursions %v %v", got["maePrice"], got["mfePrice"])
		}
		// The bars' MAE and MFE are accepted as they are.
		apitest.Must(t, a.Do("PATCH", "/api/positions/"+short, map[string]any{"maePrice": "11.35", "mfePrice": "9.4"}), 200)

		// A fill outside the bars' range (another feed's prints) widens it:
		// the excursions stay ones the position's check accepts.
		wide := newPosition(t, a, account, "AAPL", "stock", "long", nil, fill("entry", "9.2", "100", "0", at(entryAt)), fill("exit", "12", "100", "0", at(exitAt)))
		got = body(t, apitest.Must(t, a.Do("GET", "/api/positions/"+wide+"/bars", nil), 200))
		if got["maePrice"] != "9.2" || got["mfePrice"] != "12" {
			t.Fatalf("excursions beyond the bars %v %v", got["maePrice"], got["mfePrice"])
		}
		apitest.Must(t, a.Do("PATCH", "/api/positions/"+wide, map[string]any{"maePrice": got["maePrice"], "mfePrice": got["mfePrice"]}), 200)
	})

	t.Run("ResolutionAndWindow", func(t *testing.T) {
		path := "/api/positions/" + long + "/bars"
		// The trader's 5 minutes: 20 bars of margin on whole bars, 12:25 to 15:55.
		got := body(t, apitest.Must(t, a.Do("GET", path+"?resolution=5", nil), 200))
		if got["resolution"] != "5" || got["from"] != "2025-06-02T12:25:00Z" || got["to"] != "2025-06-02T15:55:00Z" {
			t.Fatalf("5 minutes: %v %v %v", got["resolution"], got["from"], got["to"])
		}
		// The whole session: the trade's day and the one before in the trader's zone (UTC here), at 15 minutes by default, or as asked.
		got = body(t, apitest.Must(t, a.Do("GET", path+"?window=session", nil), 200))
		if got["resolution"] != "15" || got["from"] != "2025-06-01T00:00:00Z" || got["to"] != "2025-06-03T00:00:00Z" || got["heldFrom"] != "2025-06-02T14:07:00Z" {
			t.Fatalf("session: %v %v %v", got["resolution"], got["from"], got["to"])
		}
		got = body(t, apitest.Must(t, a.Do("GET", path+"?window=session&resolution=5", nil), 200))
		if got["resolution"] != "5" || got["from"] != "2025-06-01T00:00:00Z" {
			t.Fatalf("session at 5 minutes: %v %v", got["resolution"], got["from"])
		}
		// In Tokyo the trade (23:07 there) is on June 2 there: the session is
		// Tokyo's June 1 and 2, 15:00 UTC to 15:00 UTC, not the UTC days.
		tokyo := srv.Client(t)
		tokyo.Register("tokyo@example.com", "password1")
		apitest.Must(t, tokyo.Do("PUT", "/api/users/me/timezone", map[string]any{"timezone": "Asia/Tokyo"}), 200)
		tokyoAccount := apitest.Object(t, apitest.Must(t, tokyo.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")["id"].(string)
		late := newPosition(t, tokyo, tokyoAccount, "AAPL", "stock", "long", nil, fill("entry", "10", "100", "0", at(entryAt)), fill("exit", "11", "100", "0", at(exitAt)))
		got = body(t, apitest.Must(t, tokyo.Do("GET", "/api/positions/"+late+"/bars?window=session", nil), 200))
		if got["resolution"] != "15" || got["from"] != "2025-05-31T15:00:00Z" || got["to"] != "2025-06-02T15:00:00Z" {
			t.Fatalf("Tokyo's session: %v %v %v", got["resolution"], got["from"], got["to"])
		}
		calls := p.Calls()
		for _, tc := range []struct{ query, field, message string }{
			{"resolution=2", "resolution", "must be one of 1, 5, 15, 30, 60, D or W"},
			{"resolution=d", "resolution", "must be one of 1, 5, 15, 30, 60, D or W"},
			{"window=day", "window", "must be hold or session"},
			// Two days of 1-minute bars are more than one answer holds.
			{"window=session&resolution=1", "resolution", "is too fine for this span: 2880 bars, at most 2000; choose 5 or coarser"},
		} {
			r := a.Do("GET", path+"?"+tc.query, nil)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || r.DetailMessage(tc.field) != tc.message {
				t.Errorf("%s: %d %s", tc.query, r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		}
		if p.Calls() != calls {
			t.Error("a refused query reached the provider")
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		draft := newPosition(t, a, account, "AAPL", "stock", "long", nil)
		option := newPosition(t, a, account, "AAPL  250620C00200000", "option", "long", nil, fill("entry", "1.5", "1", "0", at(entryAt)))
		for _, tc := range []struct {
			c    *apitest.Client
			path string
		}{
			{b, "/api/positions/" + long + "/bars"}, {b, "/api/positions/" + long + "/unrealized"},
			{a, "/api/positions/" + missingID + "/bars"}, {a, "/api/positions/nope/unrealized"},
			{a, "/api/positions/" + draft + "/bars"},
			{a, "/api/positions/" + long + "/unrealized"}, // closed
		} {
			r := tc.c.Do("GET", tc.path, nil)
			if r.Status != 404 {
				t.Errorf("%s: %d %s", tc.path, r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
		}
		// An option shows its underlying's bars, without excursions (the
		// underlying's prices are not its premiums).
		got := body(t, apitest.Must(t, a.Do("GET", "/api/positions/"+option+"/bars", nil), 200))
		if got["symbol"] != "AAPL" || got["source"] != "Finnhub" || got["maePrice"] != nil || len(got["bars"].([]any)) == 0 {
			t.Errorf("option bars %v %v %v", got["symbol"], got["source"], got["maePrice"])
		}
		if r := srv.Client(t).Do("GET", "/api/positions/"+long+"/bars", nil); r.Status != 401 {
			t.Errorf("no session: %d", r.Status)
		}
	})

	t.Run("Unrealized", func(t *testing.T) {
		openLong := newPosition(t, a, account, "AAPL", "stock", "long", nil, fill("entry", "250", "100", "0", at(entryAt)))
		openShort := newPosition(t, a, account, "MSFT", "stock", "short", nil, fill("entry", "270", "10", "0", at(entryAt)))
		for id, want := range map[string]string{openLong: "1174.0000", openShort: "82.6000"} {
			got := body(t, apitest.Must(t, a.Do("GET", "/api/positions/"+id+"/unrealized", nil), 200))
			if got["unrealizedPnl"] != want || got["quote"].(map[string]any)["price"] != "261.74" {
				t.Errorf("%s: %v, want %s", id, got, want)
			}
		}
	})

	t.Run("ProviderErrors", func(t *testing.T) {
		rl := newPosition(t, a, account, "RL", "stock", "long", nil, fill("entry", "10", "1", "0", at(entryAt)))
		r := a.Do("GET", "/api/positions/"+rl+"/bars", nil)
		if r.Status != 502 || r.ErrorCode() != "" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		apitest.CheckErrorShape(t, r)
		if strings.Contains(string(r.Body), quoteKey) {
			t.Fatal("the key reached the client")
		}

		// The group with a 200 ms provider timeout, on the same database.
		quotes := market.NewQuotes(srv.App.Config.Market, nil, srv.App.Now, srv.App.Log)
		quotes.Timeout = 200 * time.Millisecond
		router := httpx.Mux([]httpx.Group{authgroup.Group(srv.App), positions.NewGroup(srv.App, quotes)}, nil)
		hs := httptest.NewServer(srv.App.Serve(router))
		t.Cleanup(hs.Close)
		fast := login(t, &apitest.Server{Server: hs, App: srv.App}, "a@example.com")
		slow := newPosition(t, a, account, "SLOW", "stock", "long", nil, fill("entry", "10", "1", "0", at(entryAt)))
		start := time.Now()
		for _, path := range []string{"/bars", "/unrealized"} {
			r := fast.Do("GET", "/api/positions/"+slow+path, nil)
			if r.Status != 504 || r.ErrorCode() != "" {
				t.Fatalf("%s: %d %s", path, r.Status, r.Body)
			}
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Fatalf("answered after %v", took)
		}
	})
}

// TestMarketLimit: the bars and unrealised P&L routes share a limit of 60
// look-ups a minute per user, cached answers included.
func TestMarketLimit(t *testing.T) {
	p := marketProvider(t)
	srv := apitest.Start(t, marketConfig(t, p), functions.All)
	a := srv.Client(t)
	a.Register("a@example.com", "password1")
	account := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")["id"].(string)
	id := newPosition(t, a, account, "AAPL", "stock", "long", nil, fill("entry", "250", "1", "0", at(entryAt)))
	for i := range 60 {
		path := "/api/positions/" + id + []string{"/bars", "/unrealized"}[i%2]
		apitest.Must(t, a.Do("GET", path, nil), 200)
	}
	r := a.Do("GET", "/api/positions/"+id+"/bars", nil)
	if r.Status != 429 || r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("61st: %d %s", r.Status, r.Body)
	}
	if p.Calls() != 2 {
		t.Fatalf("%d provider calls: the answers are cached", p.Calls())
	}
}

func TestMarketRoutesWithoutProvider(t *testing.T) {
	f := setup(t, nil)
	id := newPosition(t, f.a, f.account, "AAPL", "stock", "long", nil, fill("entry", "10", "1", "0", at(entryAt)))
	for path, words := range map[string]string{"/bars": "upload a bars file (CSV)", "/unrealized": `"not found"`} {
		r := f.a.Do("GET", "/api/positions/"+id+path, nil)
		if r.Status != 404 || r.ErrorCode() != "" || !strings.Contains(string(r.Body), words) {
			t.Fatalf("%s: %d %s", path, r.Status, r.Body)
		}
	}
}

// With ENCRYPTION_KEY set, an edited caption is sealed like one given at
// upload.
func TestEditedCaptionEncryptedAtRest(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{9}, 32)
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	c.Register("private@example.com", "password1")
	account := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")["id"].(string)
	id := newPosition(t, c, account, "AAPL", "stock", "long", nil)
	base := "/api/positions/" + id + "/images"
	img := apitest.Object(t, apitest.Must(t, upload(t, c, base, map[string][]byte{"file": pngBytes}, "image/png"), 201), "image")["id"].(string)
	if got := apitest.Object(t, apitest.Must(t, c.Do("PATCH", base+"/"+img, map[string]any{"caption": "my hidden edge"}), 200), "image")["caption"]; got != "my hidden edge" {
		t.Fatalf("answered caption %v", got)
	}
	var stored string
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT caption FROM position_images WHERE id = $1`, img).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "tj1:") || strings.Contains(stored, "hidden") {
		t.Fatalf("stored in the clear: %q", stored)
	}
}
