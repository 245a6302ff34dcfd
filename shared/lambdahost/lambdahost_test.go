package lambdahost_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"tradejournal/functions"
	"tradejournal/shared/analytics"
	"tradejournal/shared/analytics/analyticstest"
	"tradejournal/shared/apitest"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/lambdahost"
)

// hosts runs one App behind both hosts: every group as its own Lambda
// function (invoked in-process with real API Gateway v2 events), and all
// groups on the local host's mux over HTTP.
type hosts struct {
	srv     *apitest.Server
	lambdas []lambdaFn
	// route is the metrics route label of the last Lambda invocation.
	route string
}

type lambdaFn struct {
	group  httpx.Group
	handle lambdahost.EventHandler
}

func start(t *testing.T) *hosts {
	t.Helper()
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := &hosts{srv: srv}
	observe := func(_ *http.Request, rec *httpx.Recorder, _ time.Time) { h.route = rec.Route }
	for _, g := range functions.All(srv.App) {
		h.lambdas = append(h.lambdas, lambdaFn{group: g, handle: lambdahost.Handler(httpx.Serve(g.Handler(), log, observe))})
	}
	return h
}

// request is one request as both hosts receive it.
type request struct {
	method, path string // path may carry a query
	sourceIP     string // the Lambda event's client address; the local host sends it as X-Real-IP
	headers      map[string]string
	cookies      []string // "name=value" pairs
	body         string
	base64       bool // send the Lambda body base64-encoded
}

// answer is one host's response.
type answer struct {
	status  int
	headers http.Header
	cookies []string // Set-Cookie values
	body    []byte
	json    map[string]any
}

func (a answer) code() string {
	e, _ := a.json["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// function returns the Lambda function whose group mounts path, as API
// Gateway routes would.
func (h *hosts) function(t *testing.T, path string) lambdaFn {
	t.Helper()
	for _, fn := range h.lambdas {
		for _, m := range fn.group.Mounts {
			if path == m || strings.HasSuffix(m, "/") && strings.HasPrefix(path, m) {
				return fn
			}
		}
	}
	t.Fatalf("no group mounts %s", path)
	return lambdaFn{}
}

func event(req request) events.APIGatewayV2HTTPRequest {
	path, query, _ := strings.Cut(req.path, "?")
	body := req.body
	if req.base64 {
		body = base64.StdEncoding.EncodeToString([]byte(body))
	}
	headers := map[string]string{"user-agent": "lambdahost-test"}
	for k, v := range req.headers {
		headers[strings.ToLower(k)] = v
	}
	return events.APIGatewayV2HTTPRequest{
		Version:         "2.0",
		RouteKey:        "$default",
		RawPath:         path,
		RawQueryString:  query,
		Headers:         headers,
		Cookies:         req.cookies,
		Body:            body,
		IsBase64Encoded: req.base64,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			DomainName: "api.example.com",
			Stage:      "$default",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method:    req.method,
				Path:      path,
				Protocol:  "HTTP/1.1",
				SourceIP:  req.sourceIP,
				UserAgent: "lambdahost-test",
			},
		},
	}
}

