package deploy_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"tradejournal/deploy"
	"tradejournal/migrations"
	"tradejournal/shared/auth"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/httpx"
	"tradejournal/shared/jobs"
	"tradejournal/shared/market/markettest"
)

// smoke is the first request each route group's function gets after its
// cold start: a route of its own that answers without setting anything up
// first. A group added later without an entry gets its first
// wildcard-free GET route, which must not fail with a 5xx.
var smoke = map[string]struct {
	req    request
	status int
}{
	"health":      {request{method: "GET", path: "/api/health"}, http.StatusOK},
	"users":       {request{method: "PUT", path: "/api/users/me/timezone", body: `{"timezone":"Europe/Berlin"}`}, http.StatusOK},
	"admin":       {request{method: "GET", path: "/api/admin/users?limit=5"}, http.StatusOK},
	"calculator":  {request{method: "POST", path: "/api/calculator", body: `{"mode":"stock","direction":"long","entryPrice":"100","stopLoss":"95","dollarRisk":"100"}`}, http.StatusOK},
	"symbols":     {request{method: "GET", path: "/api/symbols/search?q=AA"}, http.StatusOK},
	"appconfig":   {request{method: "GET", path: "/api/config"}, http.StatusOK},
	"currency":    {request{method: "GET", path: "/api/dashboard/totals"}, http.StatusOK},
	"performance": {request{method: "GET", path: "/api/performance"}, http.StatusOK},
	"accounts":    {request{method: "GET", path: "/api/accounts"}, http.StatusOK},
	"positions":   {request{method: "GET", path: "/api/positions"}, http.StatusOK},
	"billing":     {request{method: "GET", path: "/api/billing/packs"}, http.StatusOK},
	"csvimport":   {request{method: "GET", path: "/api/csv-import/presets"}, http.StatusOK},
	// Through the Function URL's streaming protocol (the prelude, eight NUL
	// bytes, the body).
	"assistant": {request{method: "GET", path: "/api/assistant/conversations"}, http.StatusOK},
}

// coldStart is one function's figures.
type coldStart struct {
	name     string
	size     int64
	initTime time.Duration
	first    string
}

