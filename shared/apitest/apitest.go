// Package apitest starts the API (the route groups a test mounts, usually
// functions.All) against a fresh real database for a test, and drives it
// over HTTP like a client: a cookie jar, JSON bodies, and tables of request
// and expected response.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/app"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/httpx"
	"tradejournal/shared/metrics"
)

// Server is a running API on a fresh database.
type Server struct {
	*httptest.Server
	App *app.App
	// Metrics is the registry fed by the server when the configuration arms
	// metrics (as cmd/local does), else nil.
	Metrics *metrics.Metrics
}

// Config returns the configuration of a start with nothing set.
func Config(tb testing.TB) config.Config {
	tb.Helper()
	cfg, err := config.LoadFrom(func(string) (string, bool) { return "", false })
	if err != nil {
		tb.Fatalf("default config: %v", err)
	}
	return cfg
}

// Mount builds the route groups a test server serves: functions.All for
// the whole API as the local host mounts it (this package is shared/ and
// cannot import the groups itself), or nil for none.
type Mount func(*app.App) []httpx.Group

// Start runs the groups of mount with cfg (DB.URL is filled in with a fresh
// database) and stops them when the test ends.
func Start(tb testing.TB, cfg config.Config, mount Mount) *Server {
	tb.Helper()
	return StartAt(tb, cfg, app.SystemClock, mount)
}

// StartAt is Start with the given clock.
func StartAt(tb testing.TB, cfg config.Config, now func() time.Time, mount Mount) *Server {
	tb.Helper()
	return start(tb, cfg, now, slog.New(slog.NewTextHandler(io.Discard, nil)), mount)
}

// StartLogged is Start with the server logging to log, for tests that
// read what it logged.
func StartLogged(tb testing.TB, cfg config.Config, log *slog.Logger, mount Mount) *Server {
	tb.Helper()
	return start(tb, cfg, app.SystemClock, log, mount)
}

// StartOnDB runs the API with cfg on the migrated database at url (a
// private cluster the test restarts: dbtest.StartCluster).
func StartOnDB(tb testing.TB, cfg config.Config, url string, mount Mount) *Server {
	tb.Helper()
	cfg.DB.URL = url
	return startOn(tb, cfg, app.SystemClock, slog.New(slog.NewTextHandler(io.Discard, nil)), mount)
}

func start(tb testing.TB, cfg config.Config, now func() time.Time, log *slog.Logger, mount Mount) *Server {
	tb.Helper()
	cfg.DB.URL = dbtest.URL(tb)
	return startOn(tb, cfg, now, log, mount)
}

func startOn(tb testing.TB, cfg config.Config, now func() time.Time, log *slog.Logger, mount Mount) *Server {
	tb.Helper()
	a, err := app.New(context.Background(), cfg, log, now)
	if err != nil {
		tb.Fatalf("app: %v", err)
	}
	if err := a.Start(context.Background()); err != nil {
		tb.Fatalf("app start: %v", err)
	}
	var m *metrics.Metrics
	if cfg.Metrics.Enabled {
		if m, err = metrics.New(metrics.Options{Pool: a.DB, AppVersion: cfg.AppVersion, PoolMax: cfg.DB.PoolSize, Log: log}); err != nil {
			tb.Fatalf("metrics: %v", err)
		}
		a.Observe = m.Observe
	}
	srv := httptest.NewServer(Handler(a, mount))
	tb.Cleanup(func() { srv.Close(); a.Close() })
	return &Server{Server: srv, App: a, Metrics: m}
}

// Handler is the local host's handler for a with the groups of mount on
// one mux.
func Handler(a *app.App, mount Mount) http.Handler {
	var groups []httpx.Group
	if mount != nil {
		groups = mount(a)
	}
	return a.Serve(httpx.Mux(groups, nil))
}

// Client is one browser: it keeps its session cookie.
type Client struct {
	tb   testing.TB
	base string
	http *http.Client
}

// Client returns a new client with an empty cookie jar.
func (s *Server) Client(tb testing.TB) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{tb: tb, base: s.URL, http: &http.Client{Jar: jar}}
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