func (h *hosts) lambda(t *testing.T, req request) answer {
	t.Helper()
	path, _, _ := strings.Cut(req.path, "?")
	res, err := h.function(t, path).handle(context.Background(), event(req))
	if err != nil {
		t.Fatalf("lambda %s %s: %v", req.method, req.path, err)
	}
	body := []byte(res.Body)
	if res.IsBase64Encoded {
		if body, err = base64.StdEncoding.DecodeString(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	hdr := http.Header{}
	for k, v := range res.Headers {
		hdr.Set(k, v)
	}
	a := answer{status: res.StatusCode, headers: hdr, cookies: res.Cookies, body: body}
	_ = json.Unmarshal(body, &a.json)
	return a
}

func (h *hosts) local(t *testing.T, req request) answer {
	t.Helper()
	r, err := http.NewRequest(req.method, h.srv.URL+req.path, strings.NewReader(req.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range req.headers {
		r.Header.Set(k, v)
	}
	if req.sourceIP != "" {
		r.Header.Set("X-Real-IP", req.sourceIP) // believed from the loopback peer
	}
	for _, c := range req.cookies {
		r.Header.Add("Cookie", c)
	}
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("local %s %s: %v", req.method, req.path, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	a := answer{status: res.StatusCode, headers: res.Header, cookies: res.Header.Values("Set-Cookie"), body: body}
	_ = json.Unmarshal(body, &a.json)
	return a
}

// same fails unless both hosts gave the same status and the same JSON body.
func same(t *testing.T, lam, loc answer) {
	t.Helper()
	if lam.status != loc.status {
		t.Fatalf("lambda %d, local %d\nlambda: %s\nlocal:  %s", lam.status, loc.status, lam.body, loc.body)
	}
	var lj, oj any
	_ = json.Unmarshal(lam.body, &lj)
	_ = json.Unmarshal(loc.body, &oj)
	if !reflect.DeepEqual(lj, oj) || (lj == nil) != (len(lam.body) == 0) {
		t.Fatalf("bodies differ\nlambda: %s\nlocal:  %s", lam.body, loc.body)
	}
	if lct, oct := lam.headers.Get("Content-Type"), loc.headers.Get("Content-Type"); lam.status != 204 && lct != oct {
		t.Fatalf("content type: lambda %q, local %q", lct, oct)
	}
	if lam.headers.Get("X-Request-Id") == "" {
		t.Fatal("lambda answer without X-Request-Id")
	}
}

func sessionCookie(t *testing.T, setCookies []string) (*http.Cookie, string) {
	t.Helper()
	for _, sc := range setCookies {
		c, err := http.ParseSetCookie(sc)
		if err == nil && c.Name == auth.CookieName {
			return c, c.Name + "=" + c.Value
		}
	}
	t.Fatalf("no %s cookie in %q", auth.CookieName, setCookies)
	return nil, ""
}

const jsonType = "application/json"

func TestLambdaMatchesLocalHost(t *testing.T) {
	h := start(t)
	jsonHeader := map[string]string{"Content-Type": jsonType}

	var lambdaUser map[string]any
	var lambdaCookie string
	t.Run("RegisterBase64Body", func(t *testing.T) {
		lam := h.lambda(t, request{method: "POST", path: "/api/auth/register", sourceIP: "198.51.100.10", headers: jsonHeader,
			body: `{"email":"lambda@example.com","password":"password1"}`, base64: true})
		loc := h.local(t, request{method: "POST", path: "/api/auth/register", sourceIP: "198.51.100.11", headers: jsonHeader,
			body: `{"email":"local@example.com","password":"password1"}`})
		if lam.status != 201 || loc.status != 201 {
			t.Fatalf("lambda %d %s; local %d %s", lam.status, lam.body, loc.status, loc.body)
		}
		if lam.headers.Get("Set-Cookie") != "" {
			t.Fatal("Set-Cookie left in the headers instead of the cookies field")
		}
		lc, pair := sessionCookie(t, lam.cookies)
		oc, _ := sessionCookie(t, loc.cookies)
		if !lc.HttpOnly || lc.Path != "/" || lc.SameSite != http.SameSiteLaxMode || lc.MaxAge != oc.MaxAge || lc.SameSite != oc.SameSite || lc.Secure != oc.Secure {
			t.Fatalf("lambda cookie %+v differs from local %+v", lc, oc)
		}
		lambdaCookie = pair
		lambdaUser = lam.json["user"].(map[string]any)
		locUser := loc.json["user"].(map[string]any)
		if lambdaUser["email"] != "lambda@example.com" {
			t.Fatalf("user %v", lambdaUser)
		}
		if !reflect.DeepEqual(keysOf(lambdaUser), keysOf(locUser)) {
			t.Fatalf("user fields: lambda %v, local %v", keysOf(lambdaUser), keysOf(locUser))
		}
	})
	if lambdaCookie == "" {
		t.FailNow()
	}

	t.Run("MeWithCookiesArray", func(t *testing.T) {
		for name, cookies := range map[string][]string{
			"OnlySession":  {lambdaCookie},
			"AmongOthers":  {"theme=dark", lambdaCookie, "_ga=GA1.1.1"},
			"SemicolonJar": {"theme=dark; " + lambdaCookie},
		} {
			t.Run(name, func(t *testing.T) {
				req := request{method: "GET", path: "/api/auth/me", sourceIP: "198.51.100.12", cookies: cookies}
				lam, loc := h.lambda(t, req), h.local(t, req)
				same(t, lam, loc)
				if lam.status != 200 || !reflect.DeepEqual(lam.json["user"], any(lambdaUser)) {
					t.Fatalf("me %d %s, want the registered user %v", lam.status, lam.body, lambdaUser)
				}
			})
		}
	})

	for _, tc := range []struct {
		name string
		req  request
		want int
		code string
	}{
		{"Health", request{method: "GET", path: "/api/health"}, 200, ""},
		{"MeSignedOut", request{method: "GET", path: "/api/auth/me"}, 401, "UNAUTHENTICATED"},
		{"MeForgedCookie", request{method: "GET", path: "/api/auth/me", cookies: []string{auth.CookieName + "=" + strings.Repeat("A", 43)}}, 401, "UNAUTHENTICATED"},
		{"AdminListSignedOut", request{method: "GET", path: "/api/admin/users?limit=5"}, 401, "UNAUTHENTICATED"},
		{"AdminListNonAdmin", request{method: "GET", path: "/api/admin/users", cookies: []string{lambdaCookie}}, 403, "ADMIN_REQUIRED"},
		{"UnknownPathUnderAuth", request{method: "GET", path: "/api/auth/nope"}, 404, ""},
		{"UnknownPathUnderUsers", request{method: "GET", path: "/api/users/nope", cookies: []string{lambdaCookie}}, 404, ""},
		{"WrongMethodHealth", request{method: "POST", path: "/api/health"}, 404, ""},
		{"MalformedJSON", request{method: "PUT", path: "/api/users/me/timezone", cookies: []string{lambdaCookie}, headers: jsonHeader, body: `{"timezone":`}, 400, "INVALID_JSON"},
		{"MalformedJSONBase64", request{method: "PUT", path: "/api/users/me/timezone", cookies: []string{lambdaCookie}, headers: jsonHeader, body: `{"timezone":`, base64: true}, 400, "INVALID_JSON"},
		{"RegisterMalformedJSON", request{method: "POST", path: "/api/auth/register", sourceIP: "198.51.100.13", headers: jsonHeader, body: `{"email":`, base64: true}, 400, "INVALID_JSON"},
		{"WrongContentType", request{method: "PUT", path: "/api/users/me/timezone", cookies: []string{lambdaCookie}, headers: map[string]string{"Content-Type": "text/plain"}, body: `{"timezone":"UTC"}`}, 400, "INVALID_JSON"},
		{"CharsetContentType", request{method: "PUT", path: "/api/users/me/timezone", cookies: []string{lambdaCookie}, headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: `{"timezone":"Asia/Tokyo"}`}, 200, ""},
		{"ValidationError", request{method: "PUT", path: "/api/users/me/timezone", cookies: []string{lambdaCookie}, headers: jsonHeader, body: `{"timezone":"Mars/Olympus"}`}, 400, "VALIDATION_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lam := h.lambda(t, tc.req)
			loc := h.local(t, tc.req)
			same(t, lam, loc)
			if lam.status != tc.want || lam.code() != tc.code {
				t.Fatalf("got %d %q, want %d %q: %s", lam.status, lam.code(), tc.want, tc.code, lam.body)
			}
			if tc.want == 404 {
				if _, has := lam.json["error"].(map[string]any)["code"]; has {
					t.Fatalf("404 with a code: %s", lam.body)
				}
			}
		})
	}

	t.Run("LocalSessionWorksOnLambda", func(t *testing.T) {
		loc := h.local(t, request{method: "POST", path: "/api/auth/login", sourceIP: "198.51.100.14", headers: jsonHeader,
			body: `{"email":"local@example.com","password":"password1"}`})
		_, pair := sessionCookie(t, loc.cookies)
		lam := h.lambda(t, request{method: "GET", path: "/api/auth/me", cookies: []string{pair}})
		if lam.status != 200 || lam.json["user"].(map[string]any)["email"] != "local@example.com" {
			t.Fatalf("%d %s", lam.status, lam.body)
		}
	})

	t.Run("LogoutClearsCookieThroughCookiesField", func(t *testing.T) {
		lam := h.lambda(t, request{method: "POST", path: "/api/auth/logout", cookies: []string{lambdaCookie}})
		if lam.status != 204 || len(lam.body) != 0 {
			t.Fatalf("%d %q", lam.status, lam.body)
		}
		c, _ := sessionCookie(t, lam.cookies)
		if c.Value != "" || c.MaxAge >= 0 {
			t.Fatalf("cookie not cleared: %+v", c)
		}
		if me := h.lambda(t, request{method: "GET", path: "/api/auth/me", cookies: []string{lambdaCookie}}); me.status != 401 {
			t.Fatalf("session alive after logout: %d", me.status)
		}
	})
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

var wildcard = regexp.MustCompile(`\{[^}]*\}`)

// TestEveryRouteSameOnBothHosts sends every route of every group, signed
// out and without a body, to its Lambda function and to the local host.
func TestEveryRouteSameOnBothHosts(t *testing.T) {
	h := start(t)
	n := 0
	for _, fn := range h.lambdas {
		for _, rt := range fn.group.Routes {
			method, path, ok := strings.Cut(rt.Pattern, " ")
			if !ok {
				t.Fatalf("route %q has no method", rt.Pattern)
			}
			path = wildcard.ReplaceAllString(path, "0196f3a0-0000-7000-8000-000000000000")
			n++
			t.Run(fn.group.Name+" "+rt.Pattern, func(t *testing.T) {
				req := request{method: method, path: path, sourceIP: fmt.Sprintf("198.51.100.%d", 100+n), headers: map[string]string{"Content-Type": jsonType}}
				lam, loc := h.lambda(t, req), h.local(t, req)
				same(t, lam, loc)
				// Dispatched to the declared route, or answered (401/403) by
				// the group's guard before dispatch. (A guard's answer is
				// labelled "unmatched" on Lambda, not "<mount>/*" as on the
				// local mux: only httpx.Mux labels mounts.)
				guarded := fn.group.Guard != nil && (lam.status == 401 || lam.status == 403)
				if want := httpx.RouteLabel(rt.Pattern); h.route != want && !guarded {
					t.Fatalf("route label %q on Lambda, want %q (%d %s)", h.route, want, lam.status, lam.body)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no routes")
	}
}

func TestSourceIPIsTheRateLimitKey(t *testing.T) {
	h := start(t)
	register := func(t *testing.T, i int, sourceIP string, headers map[string]string) answer {
		t.Helper()
		hdr := map[string]string{"Content-Type": jsonType}
		for k, v := range headers {
			hdr[k] = v
		}
		return h.lambda(t, request{method: "POST", path: "/api/auth/register", sourceIP: sourceIP, headers: hdr,
			body: fmt.Sprintf(`{"email":"u%d@example.com","password":"password1"}`, i), base64: i%2 == 0})
	}
	for i := range 5 {
		if r := register(t, i, "203.0.113.50", nil); r.status != 201 {
			t.Fatalf("registration %d: %d %s", i+1, r.status, r.body)
		}
	}
	t.Run("SixthFromSameSourceIP", func(t *testing.T) {
		r := register(t, 5, "203.0.113.50", nil)
		if r.status != 429 || r.code() != "RATE_LIMITED" {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if ra := r.headers.Get("Retry-After"); ra == "" || ra == "0" {
			t.Fatalf("Retry-After %q", ra)
		}
		if len(r.cookies) != 0 {
			t.Fatalf("cookie on a refused registration: %q", r.cookies)
		}
	})
	t.Run("ForgedXRealIPNotBelieved", func(t *testing.T) {
		r := register(t, 6, "203.0.113.50", map[string]string{"X-Real-IP": "198.51.100.77"})
		if r.status != 429 {
			t.Fatalf("X-Real-IP from a public source address escaped the limit: %d %s", r.status, r.body)
		}
	})
	t.Run("OtherSourceIPAllowed", func(t *testing.T) {
		if r := register(t, 7, "203.0.113.51", nil); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
	t.Run("LocalHostUnaffected", func(t *testing.T) {
		r := h.local(t, request{method: "POST", path: "/api/auth/register", headers: map[string]string{"Content-Type": jsonType},
			body: `{"email":"local@example.com","password":"password1"}`})
		if r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	})
}

// TestInvocationContextReachesHandler: the adapter must hand the invocation's
// context (and so the Lambda deadline) to the handler. An invocation whose
// context is already done cannot reach the database.
func TestInvocationContextReachesHandler(t *testing.T) {
	h := start(t)
	fn := h.function(t, "/api/health")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := fn.handle(ctx, event(request{method: "GET", path: "/api/health"}))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil || res.StatusCode != 200 || body["database"] != "down" {
		t.Fatalf("%d %s: the handler did not see the invocation's cancelled context", res.StatusCode, res.Body)
	}
	if res, _ := fn.handle(context.Background(), event(request{method: "GET", path: "/api/health"})); !strings.Contains(res.Body, `"database":"up"`) {
		t.Fatalf("live invocation: %s", res.Body)
	}
}

// TestAnalyticsSentBeforeInvocationReturns: the event of a register
// invocation is at the ingestion host when the invocation returns, with no
// flush by the test (the sender's own schedule is 10 s away).
func TestAnalyticsSentBeforeInvocationReturns(t *testing.T) {
	cfg := apitest.Config(t)
	sink := analyticstest.Enable(t, &cfg)
	srv := apitest.Start(t, cfg, functions.All)
	var authGroup httpx.Group
	for _, g := range functions.All(srv.App) {
		if g.Name == "auth" {
			authGroup = g
		}
	}
	handle := lambdahost.AppHandler(srv.App, authGroup)
	res, err := handle(context.Background(), event(request{method: "POST", path: "/api/auth/register",
		headers: map[string]string{"content-type": "application/json"}, sourceIP: "203.0.113.9",
		body: `{"email":"lambda@example.com","password":"password1"}`}))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("register: %v %d %s", err, res.StatusCode, res.Body)
	}
	if got := sink.Named(analytics.EventSignedUp); len(got) != 1 {
		t.Fatalf("%d signed-up events at the host when the invocation returned, want 1", len(got))
	}
	// An invocation that queues nothing makes no call.
	before := len(sink.Batches())
	if res, _ := handle(context.Background(), event(request{method: "GET", path: "/api/auth/me"})); res.StatusCode != 401 {
		t.Fatalf("me: %d", res.StatusCode)
	}
	if len(sink.Batches()) != before {
		t.Fatal("a batch was sent for an invocation without events")
	}
}
