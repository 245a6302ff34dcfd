package deploy_test

// The web container's entrypoint (web/docker/start.sh) run as the image runs
// it, without a Docker engine: the script renders nginx's configuration from
// the environment, writes /config.js and /metrics, and execs a real nginx
// (Debian's package; make test installs it) on a loopback port, as an
// unprivileged user, in front of a real api.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"tradejournal/shared/buildinfo"
	"tradejournal/shared/testbin"
)

const (
	webDockerfile  = "web/Dockerfile"
	webStartScript = "web/docker/start.sh"
	// The metrics content type of spec part 4, byte for byte.
	webMetricsContentType = "text/plain; version=0.0.4"
)

// loopbackPort finds a free port in 3300-3399, the range these tests own on
// a shared machine.
func loopbackPort(t testing.TB) int {
	t.Helper()
	start := rand.IntN(100)
	for i := range 100 {
		port := 3300 + (start+i)%100
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			ln.Close()
			return port
		}
	}
	t.Fatal("no free loopback port in 3300-3399")
	return 0
}

// openTempDir is a temporary directory the unprivileged nginx can enter.
func openTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// unprivileged is the user nginx runs as when the tests run as root, as the
// image runs it as its nginx user; nil when the tests are not root.
func unprivileged(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("running as root and no user nobody to run nginx as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// spaFixture is a built SPA in miniature: an index.html and a hashed asset.
func spaFixture(t testing.TB) string {
	t.Helper()
	dir := openTempDir(t)
	files := map[string]string{
		"index.html":               `<!doctype html><html><head><script src="/config.js"></script><script type="module" src="/assets/index-3f2a1b9c.js"></script></head><body><div id="root"></div></body></html>`,
		"assets/index-3f2a1b9c.js": `console.log("the app");`,
		"favicon.svg":              `<svg xmlns="http://www.w3.org/2000/svg"/>`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// web is one start of the web container's entrypoint.
type web struct {
	url, runtime, log string
	listen            string
	cmd               *exec.Cmd
	exited            chan struct{}
	exitErr           error
}

// newRuntimeDir is the container's /run/web: written by the unprivileged
// nginx, kept across restarts of one test.
func newRuntimeDir(t testing.TB) string {
	t.Helper()
	dir := openTempDir(t)
	if c := unprivileged(t); c != nil {
		if err := os.Chown(dir, int(c.Uid), int(c.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// launchWeb runs start.sh with env (the container's environment) as the
// image would; it returns once nginx answers, or with the script's error
// and output when the start fails.
func launchWeb(t testing.TB, env map[string]string, spa, runtime string) (*web, error) {
	t.Helper()
	return launchWebIn(t, nil, env, spa, runtime)
}

// launchWebIn is launchWeb with the script run by shell's sh and tools
// (nil: its own #!/bin/sh and this machine's PATH).
func launchWebIn(t testing.TB, shell *busybox, env map[string]string, spa, runtime string) (*web, error) {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
			t.Fatal("nginx is not installed: run infra/test-deps.sh (make test does)")
		}
	}
	w := &web{runtime: runtime, exited: make(chan struct{})}
	w.listen = fmt.Sprintf("127.0.0.1:%d", loopbackPort(t))
	w.url = "http://" + w.listen
	// nginx opens /dev/stdout for its access log: a file the unprivileged
	// user may reopen (a pipe of the test process would be refused).
	logDir := openTempDir(t)
	w.log = filepath.Join(logDir, "web.log")
	logFile, err := os.Create(w.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cred := unprivileged(t)
	if cred != nil {
		if err := logFile.Chown(int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}

	script := filepath.Join(root(t), webStartScript)
	cmd := exec.Command(script)
	path := os.Getenv("PATH") + ":/usr/sbin:/sbin"
	if shell != nil {
		cmd = exec.Command(filepath.Join(shell.dir, "sh"), script)
		path = shell.dir + ":" + filepath.Dir(shell.nginx)
	}
	cmd.Env = []string{
		"PATH=" + path,
		"WEB_ROOT=" + spa,
		"WEB_RUNTIME_DIR=" + runtime,
		"WEB_TEMPLATE_DIR=" + filepath.Join(root(t), "web", "docker"),
		"WEB_LISTEN=" + w.listen,
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.cmd = cmd
	go func() { w.exitErr = cmd.Wait(); close(w.exited) }()
	t.Cleanup(w.stop)

	deadline := time.After(15 * time.Second)
	for {
		select {
		case <-w.exited:
			return nil, fmt.Errorf("start.sh exited (%v): %s", w.exitErr, w.output(t))
		case <-deadline:
			t.Fatalf("nginx did not answer on %s within 15 s; output:\n%s", w.listen, w.output(t))
		case <-time.After(20 * time.Millisecond):
		}
		if res, err := http.Get(w.url + "/config.js"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return w, nil
			}
		}
	}
}

// startWeb is launchWeb for a start that must succeed.
func startWeb(t testing.TB, env map[string]string, spa, runtime string) *web {
	t.Helper()
	w, err := launchWeb(t, env, spa, runtime)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *web) output(t testing.TB) string {
	b, err := os.ReadFile(w.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stop ends nginx gracefully (the image's STOPSIGNAL), then its group.
func (w *web) stop() {
	select {
	case <-w.exited:
		return
	default:
	}
	_ = w.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
		<-w.exited
	}
}

type reply struct {
	status int
	header http.Header
	body   string
}

func fetch(t testing.TB, method, url string, body io.Reader, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, url, err)
	}
	return reply{res.StatusCode, res.Header, string(b)}
}

func getURL(t testing.TB, url string) reply { return fetch(t, http.MethodGet, url, nil, nil) }

// nginxOwn404 reports whether r is nginx's own 404 page.
func nginxOwn404(r reply) bool {
	return r.status == http.StatusNotFound && strings.Contains(r.body, "<center>nginx</center>")
}

func TestWebMetricsOn(t *testing.T) {
	spa, runtime := spaFixture(t), newRuntimeDir(t)
	for _, appVersion := range []*string{nil, new(""), new("  \t"), new("v0.14.0-abc1234"), new(" v0.14.0-abc1234\n"),
		new("v0.14.0-rc.1-abc123"), new("v0.14.0"), new("v0.14.0-"), new("-"), new(`v1"quoted\-c0ffee`)} {
		name := "Unset"
		env := map[string]string{"METRICS_ENABLED": "true"}
		if appVersion != nil {
			name = strconv.Quote(*appVersion)
			env["APP_VERSION"] = *appVersion
		}
		t.Run(name, func(t *testing.T) {
			w := startWeb(t, env, spa, runtime)
			defer w.stop()
			r := getURL(t, w.url+"/metrics")
			if r.status != http.StatusOK || r.header.Get("Content-Type") != webMetricsContentType {
				t.Fatalf("GET /metrics: %d %q, want 200 %q\n%s", r.status, r.header.Get("Content-Type"), webMetricsContentType, r.body)
			}
			resolved := ""
			if appVersion != nil {
				resolved = strings.TrimSpace(*appVersion)
			}
			version, commit := buildinfo.Labels(resolved)
			escape := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace
			want := "# HELP service_web_build_info Web build identity (APP_VERSION and its commit); constant 1.\n" +
				"# TYPE service_web_build_info gauge\n" +
				fmt.Sprintf("service_web_build_info{version=\"%s\",commit=\"%s\"} 1\n", escape(version), escape(commit))
			if r.body != want {
				t.Errorf("GET /metrics body\n%q\nwant\n%q", r.body, want)
			}

			parser := expfmt.NewTextParser(model.UTF8Validation)
			families, err := parser.TextToMetricFamilies(strings.NewReader(r.body))
			if err != nil {
				t.Fatalf("the exposition does not parse: %v", err)
			}
			f := families["service_web_build_info"]
			if len(families) != 1 || f == nil || f.GetType().String() != "GAUGE" || len(f.GetMetric()) != 1 {
				t.Fatalf("families %v, want one gauge service_web_build_info with one sample", families)
			}
			m := f.GetMetric()[0]
			labels := model.LabelSet{}
			for _, l := range m.GetLabel() {
				labels[model.LabelName(l.GetName())] = model.LabelValue(l.GetValue())
			}
			wantLabels := model.LabelSet{"version": model.LabelValue(version), "commit": model.LabelValue(commit)}
			if !labels.Equal(wantLabels) || m.GetGauge().GetValue() != 1 {
				t.Errorf("sample %v = %v, want %v = 1", labels, m.GetGauge().GetValue(), wantLabels)
			}
		})
	}
}

func TestWebMetricsOff(t *testing.T) {
	spa, runtime := spaFixture(t), newRuntimeDir(t)
	for _, value := range []*string{nil, new("false"), new("")} {
		name := "Unset"
		if value != nil {
			name = strconv.Quote(*value)
		}
		t.Run(name, func(t *testing.T) {
			// A start with metrics on leaves the file; the next start must
			// delete it.
			on := startWeb(t, map[string]string{"METRICS_ENABLED": "true"}, spa, runtime)
			if r := getURL(t, on.url+"/metrics"); r.status != http.StatusOK {
				t.Fatalf("with METRICS_ENABLED=true: GET /metrics %d", r.status)
			}
			on.stop()

			env := map[string]string{}
			if value != nil {
				env["METRICS_ENABLED"] = *value
			}
			w := startWeb(t, env, spa, runtime)
			defer w.stop()
			if r := getURL(t, w.url+"/metrics"); !nginxOwn404(r) {
				t.Errorf("GET /metrics: %d %q, want nginx's own 404", r.status, r.body)
			}
			if _, err := os.Stat(filepath.Join(runtime, "metrics")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the metrics file is still there (%v)", err)
			}
		})
	}
}

// TestWebRefusesBadSettings: a value the container cannot use stops the
// start with a message naming the variable, before nginx listens.
func TestWebRefusesBadSettings(t *testing.T) {
	spa := spaFixture(t)
	for _, tc := range []struct {
		name, value string
		want        string // in the message
	}{
		{"METRICS_ENABLED", "TRUE", `METRICS_ENABLED must be exactly "true" or "false", got "TRUE"`},
		{"METRICS_ENABLED", "1", `METRICS_ENABLED must be exactly "true" or "false", got "1"`},
		{"METRICS_ENABLED", "yes", `METRICS_ENABLED must be exactly "true" or "false", got "yes"`},
		{"METRICS_ENABLED", " true", `METRICS_ENABLED must be exactly "true" or "false", got " true"`},
		{"MAX_UPLOAD_SIZE", "20mb", `MAX_UPLOAD_SIZE must be an nginx size`},
		{"MAX_UPLOAD_SIZE", "20m; include /etc/passwd", `MAX_UPLOAD_SIZE must be an nginx size`},
		{"CSV_IMPORT_WEB_PROXY_TIMEOUT", "five minutes", `CSV_IMPORT_WEB_PROXY_TIMEOUT must be an nginx time`},
		{"CSV_IMPORT_WEB_PROXY_TIMEOUT", "300s;", `CSV_IMPORT_WEB_PROXY_TIMEOUT must be an nginx time`},
		{"API_BASE_URL", "ftp://api:21", `API_BASE_URL must be an http or https URL`},
		{"API_BASE_URL", "http://api:3100/x; return 200", `API_BASE_URL must be an http or https URL`},
		{"API_BASE_URL", "http://api:3100/?q=1", `API_BASE_URL must be an http or https URL`},
		{"API_BASE_URL", "http://api:3100/$host", `API_BASE_URL must be an http or https URL`},
		{"API_BASE_URL", "https://deploy:hunter2@api.example", `API_BASE_URL must be an http or https URL (scheme, host, optional port and path, no query) (value not shown`},
		{"ANALYTICS_HOST", "eu.i.posthog.com", `ANALYTICS_HOST must be an absolute http or https URL`},
		{"ANALYTICS_HOST", "https://eu.i.posthog.com; script-src *", `ANALYTICS_HOST must be an absolute http or https URL`},
		{"ANALYTICS_HOST", `https://eu.i.posthog.com/"$http_cookie`, `ANALYTICS_HOST must be an absolute http or https URL`},
		{"NEWSLETTER_URL", "javascript:alert(1)", `NEWSLETTER_URL must be an absolute http or https URL`},
	} {
		t.Run(tc.name+"="+strconv.Quote(tc.value), func(t *testing.T) {
			_, err := launchWeb(t, map[string]string{tc.name: tc.value}, spa, newRuntimeDir(t))
			if err == nil {
				t.Fatalf("started with %s=%q", tc.name, tc.value)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the message shows a credential: %v", err)
			}
		})
	}
}

// apiBinary builds cmd/local once.
var apiBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "tj-web-api-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "local")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/local")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/local: %v\n%s", err, out)
	}
	return bin, nil
})

// startAPI runs the real api (cmd/local) on a loopback port with env and
// returns its base URL.
func startAPI(t *testing.T, env map[string]string) string {
	t.Helper()
	bin, err := apiBinary()
	if err != nil {
		t.Fatal(err)
	}
	port := loopbackPort(t)
	cmd := exec.Command(bin)
	cmd.Env = []string{"PORT=" + strconv.Itoa(port), "DATABASE_URL=" + emptyDatabase(t), "LOG_LEVEL=warn",
		"SEC_TICKERS_URL=http://127.0.0.1:1/unreachable"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	logs := &testbin.SyncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
	waitHealthy(t, port, logs)
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// publicWebEnv are the web container's public settings, with characters
// that need escaping in JSON and in a script.
var publicWebEnv = map[string]string{
	"APP_VERSION":                      "v0.14.0-abc1234",
	"NEWSLETTER_URL":                   "https://news.example/join?list=1&from=<app>&q=\"x\"&sep=\u2028",
	"ANALYTICS_PUBLIC_KEY":             "phc_public123",
	"ANALYTICS_HOST":                   "https://eu.i.posthog.com/",
	"ANALYTICS_PUBLIC_FEEDBACK_SURVEY": "survey\\1:rating\t1:text1",
}

// secretEnv are secrets an operator might leave in the web container's
// environment by mistake: none may reach anything it serves or writes.
var secretEnv = map[string]string{
	"PAYMENT_SECRET_KEY":               "sk_test_SECRETpayment0001",
	"PAYMENT_WEBHOOK_SECRET":           "whsec_SECRETwebhook0002",
	"ENCRYPTION_KEY":                   "U0VDUkVUZW5jcnlwdGlvbmtleTAwMDNhYWFhYWFhYWE=",
	"ENCRYPTION_KEY_PREVIOUS":          "U0VDUkVUcHJldmlvdXNrZXkwMDA0YWFhYWFhYWFhYWE=",
	"STORE_URL":                        "redis://:SECRETredis0005@redis:6379/0",
	"SMTP_PASS":                        "SECRETsmtp0006",
	"DB_PASSWORD":                      "SECRETdb0007",
	"DATABASE_URL":                     "postgres://tj:SECRETdb0008@db/tj",
	"OBJECT_STORAGE_SECRET_ACCESS_KEY": "SECRETstorage0009",
	"ANALYTICS_API_KEY":                "phx_SECRETanalytics0010",
	"STOCK_QUOTE_API_KEY":              "SECRETquote0011",
}

// TestWebInFrontOfTheAPI runs nginx, as start.sh configures it, in front of
// the real api, which also serves the same SPA itself (cmd/local/web.go):
// both hosts must send the same /config.js and the same policy.
func TestWebInFrontOfTheAPI(t *testing.T) {
	spa := spaFixture(t)
	apiEnv := map[string]string{"WEB_DIST_DIR": spa}
	webEnv := map[string]string{}
	for k, v := range publicWebEnv {
		apiEnv[k], webEnv[k] = v, v
	}
	for k, v := range secretEnv {
		webEnv[k] = v
	}
	api := startAPI(t, apiEnv)
	webEnv["API_BASE_URL"] = api
	runtime := newRuntimeDir(t)
	w := startWeb(t, webEnv, spa, runtime)

	t.Run("Proxy", func(t *testing.T) {
		r := getURL(t, w.url+"/api/health")
		var health map[string]any
		if r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &health) != nil || health["version"] != publicWebEnv["APP_VERSION"] {
			t.Fatalf("GET /api/health through nginx: %d %s", r.status, r.body)
		}
		// The api's own 404 passes through, not nginx's page.
		if r := getURL(t, w.url+"/api/no-such-route"); r.status != http.StatusNotFound || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Errorf("GET /api/no-such-route: %d %q %s, want the api's JSON 404", r.status, r.header.Get("Content-Type"), r.body)
		}
		// A session made through the proxy works through the proxy.
		reg := fetch(t, http.MethodPost, w.url+"/api/auth/register",
			strings.NewReader(`{"email":"proxy@example.com","password":"correct horse battery"}`), map[string]string{"Content-Type": "application/json"})
		if reg.status != http.StatusCreated {
			t.Fatalf("register through nginx: %d %s", reg.status, reg.body)
		}
		cookie := strings.Split(reg.header.Get("Set-Cookie"), ";")[0]
		if me := fetch(t, http.MethodGet, w.url+"/api/auth/me", nil, map[string]string{"Cookie": cookie}); me.status != http.StatusOK || !strings.Contains(me.body, "proxy@example.com") {
			t.Errorf("GET /api/auth/me with the session cookie through nginx: %d %s", me.status, me.body)
		}
	})

	t.Run("ConfigJSAsTheAPIWritesIt", func(t *testing.T) {
		fromWeb, fromAPI := getURL(t, w.url+"/config.js"), getURL(t, api+"/config.js")
		if fromWeb.status != http.StatusOK || fromWeb.header.Get("Content-Type") != "application/javascript" || fromWeb.header.Get("Cache-Control") != "no-cache" {
			t.Errorf("GET /config.js: %d, Content-Type %q, Cache-Control %q; want 200, application/javascript, no-cache",
				fromWeb.status, fromWeb.header.Get("Content-Type"), fromWeb.header.Get("Cache-Control"))
		}
		webLines, apiLines := strings.Split(fromWeb.body, "\n"), strings.Split(fromAPI.body, "\n")
		if len(webLines) != 3 || webLines[2] != "" || !strings.HasPrefix(webLines[0], "// ") {
			t.Fatalf("/config.js is not a comment and one statement:\n%s", fromWeb.body)
		}
		if len(apiLines) < 2 || webLines[1] != apiLines[1] {
			t.Fatalf("/config.js differs from cmd/local's:\nweb: %s\napi: %s", webLines[1], fromAPI.body)
		}
		const prefix, suffix = "window.__TRADEJOURNAL_CONFIG__ = Object.freeze(", ");"
		object, ok := strings.CutPrefix(webLines[1], prefix)
		object, ok2 := strings.CutSuffix(object, suffix)
		var got map[string]string
		if !ok || !ok2 || json.Unmarshal([]byte(object), &got) != nil {
			t.Fatalf("/config.js statement %q", webLines[1])
		}
		want := map[string]string{
			"newsletterUrl":           publicWebEnv["NEWSLETTER_URL"],
			"analyticsPublicKey":      publicWebEnv["ANALYTICS_PUBLIC_KEY"],
			"analyticsHost":           "https://eu.i.posthog.com",
			"analyticsFeedbackSurvey": publicWebEnv["ANALYTICS_PUBLIC_FEEDBACK_SURVEY"],
			"version":                 publicWebEnv["APP_VERSION"],
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("/config.js object\n%v\nwant\n%v", got, want)
		}
		for _, raw := range []string{"<", ">", "&", "\u2028", "\t"} {
			if strings.Contains(object, raw) {
				t.Errorf("/config.js carries %q unescaped", raw)
			}
		}
	})

	t.Run("NoSecret", func(t *testing.T) {
		var seen []string
		for _, path := range []string{"/config.js", "/", "/positions", "/metrics", "/assets/index-3f2a1b9c.js"} {
			r := getURL(t, w.url+path)
			seen = append(seen, path+"\n"+fmt.Sprint(r.header)+"\n"+r.body)
		}
		files, err := os.ReadDir(runtime)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Type().IsRegular() {
				b, err := os.ReadFile(filepath.Join(runtime, f.Name()))
				if err != nil {
					t.Fatal(err)
				}
				seen = append(seen, f.Name()+"\n"+string(b))
			}
		}
		seen = append(seen, "output\n"+w.output(t))
		for name, secret := range secretEnv {
			for _, s := range seen {
				if strings.Contains(s, secret) {
					t.Errorf("%s's value is in %s", name, strings.SplitN(s, "\n", 2)[0])
				}
			}
		}
	})

	t.Run("SecurityHeaders", func(t *testing.T) {
		fromWeb, fromAPI := getURL(t, w.url+"/"), getURL(t, api+"/")
		csp := fromWeb.header.Get("Content-Security-Policy")
		if csp == "" || csp != fromAPI.header.Get("Content-Security-Policy") {
			t.Errorf("CSP\n%q\nwant cmd/local's\n%q", csp, fromAPI.header.Get("Content-Security-Policy"))
		}
		directives := map[string]string{}
		for _, d := range strings.Split(csp, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
			directives[name] = value
		}
		if directives["script-src"] != "'self'" || directives["frame-ancestors"] != "'none'" ||
			directives["connect-src"] != "'self' https://eu.i.posthog.com" {
			t.Errorf("CSP %q: want script-src 'self' only, frame-ancestors 'none', connect-src 'self' and the analytics host", csp)
		}
		for _, path := range []string{"/", "/positions/123", "/config.js", "/assets/index-3f2a1b9c.js"} {
			r := getURL(t, w.url+path)
			for k, want := range map[string]string{
				"Content-Security-Policy": csp,
				"X-Content-Type-Options":  "nosniff",
				"X-Frame-Options":         "DENY",
				"Referrer-Policy":         "same-origin",
			} {
				if got := r.header.Get(k); got != want {
					t.Errorf("GET %s: %s %q, want %q", path, k, got, want)
				}
			}
		}
	})

	t.Run("SPA", func(t *testing.T) {
		index, err := os.ReadFile(filepath.Join(spa, "index.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/", "/positions/6d2c3c1e-0000-4000-8000-000000000000", "/calendar?month=2026-11", "/index.html"} {
			r := getURL(t, w.url+path)
			if r.status != http.StatusOK || r.body != string(index) || r.header.Get("Cache-Control") != "no-cache" {
				t.Errorf("GET %s: %d, Cache-Control %q, body %.60q; want index.html, no-cache", path, r.status, r.header.Get("Cache-Control"), r.body)
			}
		}
		asset := getURL(t, w.url+"/assets/index-3f2a1b9c.js")
		if asset.status != http.StatusOK || asset.body != `console.log("the app");` ||
			asset.header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			!strings.Contains(asset.header.Get("Content-Type"), "javascript") {
			t.Errorf("GET a hashed asset: %d, Cache-Control %q, Content-Type %q", asset.status, asset.header.Get("Cache-Control"), asset.header.Get("Content-Type"))
		}
		if r := getURL(t, w.url+"/assets/index-00000000.js"); r.status != http.StatusNotFound {
			t.Errorf("GET a missing asset: %d, want 404 (never index.html)", r.status)
		}
		if r := getURL(t, w.url+"/favicon.svg"); r.status != http.StatusOK || !strings.HasPrefix(r.body, "<svg") {
			t.Errorf("GET /favicon.svg: %d %q", r.status, r.body)
		}
	})

	t.Run("BodyOverTheDefaultLimit", func(t *testing.T) {
		// MAX_UPLOAD_SIZE unset: 20m. Just under reaches the api (401, not
		// signed in); just over is the proxy's 413 in the api's error shape.
		under := fetch(t, http.MethodPost, w.url+"/api/csv-import/preview", strings.NewReader(strings.Repeat("a", 20<<20)), map[string]string{"Content-Type": "text/csv"})
		if under.status != http.StatusUnauthorized {
			t.Errorf("POST 20 MiB: %d %s, want the api's 401", under.status, under.body)
		}
		over := fetch(t, http.MethodPost, w.url+"/api/csv-import/preview", strings.NewReader(strings.Repeat("a", 20<<20+1)), map[string]string{"Content-Type": "text/csv"})
		assertTooLarge(t, over)
	})
}

func assertTooLarge(t *testing.T, r reply) {
	t.Helper()
	var body struct {
		Error struct{ Code, Message string }
	}
	if r.status != http.StatusRequestEntityTooLarge || r.header.Get("Content-Type") != "application/json" ||
		json.Unmarshal([]byte(r.body), &body) != nil || body.Error.Code != "PAYLOAD_TOO_LARGE" {
		t.Errorf("over the limit: %d %q %s, want 413 application/json PAYLOAD_TOO_LARGE", r.status, r.header.Get("Content-Type"), r.body)
	}
}

// fakeUpstream is an api stand-in on a loopback port that answers after a
// delay and records what reached it.
type fakeUpstream struct {
	srv   *httptest.Server
	delay atomic.Int64 // nanoseconds
	mu    sync.Mutex
	seen  []*http.Request
}

func newFakeUpstream(t *testing.T, delay time.Duration) *fakeUpstream {
	t.Helper()
	f := &fakeUpstream{}
	f.delay.Store(int64(delay))
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", loopbackPort(t)))
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.Clone(r.Context()))
		f.mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(time.Duration(f.delay.Load())):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"slow":"ok"}`)
	}))
	f.srv.Listener.Close()
	f.srv.Listener = ln
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUpstream) last() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) == 0 {
		return nil
	}
	return f.seen[len(f.seen)-1]
}

// TestWebCSVImportTimeout: CSV_IMPORT_WEB_PROXY_TIMEOUT bounds the wait
// for /api/csv-import/ only; other api paths keep nginx's 60 s.
func TestWebCSVImportTimeout(t *testing.T) {
	upstream := newFakeUpstream(t, 1500*time.Millisecond)
	// A base with a path prefix (an API gateway stage): the request path
	// follows it unchanged.
	w := startWeb(t, map[string]string{
		"API_BASE_URL":                 upstream.srv.URL + "/stage/",
		"CSV_IMPORT_WEB_PROXY_TIMEOUT": "1s",
		"MAX_UPLOAD_SIZE":              "64k",
	}, spaFixture(t), newRuntimeDir(t))

	r := getURL(t, w.url+"/api/csv-import/presets")
	var body struct{ Error struct{ Code string } }
	if r.status != http.StatusGatewayTimeout || json.Unmarshal([]byte(r.body), &body) != nil || body.Error.Code != "SERVICE_UNAVAILABLE" {
		t.Errorf("an import slower than CSV_IMPORT_WEB_PROXY_TIMEOUT: %d %s, want 504 SERVICE_UNAVAILABLE", r.status, r.body)
	}
	r = getURL(t, w.url+"/api/positions?symbol=AAPL&limit=5")
	if r.status != http.StatusOK || r.body != `{"slow":"ok"}` {
		t.Errorf("another path as slow: %d %s, want the upstream's answer (the import timeout is not global)", r.status, r.body)
	}
	seen := upstream.last()
	if seen == nil {
		t.Fatal("nothing reached the upstream")
	}
	if seen.URL.RequestURI() != "/stage/api/positions?symbol=AAPL&limit=5" {
		t.Errorf("the upstream got %s, want /stage/api/positions?symbol=AAPL&limit=5", seen.URL.RequestURI())
	}
	if want := strings.TrimPrefix(upstream.srv.URL, "http://"); seen.Host != want {
		t.Errorf("the upstream got Host %q, want its own name %q", seen.Host, want)
	}
	if seen.Header.Get("X-Real-IP") != "127.0.0.1" || seen.Header.Get("X-Forwarded-Proto") != "http" {
		t.Errorf("the upstream got X-Real-IP %q, X-Forwarded-Proto %q", seen.Header.Get("X-Real-IP"), seen.Header.Get("X-Forwarded-Proto"))
	}

	conf, err := os.ReadFile(filepath.Join(w.runtime, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	// Once for the import, once for the assistant's stream (TestWebAssistantStreams),
	// once for the backup's download and restore.
	if n := len(regexp.MustCompile(`(?m)^\s*proxy_read_timeout\s`).FindAll(conf, -1)); n != 3 {
		t.Errorf("nginx.conf sets proxy_read_timeout %d times, want three times (in /api/csv-import/, /api/assistant/ and /api/backup/)", n)
	}

	t.Run("MaxUploadSize", func(t *testing.T) {
		upstream.delay.Store(0)
		if r := fetch(t, http.MethodPost, w.url+"/api/positions", strings.NewReader(strings.Repeat("x", 64<<10)), nil); r.status != http.StatusOK {
			t.Errorf("POST 64 KiB with MAX_UPLOAD_SIZE=64k: %d %s, want it proxied", r.status, r.body)
		}
		assertTooLarge(t, fetch(t, http.MethodPost, w.url+"/api/positions", strings.NewReader(strings.Repeat("x", 64<<10+1)), nil))
		// A backup archive has the api's own cap (1 GiB), not MAX_UPLOAD_SIZE.
		if r := fetch(t, http.MethodPost, w.url+"/api/backup/restore", strings.NewReader(strings.Repeat("x", 128<<10)), nil); r.status != http.StatusOK {
			t.Errorf("POST a 128 KiB backup with MAX_UPLOAD_SIZE=64k: %d %s, want it proxied", r.status, r.body)
		}
	})
}

// TestWebUpstreamResolution: the api's name is resolved per request through
// the container's resolver, so a restarted api is found at its new address.
func TestWebUpstreamResolution(t *testing.T) {
	spa := spaFixture(t)
	resolvConf := func(t *testing.T, text string) string {
		p := filepath.Join(openTempDir(t), "resolv.conf")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, apiBaseURL, resolv string
		want                     []string
	}{
		{"BlankIsTheComposeAPI", "", "search lan\nnameserver 127.0.0.11\noptions ndots:0\n",
			[]string{"resolver 127.0.0.11 valid=10s;", "set $api_upstream http://api:3100;", "proxy_set_header Host $http_host;"}},
		{"AnotherOrigin", "https://api.example.com/", "nameserver fd00::53\n",
			[]string{"resolver [fd00::53] valid=10s;", "set $api_upstream https://api.example.com;", "proxy_set_header Host $proxy_host;"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := startWeb(t, map[string]string{"API_BASE_URL": tc.apiBaseURL, "RESOLV_CONF": resolvConf(t, tc.resolv)}, spa, newRuntimeDir(t))
			conf, err := os.ReadFile(filepath.Join(w.runtime, "nginx.conf"))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(conf), "\n")
			for i := range lines {
				lines[i] = strings.TrimSpace(lines[i])
			}
			for _, want := range tc.want {
				if !slices.Contains(lines, want) {
					t.Errorf("nginx.conf has no line %q", want)
				}
			}
		})
	}
	t.Run("NoNameserver", func(t *testing.T) {
		_, err := launchWeb(t, map[string]string{"RESOLV_CONF": resolvConf(t, "search lan\n")}, spa, newRuntimeDir(t))
		if err == nil || !strings.Contains(err.Error(), "lists no nameserver") {
			t.Errorf("start with no nameserver for http://api:3100: %v", err)
		}
	})
}

// TestWebDockerfile holds web/Dockerfile to the start script's layout: the
// files go where start.sh looks for them, nginx runs unprivileged, the
// version is baked in.
func TestWebDockerfile(t *testing.T) {
	ins := parseDockerfile(t, string(readFile(t, webDockerfile)))
	st := stages(ins)
	if len(st) != 2 || !strings.HasPrefix(st[0].image, "node:") || !strings.HasPrefix(st[1].image, "nginx:") {
		t.Fatalf("stages %v, want node (build), then nginx", st)
	}
	for _, s := range st {
		if tag := strings.SplitN(s.image, ":", 2)[1]; tag == "latest" || strings.Contains(tag, "$") {
			t.Errorf("FROM %s: pin the base image by a version tag", s.image)
		}
	}
	var build []string
	for _, in := range st[0].body {
		if in.cmd == "RUN" {
			build = append(build, in.args)
		}
	}
	if !slices.Contains(build, "npm ci --no-audit --no-fund") || !slices.Contains(build, "npm run build") {
		t.Errorf("the build stage runs %q, want npm ci and npm run build", build)
	}

	script := string(readFile(t, webStartScript))
	defaultOf := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `=\$\{` + name + `:-([^}]*)\}$`).FindStringSubmatch(script)
		if m == nil {
			t.Fatalf("start.sh has no %s=${%s:-default}", name, name)
		}
		return m[1]
	}
	final := st[1].body
	var user, entrypoint, cmd string
	var copies, runs []string
	args, envs := map[string]bool{}, map[string]bool{}
	for _, in := range final {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entrypoint = in.args
		case "CMD":
			cmd = in.args
		case "COPY":
			copies = append(copies, in.args)
		case "RUN":
			runs = append(runs, in.args)
		case "ARG":
			args[in.args] = true
		case "ENV":
			envs[in.args] = true
		}
	}
	if u, _, _ := strings.Cut(user, ":"); u == "" || u == "root" || u == "0" {
		t.Errorf("USER %q: nginx must run unprivileged", user)
	}
	if !args["APP_VERSION="] || !envs["APP_VERSION=${APP_VERSION}"] {
		t.Errorf("the nginx stage must bake the version: ARG APP_VERSION= and ENV APP_VERSION=${APP_VERSION} (args %v, env %v)", args, envs)
	}
	var argv []string
	if err := json.Unmarshal([]byte(entrypoint), &argv); err != nil || len(argv) != 1 {
		t.Fatalf("ENTRYPOINT %q: want the exec form of the start script", entrypoint)
	}
	if cmd != "[]" {
		t.Errorf("CMD %q: want [] (the base image's nginx command would reach start.sh as arguments)", cmd)
	}
	for _, want := range []string{
		"docker/start.sh " + argv[0],
		"docker/nginx.conf.template docker/security-headers.conf.template " + defaultOf("WEB_TEMPLATE_DIR") + "/",
		"--from=build /web/dist " + defaultOf("WEB_ROOT"),
	} {
		if !slices.Contains(copies, want) {
			t.Errorf("no COPY %s (copies: %q)", want, copies)
		}
	}
	templates, _ := filepath.Glob(filepath.Join(root(t), "web", "docker", "*.conf.template"))
	if len(templates) != 2 {
		t.Errorf("web/docker holds %d templates; the COPY names two", len(templates))
	}
	runtimeDir := defaultOf("WEB_RUNTIME_DIR")
	if len(runs) != 1 || !strings.Contains(runs[0], "mkdir -p "+runtimeDir) || !strings.Contains(runs[0], "chown nginx:nginx "+runtimeDir) {
		t.Errorf("RUN %q: want the runtime directory %s created and given to nginx", runs, runtimeDir)
	}
	if defaultOf("WEB_LISTEN") != "80" {
		t.Error("nginx must listen on 80, the port compose maps WEB_PORT to")
	}
}

// busybox is a directory of BusyBox applets standing in for the nginx
// image's Alpine userland (ash, awk, grep, sed), and where nginx is.
type busybox struct{ dir, nginx string }

func newBusybox(t *testing.T) *busybox {
	t.Helper()
	bin, err := exec.LookPath("busybox")
	if err != nil {
		t.Fatal("busybox is not installed: run infra/test-deps.sh (make test does)")
	}
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		nginx = "/usr/sbin/nginx"
	}
	dir := openTempDir(t)
	for _, applet := range []string{"sh", "awk", "grep", "sed", "wc", "mkdir", "mv", "rm", "basename", "cat", "printf"} {
		if err := os.Symlink(bin, filepath.Join(dir, applet)); err != nil {
			t.Fatal(err)
		}
	}
	return &busybox{dir: dir, nginx: nginx}
}

// TestWebStartUnderBusybox runs start.sh with BusyBox's shell and tools, as
// the Alpine-based image does, and wants every file it writes to be the
// same as under this machine's /bin/sh (whose output the other tests hold
// to cmd/local's): the JSON and label escaping rely on awk and grep
// behaving alike in both.
func TestWebStartUnderBusybox(t *testing.T) {
	bb := newBusybox(t)
	spa := spaFixture(t)
	env := map[string]string{"METRICS_ENABLED": "true", "APP_VERSION": `v1"quoted\-c0ffee`, "API_BASE_URL": "http://127.0.0.1:9/base/"}
	for k, v := range publicWebEnv {
		if k != "APP_VERSION" {
			env[k] = v
		}
	}
	outputs := func(shell *busybox) map[string]string {
		w, err := launchWebIn(t, shell, env, spa, newRuntimeDir(t))
		if err != nil {
			t.Fatal(err)
		}
		defer w.stop()
		files := map[string]string{}
		for _, name := range []string{"nginx.conf", "security-headers.conf", "config.js", "metrics"} {
			b, err := os.ReadFile(filepath.Join(w.runtime, name))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = strings.ReplaceAll(string(b), w.runtime, "RUNTIME")
		}
		return files
	}
	native, alpine := outputs(nil), outputs(bb)
	for name, want := range native {
		if name == "nginx.conf" {
			// The listen port differs between the two starts.
			re := regexp.MustCompile(`listen 127\.0\.0\.1:\d+;`)
			want, alpine[name] = re.ReplaceAllString(want, "listen PORT;"), re.ReplaceAllString(alpine[name], "listen PORT;")
		}
		if alpine[name] != want {
			t.Errorf("%s under busybox:\n%s\nunder /bin/sh:\n%s", name, alpine[name], want)
		}
	}

	_, err := launchWebIn(t, bb, map[string]string{"METRICS_ENABLED": "yes"}, spa, newRuntimeDir(t))
	if err == nil || !strings.Contains(err.Error(), `METRICS_ENABLED must be exactly "true" or "false", got "yes"`) {
		t.Errorf("busybox start with METRICS_ENABLED=yes: %v", err)
	}
}

// TestWebAssistantStreams: the assistant's server-sent events pass through
// nginx as they are written (no buffering), and its read timeout outlasts
// the 480 s turn budget.
func TestWebAssistantStreams(t *testing.T) {
	release := make(chan struct{})
	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: delta\ndata: {\"content\":\"first\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "event: done\ndata: {}\n\n")
	}))
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", loopbackPort(t)))
	if err != nil {
		t.Fatal(err)
	}
	upstream.Listener.Close()
	upstream.Listener = ln
	upstream.Start()
	t.Cleanup(upstream.Close)
	w := startWeb(t, map[string]string{"API_BASE_URL": upstream.URL}, spaFixture(t), newRuntimeDir(t))

	res, err := http.Post(w.url+"/api/assistant/conversations/new/messages/stream", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	first := make([]byte, len("event: delta\ndata: {\"content\":\"first\"}\n\n"))
	if _, err := io.ReadFull(res.Body, first); err != nil {
		t.Fatalf("the first event did not pass nginx while the stream was open: %v", err)
	}
	close(release)
	if rest, _ := io.ReadAll(res.Body); string(rest) != "event: done\ndata: {}\n\n" {
		t.Fatalf("rest of the stream %q", rest)
	}

	conf, err := os.ReadFile(filepath.Join(w.runtime, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)location /api/assistant/ \{(.*?)\}`).FindSubmatch(conf)
	directive := func(d string) bool { return regexp.MustCompile(`(?m)^\s*` + d + `;`).Match(block[1]) }
	if block == nil || !directive("proxy_buffering off") || !directive("proxy_read_timeout 540s") {
		t.Fatalf("the assistant's location lacks proxy_buffering off or a 540 s read timeout:\n%s", block)
	}
}