// ErrorCode is the error body's code, or "".
func (r Response) ErrorCode() string {
	e, _ := r.JSON["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// DetailMessage is the message of the error body's first detail on field,
// or "" when none names it.
func (r Response) DetailMessage(field string) string {
	e, _ := r.JSON["error"].(map[string]any)
	details, _ := e["details"].([]any)
	for _, d := range details {
		if d, _ := d.(map[string]any); d["field"] == field {
			m, _ := d["message"].(string)
			return m
		}
	}
	return ""
}

// Do sends a request. body may be nil, a string (sent as is) or any value
// (sent as JSON); strings and values go with Content-Type application/json.
func (c *Client) Do(method, path string, body any) Response {
	c.tb.Helper()
	req, err := c.request(context.Background(), method, path, body)
	if err != nil {
		c.tb.Fatalf("request: %v", err)
	}
	return c.Send(req)
}

// Open sends a request as Do does and returns the answer unread, for a
// streamed body; the caller closes it. Errors are returned, not fatal, so
// it may be called off the test's goroutine.
func (c *Client) Open(ctx context.Context, method, path string, body any) (*http.Response, error) {
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	return c.http.Do(req)
}

// request builds a request with body encoded as Do describes.
func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, fmt.Errorf("encode body: %w", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Send sends a prepared request (for custom headers).
func (c *Client) Send(req *http.Request) Response {
	c.tb.Helper()
	res, err := c.http.Do(req)
	if err != nil {
		c.tb.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	return ReadResponse(res)
}

// ReadResponse reads and decodes an answer's body; the caller closes it.
func ReadResponse(res *http.Response) Response {
	raw, _ := io.ReadAll(res.Body)
	out := Response{Status: res.StatusCode, Header: res.Header, Body: raw}
	_ = json.Unmarshal(raw, &out.JSON)
	return out
}

// NewRequest builds a request against the server for Send.
func (c *Client) NewRequest(method, path, body string) *http.Request {
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.tb.Fatalf("request: %v", err)
	}
	return req
}

// Register signs up a new user with this client and fails the test unless
// it succeeds.
func (c *Client) Register(email, password string) Response {
	c.tb.Helper()
	r := c.Do("POST", "/api/auth/register", map[string]string{"email": email, "password": password})
	if r.Status != http.StatusCreated {
		c.tb.Fatalf("register %s: %d %s", email, r.Status, r.Body)
	}
	return r
}

// Must fails the test unless r has the given status, and returns r.
func Must(tb testing.TB, r Response, status int) Response {
	tb.Helper()
	if r.Status != status {
		tb.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

// Object is the JSON object under key in r's body (an envelope's resource);
// the test fails without one.
func Object(tb testing.TB, r Response, key string) map[string]any {
	tb.Helper()
	m, ok := r.JSON[key].(map[string]any)
	if !ok {
		tb.Fatalf("no %q in %d %s", key, r.Status, r.Body)
	}
	return m
}

// Items is the items array of a list page in r's body; the test fails
// without one.
func Items(tb testing.TB, r Response) []any {
	tb.Helper()
	l, ok := r.JSON["items"].([]any)
	if !ok {
		tb.Fatalf("no items in %d %s", r.Status, r.Body)
	}
	return l
}

// Case is one row of an API table test.
type Case struct {
	Name   string
	Method string
	Path   string
	Body   any
	Status int
	// Code is the expected error code ("" for success or codeless errors).
	Code string
	// Field, when set, is a field a detail of the error must name.
	Field string
}

// Run sends each case with c and checks status and error code, and that
// every error answer has the documented shape.
func Run(t *testing.T, c *Client, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			r := c.Do(tc.Method, tc.Path, tc.Body)
			if r.Status != tc.Status {
				t.Fatalf("status %d, want %d: %s", r.Status, tc.Status, r.Body)
			}
			if got := r.ErrorCode(); got != tc.Code {
				t.Fatalf("code %q, want %q: %s", got, tc.Code, r.Body)
			}
			if tc.Field != "" && r.DetailMessage(tc.Field) == "" {
				t.Fatalf("no detail names %s: %s", tc.Field, r.Body)
			}
			CheckErrorShape(t, r)
		})
	}
}

// CheckErrorShape fails unless a 4xx/5xx answer is JSON with an error
// object carrying a message.
func CheckErrorShape(t testing.TB, r Response) {
	t.Helper()
	if r.Status < 400 {
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("error content type %q", ct)
	}
	e, ok := r.JSON["error"].(map[string]any)
	if !ok {
		t.Fatalf("error body without an error object: %s", r.Body)
	}
	if m, _ := e["message"].(string); m == "" {
		t.Fatalf("error without a message: %s", r.Body)
	}
}

// SessionCookie is the "name=value" pair of the session cookie among
// Set-Cookie values (a sign-in's answer), or "" when there is none.
func SessionCookie(setCookies []string) string {
	for _, c := range setCookies {
		if pair, _, _ := strings.Cut(c, ";"); strings.HasPrefix(pair, auth.CookieName+"=") {
			return pair
		}
	}
	return ""
}