// TestBootstrapsOnTheRuntimeAPI builds every function's bootstrap with the
// Makefile rule sam build runs and drives each through the Lambda runtime
// API with real API Gateway v2 events, against a real PostgreSQL database,
// configured as template.yaml configures them (transaction-pooler mode, a
// small pool, metrics absent). It logs each function's binary size and
// cold start: process start to the first answer.
func TestBootstrapsOnTheRuntimeAPI(t *testing.T) {
	bins := bootstraps(t)
	groups := routeGroups(t)
	sec := markettest.NewSEC(t, markettest.TickerFile(markettest.Known))
	const adminEmail = "operator@example.com"
	env := []string{
		"DATABASE_URL=" + dbtest.URL(t),
		"DB_TRANSACTION_POOLER=true",
		"DB_POOL_SIZE=2",
		"LOG_LEVEL=info",
		"SEED_ADMIN_EMAIL=" + adminEmail,
		"SEC_TICKERS_URL=" + sec.FileURL(),
		"ENCRYPTION_KEY=" + strings.Repeat("QUFB", 10) + "QUE=", // 32 bytes, base64
		// The assistant on, so its function answers; no turn is run, so
		// the provider address is never called.
		"ASSISTANT_API_KEY=sk-deploy-harness", "ASSISTANT_MODEL=m", "ASSISTANT_BASE_URL=http://127.0.0.1:1/v1",
		"ASSISTANT_INPUT_PRICE_PER_MTOK=1", "ASSISTANT_OUTPUT_PRICE_PER_MTOK=1",
	}
	var figures []coldStart
	record := func(f *function, first string) {
		figures = append(figures, coldStart{name: f.name, size: bins[f.name].size, initTime: f.initTime, first: first})
	}
	groupNamed := func(name string) *httpx.Group {
		for i := range groups {
			if groups[i].Name == name {
				return &groups[i]
			}
		}
		t.Fatalf("no route group %s", name)
		return nil
	}
	start := func(name string, group *httpx.Group) *function {
		b, ok := bins[name]
		if !ok {
			t.Fatalf("no bootstrap was built for %s (functions/%s/lambda/main.go)", name, name)
		}
		return startFunction(t, name, b.path, group, env)
	}

	// The auth function first: the operator registers, so the functions
	// started next bootstrap the first admin at their cold start.
	authFn := start("auth", groupNamed("auth"))
	if anon := authFn.http(t, request{method: "GET", path: "/api/auth/me"}); anon.StatusCode != http.StatusUnauthorized {
		t.Errorf("me without a cookie: %d, want 401", anon.StatusCode)
	}
	record(authFn, "GET /api/auth/me (no cookie: 401)")
	reg := authFn.http(t, request{method: "POST", path: "/api/auth/register",
		body: `{"email":"` + adminEmail + `","password":"correct horse battery staple","timezone":"UTC"}`})
	if reg.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", reg.StatusCode, reg.body)
	}
	cookie := sessionCookie(t, reg.Cookies)
	if len(reg.Headers["Set-Cookie"]+reg.Headers["set-cookie"]) > 0 {
		t.Errorf("Set-Cookie went in headers %v; payload v2 carries cookies in the cookies field", reg.Headers)
	}

	t.Run("AuthCookieAndBase64", func(t *testing.T) {
		me := authFn.http(t, request{method: "GET", path: "/api/auth/me", cookies: []string{cookie}})
		if me.StatusCode != http.StatusOK || !strings.Contains(string(me.body), adminEmail) {
			t.Fatalf("me with the cookie: %d %s", me.StatusCode, me.body)
		}
		login := authFn.http(t, request{method: "POST", path: "/api/auth/login", base64: true,
			body: `{"email":"` + adminEmail + `","password":"correct horse battery staple"}`})
		if login.StatusCode != http.StatusOK {
			t.Fatalf("login with a base64 body: %d %s", login.StatusCode, login.body)
		}
		sessionCookie(t, login.Cookies)
	})

	fns := map[string]*function{"auth": authFn}
	for i := range groups {
		g := &groups[i]
		if g.Name == "auth" {
			continue
		}
		fn := start(g.Name, g)
		fns[g.Name] = fn
		req, status, generic := smokeRequest(t, g)
		req.cookies = []string{cookie}
		res := fn.http(t, req)
		record(fn, req.method+" "+req.path)
		switch {
		case generic && res.StatusCode >= 500:
			t.Errorf("%s: %s %s answered %d %s", g.Name, req.method, req.path, res.StatusCode, res.body)
		case !generic && res.StatusCode != status:
			t.Errorf("%s: %s %s answered %d, want %d: %s", g.Name, req.method, req.path, res.StatusCode, status, res.body)
		}
		if res.Headers["Content-Type"] == "" && res.Headers["content-type"] == "" && len(res.body) > 0 {
			t.Errorf("%s: no Content-Type in %v", g.Name, res.Headers)
		}
	}

	t.Run("Health", func(t *testing.T) {
		h := fns["health"].http(t, request{method: "GET", path: "/api/health"})
		if h.StatusCode != 200 || h.json["version"] != buildVersion || h.json["database"] != "up" {
			t.Errorf("health: %d %s; want the version stamped by BUILD_VERSION (%s) and the database up", h.StatusCode, h.body, buildVersion)
		}
	})

	t.Run("AdminSeededAtColdStart", func(t *testing.T) {
		res := fns["admin"].http(t, request{method: "GET", path: "/api/admin/users", cookies: []string{cookie}})
		if res.StatusCode != 200 || !strings.Contains(string(res.body), adminEmail) {
			t.Errorf("admin list: %d %s", res.StatusCode, res.body)
		}
	})

	t.Run("UnmatchedGoesToTheDefaultRoute", func(t *testing.T) {
		fn := fns[deploy.DefaultRouteGroup]
		for _, req := range []request{{method: "GET", path: "/api/no-such-route"}, {method: "DELETE", path: "/api/health"}} {
			res := fn.http(t, req)
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s through $default: %d %s, want the documented 404", req.method, req.path, res.StatusCode, res.body)
			}
		}
	})

	t.Run("MalformedEventIsAnInvocationError", func(t *testing.T) {
		fn := fns["health"]
		out := fn.invoke(t, []byte(`"not an API Gateway event"`))
		if out.ok || out.errorType == "" {
			t.Fatalf("a malformed event answered ok=%v type=%q %s; want POST .../error with an error type", out.ok, out.errorType, out.body)
		}
		var doc struct {
			ErrorMessage string `json:"errorMessage"`
		}
		if err := json.Unmarshal(out.body, &doc); err != nil || doc.ErrorMessage == "" {
			t.Errorf("error document %s: want {errorMessage, errorType}", out.body)
		}
		// The process survives and serves the next event.
		if h := fn.http(t, request{method: "GET", path: "/api/health"}); h.StatusCode != 200 {
			t.Errorf("after an error: %d", h.StatusCode)
		}
	})

	t.Run("Scheduled", func(t *testing.T) {
		fn := start("scheduled", nil)
		out := fn.invoke(t, []byte(`{"jobs":["wallet-sweep","csv-import-cleanup","symbol-refresh"]}`))
		record(fn, "the Cleanup schedule's jobs")
		if !out.ok {
			t.Fatalf("cleanup jobs failed (%s): %s", out.errorType, out.body)
		}
		var rep jobs.Report
		if err := json.Unmarshal(out.body, &rep); err != nil || len(rep.Jobs) != 3 {
			t.Fatalf("report %s (%v)", out.body, err)
		}
		for _, j := range rep.Jobs {
			if j.Error != "" || j.Skipped != "" {
				t.Errorf("job %+v", j)
			}
		}
		if sec.Calls() != 1 {
			t.Errorf("the symbol refresh fetched the ticker file %d times, want 1", sec.Calls())
		}
		out = fn.invoke(t, []byte(`{"version":"0","detail-type":"Scheduled Event","source":"aws.events","detail":{}}`))
		if !out.ok || !strings.Contains(string(out.body), `"skipped":"email is not configured"`) {
			t.Errorf("a plain scheduled event: ok=%v %s; want every job, the outbox skipped", out.ok, out.body)
		}
		out = fn.invoke(t, []byte(`{"jobs":["no-such-job"]}`))
		if out.ok || !strings.Contains(string(out.body), "unknown job") {
			t.Errorf("an unknown job: ok=%v %s; want an invocation error", out.ok, out.body)
		}
	})

	t.Run("Migrate", func(t *testing.T) {
		empty := emptyDatabase(t)
		menv := append(slices.Clone(env), "DATABASE_URL=postgres://nobody@127.0.0.1:1/pooler-not-used", "DIRECT_DATABASE_URL="+empty)
		b := bins["migrate"]
		fn := startFunction(t, "migrate", b.path, nil, menv)
		out := fn.invoke(t, []byte(`{}`))
		figures = append(figures, coldStart{name: "migrate", size: b.size, initTime: fn.initTime, first: "apply every migration (empty database)"})
		if !out.ok {
			t.Fatalf("migrate failed (%s): %s", out.errorType, out.body)
		}
		want, err := fs.Glob(migrations.FS, "*.sql")
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		var res struct {
			Applied []string `json:"applied"`
		}
		if err := json.Unmarshal(out.body, &res); err != nil || !slices.Equal(res.Applied, want) {
			t.Fatalf("migrate applied %s (%v), want %v through DIRECT_DATABASE_URL", out.body, err, want)
		}
		out = fn.invoke(t, []byte(`{}`))
		if !out.ok || string(out.body) != `{"applied":[]}` {
			t.Errorf("second run: ok=%v %s, want nothing to apply", out.ok, out.body)
		}
	})

	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "function\tbinary (%s)\tinit to first answer\tfirst invocation\t\n", runtime.GOARCH)
	for _, f := range figures {
		fmt.Fprintf(w, "%s\t%.1f MB\t%d ms\t%s\t\n", f.name, float64(f.size)/1e6, f.initTime.Milliseconds(), f.first)
		// A hang guard, not a speed target: the figures are the table's (a
		// loaded two-core machine took 2.8 s to apply 44 migrations).
		if f.initTime > 30*time.Second {
			t.Errorf("%s took %s from process start to its first answer", f.name, f.initTime)
		}
	}
	w.Flush()
	t.Logf("cold starts through the runtime API (goal: under 100 ms):\n%s", table.String())
}

