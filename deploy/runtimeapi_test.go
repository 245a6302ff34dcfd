package deploy_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"tradejournal/deploy"
	"tradejournal/shared/httpx"
)

// A local implementation of the Lambda runtime API (2018-06-01), enough to
// drive a real bootstrap the way the Lambda service does: the process polls
// GET /runtime/invocation/next, gets one event with its request id and
// deadline headers, and answers with POST .../response or .../error.

const runtimeAPIVersion = "/2018-06-01/runtime"

// streamingContentType is the content type of a Function URL's streamed
// answer (aws-lambda-go's LambdaFunctionURLStreamingResponse).
const streamingContentType = "application/vnd.awslambda.http-integration-response"

// outcome is what the function answered to one invocation.
type outcome struct {
	ok        bool   // POST .../response; false for POST .../error
	body      []byte // the response, or the error document
	errorType string // Lambda-Runtime-Function-Error-Type of an error
	// contentType is the response's: a Function URL in response-streaming
	// mode answers application/vnd.awslambda.http-integration-response, a
	// JSON prelude (status, headers, cookies), eight NUL bytes, then the body.
	contentType string
	at          time.Time
}

type invocation struct {
	id       string
	payload  []byte
	deadline time.Time
	done     chan outcome
}

type runtimeAPI struct {
	srv      *httptest.Server
	queue    chan *invocation
	closed   chan struct{}
	mu       sync.Mutex
	inflight map[string]*invocation
	initErrs [][]byte
}