// smokeRequest is the group's first request; generic reports that it was
// made up for a group without an entry in smoke.
func smokeRequest(t *testing.T, g *httpx.Group) (req request, status int, generic bool) {
	t.Helper()
	if s, ok := smoke[g.Name]; ok {
		return s.req, s.status, false
	}
	for _, rt := range g.Routes {
		m, path, err := deploy.APIRoute(rt.Pattern)
		if err == nil && m == "GET" && !strings.Contains(path, "{") {
			return request{method: m, path: path}, 0, true
		}
	}
	m, path, err := deploy.APIRoute(g.Routes[0].Pattern)
	if err != nil {
		t.Fatal(err)
	}
	path = strings.NewReplacer("{", "", "}", "", "+", "").Replace(path)
	return request{method: m, path: path}, 0, true
}

func sessionCookie(t *testing.T, cookies []string) string {
	t.Helper()
	for _, c := range cookies {
		if pair, _, _ := strings.Cut(c, ";"); strings.HasPrefix(pair, auth.CookieName+"=") {
			return pair
		}
	}
	t.Fatalf("no %s cookie in the response's cookies field %q", auth.CookieName, cookies)
	return ""
}

// maxBootstrapBytes is the size goal for a shipped bootstrap: a smaller
// package is a shorter cold start.
const maxBootstrapBytes = 15_000_000

// TestShippedBinarySizes builds every function as it ships (linux/arm64,
// the Makefile rule sam build runs), fails when a bootstrap passes
// maxBootstrapBytes, and logs each size and its deployment zip's:
//
//	go test -run TestShippedBinarySizes -v ./deploy/
func TestShippedBinarySizes(t *testing.T) {
	dir := t.TempDir()
	bins, err := buildAll(root(t), dir, "arm64")
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(bins))
	for n := range bins {
		names = append(names, n)
	}
	slices.Sort(names)
	var table bytes.Buffer
	w := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "function\tbootstrap (arm64)\tzip\t")
	for _, n := range names {
		z, err := zipSize(bins[n].path)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "%s\t%.2f MB\t%.2f MB\t\n", n, float64(bins[n].size)/1e6, float64(z)/1e6)
		if bins[n].size > maxBootstrapBytes {
			t.Errorf("%s: bootstrap is %.2f MB, over the %.0f MB goal", n, float64(bins[n].size)/1e6, maxBootstrapBytes/1e6)
		}
	}
	w.Flush()
	t.Logf("shipped sizes:\n%s", table.String())
}

// zipSize is the size of the deployment package sam builds: the bootstrap,
// deflated.
func zipSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: "bootstrap", Method: zip.Deflate}
	hdr.SetMode(0o755)
	e, err := zw.CreateHeader(hdr)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(e, f); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(buf.Len()), nil
}