func newRuntimeAPI(t *testing.T) *runtimeAPI {
	t.Helper()
	api := &runtimeAPI{queue: make(chan *invocation, 16), closed: make(chan struct{}), inflight: map[string]*invocation{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+runtimeAPIVersion+"/invocation/next", api.next)
	mux.HandleFunc("POST "+runtimeAPIVersion+"/invocation/{id}/response", func(w http.ResponseWriter, r *http.Request) { api.finish(w, r, true) })
	mux.HandleFunc("POST "+runtimeAPIVersion+"/invocation/{id}/error", func(w http.ResponseWriter, r *http.Request) { api.finish(w, r, false) })
	mux.HandleFunc("POST "+runtimeAPIVersion+"/init/error", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		api.mu.Lock()
		api.initErrs = append(api.initErrs, b)
		api.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	api.srv = httptest.NewServer(mux)
	return api
}

// addr is AWS_LAMBDA_RUNTIME_API: host and port, no scheme.
func (api *runtimeAPI) addr() string { return strings.TrimPrefix(api.srv.URL, "http://") }

func (api *runtimeAPI) close() {
	close(api.closed)
	api.srv.Close()
}

func (api *runtimeAPI) next(w http.ResponseWriter, r *http.Request) {
	select {
	case inv := <-api.queue:
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-1:123456789012:function:tradejournal-harness")
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000;Sampled=0")
		h.Set("Content-Type", "application/json")
		_, _ = w.Write(inv.payload)
	case <-r.Context().Done():
	case <-api.closed:
	}
}

func (api *runtimeAPI) finish(w http.ResponseWriter, r *http.Request, ok bool) {
	id := r.PathValue("id")
	body, err := io.ReadAll(r.Body)
	at := time.Now()
	api.mu.Lock()
	inv := api.inflight[id]
	delete(api.inflight, id)
	api.mu.Unlock()
	if inv == nil || err != nil {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"errorMessage":"unknown request id","errorType":"InvalidRequestID"}`)
		return
	}
	errType := r.Header.Get("Lambda-Runtime-Function-Error-Type")
	if errType == "" {
		errType = r.Trailer.Get("Lambda-Runtime-Function-Error-Type")
	}
	if !ok && errType == "" {
		var doc struct {
			ErrorType string `json:"errorType"`
		}
		_ = json.Unmarshal(body, &doc)
		errType = doc.ErrorType
	}
	w.WriteHeader(http.StatusAccepted)
	inv.done <- outcome{ok: ok, body: body, errorType: errType, contentType: r.Header.Get("Content-Type"), at: at}
}

// enqueue hands the function one event; the returned channel gets its
// outcome.
func (api *runtimeAPI) enqueue(payload []byte, timeout time.Duration) *invocation {
	inv := &invocation{id: newRequestID(), payload: payload, deadline: time.Now().Add(timeout), done: make(chan outcome, 1)}
	api.mu.Lock()
	api.inflight[inv.id] = inv
	api.mu.Unlock()
	api.queue <- inv
	return inv
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// function is one bootstrap process on its own runtime API.
type function struct {
	name    string
	group   *httpx.Group // nil for the scheduled and migration functions
	api     *runtimeAPI
	cmd     *exec.Cmd
	logs    *syncBuffer
	started time.Time
	// initTime is process start to the first invocation's answer.
	initTime time.Duration
	first    bool
}

// invocationTimeout is the deadline each event carries (the template's 29 s).
const invocationTimeout = 29 * time.Second

func startFunction(t *testing.T, name, bin string, group *httpx.Group, env []string) *function {
	t.Helper()
	api := newRuntimeAPI(t)
	f := &function{name: name, group: group, api: api, logs: &syncBuffer{}, first: true}
	f.cmd = exec.Command(bin)
	f.cmd.Dir = filepath.Dir(bin)
	f.cmd.Env = append([]string{
		"AWS_LAMBDA_RUNTIME_API=" + api.addr(),
		"AWS_LAMBDA_FUNCTION_NAME=tradejournal-" + name,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
		"AWS_REGION=eu-west-1",
		"AWS_DEFAULT_REGION=eu-west-1",
		"LAMBDA_TASK_ROOT=" + filepath.Dir(bin),
		"TZ=UTC",
	}, env...)
	f.cmd.Stdout, f.cmd.Stderr = f.logs, f.logs
	f.started = time.Now()
	if err := f.cmd.Start(); err != nil {
		api.close()
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = f.cmd.Process.Kill()
		_ = f.cmd.Wait()
		api.close()
		if t.Failed() {
			t.Logf("output of %s:\n%s", name, f.logs.String())
		}
	})
	return f
}

// invoke sends one raw event and waits for the function's answer.
func (f *function) invoke(t *testing.T, payload []byte) outcome {
	t.Helper()
	inv := f.api.enqueue(payload, invocationTimeout)
	select {
	case out := <-inv.done:
		if f.first {
			f.first = false
			f.initTime = out.at.Sub(f.started)
		}
		return out
	case <-time.After(invocationTimeout + 5*time.Second):
		exited := ""
		if f.cmd.ProcessState != nil {
			exited = " (the process exited: " + f.cmd.ProcessState.String() + ")"
		}
		t.Fatalf("%s did not answer within %s%s; its output:\n%s", f.name, invocationTimeout, exited, f.logs.String())
		return outcome{}
	}
}

// request is one HTTP request as API Gateway receives it.
type request struct {
	method, path string // path may carry a query
	cookies      []string
	headers      map[string]string
	body         string
	base64       bool
}

// response is the function's API Gateway v2 answer, body decoded.
type response struct {
	events.APIGatewayV2HTTPResponse
	body []byte
	json map[string]any
}

// http sends req as a real API Gateway HTTP API (payload v2) event, with
// the route key and path parameters API Gateway would give it.
func (f *function) http(t *testing.T, req request) response {
	t.Helper()
	path, query, _ := strings.Cut(req.path, "?")
	routeKey, params := f.route(t, req.method, path)
	headers := map[string]string{"user-agent": "deploy-harness", "accept": "application/json", "host": "api.example.com"}
	if req.body != "" {
		headers["content-type"] = "application/json"
	}
	for k, v := range req.headers {
		headers[strings.ToLower(k)] = v
	}
	body := req.body
	if req.base64 {
		body = base64.StdEncoding.EncodeToString([]byte(body))
	}
	now := time.Now().UTC()
	ev := events.APIGatewayV2HTTPRequest{
		Version:         "2.0",
		RouteKey:        routeKey,
		RawPath:         path,
		RawQueryString:  query,
		Cookies:         req.cookies,
		Headers:         headers,
		PathParameters:  params,
		Body:            body,
		IsBase64Encoded: req.base64,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:   routeKey,
			AccountID:  "123456789012",
			Stage:      "$default",
			RequestID:  newRequestID(),
			APIID:      "abcdef1234",
			DomainName: "abcdef1234.execute-api.eu-west-1.amazonaws.com",
			Time:       now.Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:  now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: req.method, Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.7", UserAgent: "deploy-harness",
			},
		},
	}
	if q, err := parseQuery(query); err == nil && len(q) > 0 {
		ev.QueryStringParameters = q
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	out := f.invoke(t, payload)
	if !out.ok {
		t.Fatalf("%s %s: the function reported an error (%s): %s", req.method, req.path, out.errorType, out.body)
	}
	var res response
	if out.contentType == streamingContentType {
		prelude, body, found := bytes.Cut(out.body, make([]byte, 8))
		if !found {
			t.Fatalf("%s %s: a streamed answer without the prelude separator: %q", req.method, req.path, out.body)
		}
		if err := json.Unmarshal(prelude, &res.APIGatewayV2HTTPResponse); err != nil {
			t.Fatalf("%s %s: the streamed answer's prelude: %v\n%s", req.method, req.path, err, prelude)
		}
		res.body = body
		_ = json.Unmarshal(res.body, &res.json)
		return res
	}
	if err := json.Unmarshal(out.body, &res.APIGatewayV2HTTPResponse); err != nil {
		t.Fatalf("%s %s: the answer is not an API Gateway v2 response: %v\n%s", req.method, req.path, err, out.body)
	}
	res.body = []byte(res.Body)
	if res.IsBase64Encoded {
		if res.body, err = base64.StdEncoding.DecodeString(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	_ = json.Unmarshal(res.body, &res.json)
	return res
}

func parseQuery(q string) (map[string]string, error) {
	out := map[string]string{}
	for kv := range strings.SplitSeq(q, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out, nil
}

// route finds the template route of f's group that API Gateway would match,
// or $default when f takes the unmatched requests.
func (f *function) route(t *testing.T, method, path string) (string, map[string]string) {
	t.Helper()
	if f.group != nil {
		for _, rt := range f.group.Routes {
			m, tmpl, err := deploy.APIRoute(rt.Pattern)
			if err != nil || m != method {
				continue
			}
			if params, ok := matchRoute(tmpl, path); ok {
				return m + " " + tmpl, params
			}
		}
		if f.group.Name == deploy.DefaultRouteGroup {
			return "$default", nil
		}
	}
	t.Fatalf("%s %s matches no route of %s: API Gateway would not send it there", method, path, f.name)
	return "", nil
}

func matchRoute(tmpl, path string) (map[string]string, bool) {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(path, "/")
	params := map[string]string{}
	for i, s := range ts {
		if strings.HasSuffix(s, "+}") {
			params[strings.Trim(s, "{+}")] = strings.Join(ps[i:], "/")
			return params, i < len(ps)
		}
		if i >= len(ps) {
			return nil, false
		}
		if strings.HasPrefix(s, "{") {
			if ps[i] == "" {
				return nil, false
			}
			params[strings.Trim(s, "{}")] = ps[i]
			continue
		}
		if s != ps[i] {
			return nil, false
		}
	}
	if len(ts) != len(ps) {
		return nil, false
	}
	if len(params) == 0 {
		params = nil
	}
	return params, true
}

// --- building the bootstraps -------------------------------------------------

// buildVersion is stamped into the test builds, as a release stamps its own.
const buildVersion = "v0.14.0-harness"

type built struct {
	path string
	size int64
}

var (
	buildsOnce sync.Once
	buildsDir  string
	builds     map[string]built
	buildsErr  error
)

// bootstraps builds every functions/<dir>/lambda main once per test run,
// into a temporary directory, through the Makefile rule sam build runs
// (`make build-<LogicalId>` with ARTIFACTS_DIR), for this machine's
// architecture: the binary that would ship, only native.
func bootstraps(t *testing.T) map[string]built {
	t.Helper()
	buildsOnce.Do(func() {
		buildsDir, buildsErr = os.MkdirTemp("", "tradejournal-bootstraps-")
		if buildsErr != nil {
			return
		}
		builds, buildsErr = buildAll(root(t), buildsDir, runtime.GOARCH)
	})
	if buildsErr != nil {
		t.Fatalf("building the bootstraps: %v", buildsErr)
	}
	return builds
}

func buildAll(repo, dir, goarch string) (map[string]built, error) {
	matches, err := filepath.Glob(filepath.Join(repo, "functions", "*", "lambda", "main.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, m := range matches {
		names = append(names, filepath.Base(filepath.Dir(filepath.Dir(m))))
	}
	slices.Sort(names)
	// Each link is mostly one core's work; the compile cache is shared.
	sem := make(chan struct{}, max(1, min(runtime.NumCPU(), 4)))
	var mu sync.Mutex
	out := map[string]built{}
	var errs []string
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			artifacts := filepath.Join(dir, goarch, name)
			cmd := exec.Command("make", "--no-print-directory", "build-"+deploy.LogicalID(name), "ARTIFACTS_DIR="+artifacts)
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "GOARCH="+goarch, "BUILD_VERSION="+buildVersion)
			b, err := cmd.CombinedOutput()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Sprintf("make build-%s: %v\n%s", deploy.LogicalID(name), err, b))
				return
			}
			path := filepath.Join(artifacts, "bootstrap")
			st, err := os.Stat(path)
			if err != nil {
				errs = append(errs, err.Error())
				return
			}
			out[name] = built{path: path, size: st.Size()}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildsDir != "" {
		_ = os.RemoveAll(buildsDir)
	}
	os.Exit(code)
}
