package assistant_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/app"
	"tradejournal/shared/config"
	"tradejournal/shared/testbin"
	"tradejournal/shared/wallet"
)

// The provider's test double: a real HTTP server on loopback that speaks
// the chat-completions streaming protocol (SSE chunks, usage in the last
// chunk before [DONE] because the request asks for include_usage). Each
// test scripts what it answers.

const (
	testKey     = "sk-test-SECRET-assistant-key-0123456789"
	testModel   = "test-model"
	inputPrice  = 150000 // micro-USD per million prompt tokens
	outputPrice = 600000 // micro-USD per million completion tokens
)

// step is one thing the fake provider does while streaming.
type step struct {
	text  string        // a delta chunk
	usage *[2]int64     // a usage chunk (prompt, completion)
	raw   string        // raw bytes written as they are
	wait  time.Duration // sleep (cut short when the request ends)
	gate  chan struct{} // block until closed (or the request ends)
	cut   bool          // drop the connection here, mid-stream
	done  bool          // data: [DONE] (OpenAI); message_stop (Anthropic)
	tool  *[3]string    // a tool call: id, name, arguments (sent in two pieces)
	fail  string        // an error event of the stream, of this type
}

type fakeProvider struct {
	*httptest.Server
	mu       sync.Mutex
	script   func(n int) (status int, steps []step)
	requests []recorded
	// ended gets a value as each request's handler returns (when someone
	// has room to take it).
	ended chan struct{}
}

type recorded struct {
	Path    string
	Auth    string // Authorization (OpenAI) or x-api-key (Anthropic)
	Version string // anthropic-version
	Body    map[string]any
	Raw     string
}

func newFakeProvider(t testing.TB) *fakeProvider {
	f := &fakeProvider{ended: make(chan struct{}, 16)}
	f.script = func(int) (int, []step) {
		return 200, []step{{text: "Hello"}, {text: " trader."}, {usage: &[2]int64{1000, 200}}, {done: true}}
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	defer func() {
		select {
		case f.ended <- struct{}{}:
		default: // nobody watches this request's end
		}
	}()
	anthropic := r.URL.Path == "/v1/messages"
	if r.Method != http.MethodPost || (r.URL.Path != "/v1/chat/completions" && !anthropic) {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	n := len(f.requests)
	auth := r.Header.Get("Authorization")
	if anthropic {
		auth = r.Header.Get("x-api-key")
	}
	f.requests = append(f.requests, recorded{Path: r.URL.Path, Auth: auth, Version: r.Header.Get("anthropic-version"), Body: body, Raw: string(raw)})
	script := f.script
	f.mu.Unlock()

	status, steps := script(n)
	if status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		// Like some providers, echo part of the key in the message.
		switch {
		case anthropic && status == 529:
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		case anthropic:
			fmt.Fprintf(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`, testKey)
		default:
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s","type":"invalid_request_error","code":"invalid_api_key"}}`, testKey)
		}
		return
	}
	if anthropic {
		f.serveAnthropic(w, r, steps)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	tools := 0 // tool calls of this answer: each its own index
	for _, s := range steps {
		switch {
		case s.text != "":
			c, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": s.text}}}})
			fmt.Fprintf(w, "data: %s\n\n", c)
		case s.tool != nil:
			for i, piece := range []string{s.tool[2][:len(s.tool[2])/2], s.tool[2][len(s.tool[2])/2:]} {
				fn := map[string]any{"arguments": piece}
				tc := map[string]any{"index": tools, "function": fn}
				if i == 0 {
					tc["id"], tc["type"], fn["name"] = s.tool[0], "function", s.tool[1]
				}
				c, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": []any{tc}}}}})
				fmt.Fprintf(w, "data: %s\n\n", c)
			}
			tools++
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n")
		case s.fail != "":
			fmt.Fprintf(w, `data: {"error":{"type":%q,"message":"boom"}}`+"\n\n", s.fail)
		case s.usage != nil:
			fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\n", s.usage[0], s.usage[1], s.usage[0]+s.usage[1])
		case s.raw != "":
			io.WriteString(w, s.raw)
		case s.wait > 0:
			select {
			case <-time.After(s.wait):
			case <-r.Context().Done():
				return
			}
		case s.gate != nil:
			select {
			case <-s.gate:
			case <-r.Context().Done():
				return
			}
		case s.cut:
			_ = rc.Flush()
			conn, _, err := rc.Hijack()
			if err == nil {
				conn.Close()
			}
			return
		case s.done:
			io.WriteString(w, "data: [DONE]\n\n")
		}
		_ = rc.Flush()
	}
}

// serveAnthropic streams the steps as Messages API events: text blocks,
// tool_use blocks with input_json_delta, usage in message_start and
// message_delta, message_stop for done, error events.
func (f *fakeProvider) serveAnthropic(w http.ResponseWriter, r *http.Request, steps []step) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_1","role":"assistant","usage":{"input_tokens":0,"output_tokens":1}}}`)
	_ = rc.Flush()
	block := 0
	for _, s := range steps {
		switch {
		case s.text != "":
			ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, block))
			d, _ := json.Marshal(s.text)
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, block, d))
			ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, block))
			block++
		case s.tool != nil:
			ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, block, s.tool[0], s.tool[1]))
			for _, piece := range []string{s.tool[2][:len(s.tool[2])/2], s.tool[2][len(s.tool[2])/2:]} {
				d, _ := json.Marshal(piece)
				ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, block, d))
			}
			ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, block))
			block++
		case s.usage != nil:
			ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":%d,"output_tokens":%d}}`, s.usage[0], s.usage[1]))
		case s.fail != "":
			ev("error", fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":"boom"}}`, s.fail))
		case s.raw != "":
			io.WriteString(w, s.raw)
		case s.wait > 0:
			select {
			case <-time.After(s.wait):
			case <-r.Context().Done():
				return
			}
		case s.cut:
			_ = rc.Flush()
			if conn, _, err := rc.Hijack(); err == nil {
				conn.Close()
			}
			return
		case s.done:
			ev("message_stop", `{"type":"message_stop"}`)
		}
		_ = rc.Flush()
	}
}

func (f *fakeProvider) calls() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func (f *fakeProvider) setScript(s func(n int) (int, []step)) {
	f.mu.Lock()
	f.script = s
	f.mu.Unlock()
}

// env is one running API with the assistant pointed at a fake provider.
type env struct {
	t        testing.TB
	srv      *apitest.Server
	app      *app.App
	provider *fakeProvider
	logs     *testbin.SyncBuffer
}

// assistantConfig is the configuration of a start with the assistant on.
func assistantConfig(t testing.TB, p *fakeProvider) config.Config {
	cfg := apitest.Config(t)
	cfg.LogLevel = "debug"
	cfg.Assistant = config.Assistant{BaseURL: p.URL + "/v1", APIKey: testKey, Model: testModel,
		InputPrice: inputPrice, OutputPrice: outputPrice, TurnBudget: 30 * time.Second,
		Models: []config.AssistantModel{{ID: testModel, Provider: "openai", BaseURL: p.URL + "/v1", InputPrice: inputPrice, OutputPrice: outputPrice}}}
	cfg.Billing.SecretKey = "sk_test_billing_on" // credits can be bought: refusals are INSUFFICIENT_CREDITS
	return cfg
}

func start(t testing.TB, cfg config.Config, p *fakeProvider) *env {
	t.Helper()
	logs := &testbin.SyncBuffer{}
	srv := apitest.StartLogged(t, cfg, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), functions.All)
	return &env{t: t, srv: srv, app: srv.App, provider: p, logs: logs}
}

// startFunded is most tests' start: the assistant on against a new fake
// provider, and one user (email) with credits to spare.
func startFunded(t testing.TB, email string) (*fakeProvider, *env, *user) {
	t.Helper()
	p := newFakeProvider(t)
	e := start(t, assistantConfig(t, p), p)
	u := e.user(email)
	u.credit(1_000_000)
	return p, e, u
}

// user is one signed-in browser.
type user struct {
	*apitest.Client
	e  *env
	ID string
}

// anonymous is a browser without a session.
func (e *env) anonymous() *user {
	return &user{Client: e.srv.Client(e.t), e: e}
}

func (e *env) user(email string) *user {
	e.t.Helper()
	u := e.anonymous()
	res := u.Register(email, "password123")
	u.ID = res.JSON["user"].(map[string]any)["id"].(string)
	return u
}

// credit gives the user credits as a purchase would.
func (u *user) credit(n int64) {
	u.e.t.Helper()
	if _, err := wallet.CreditPurchase(context.Background(), u.e.app.DB, u.ID, n, "test", "test-"+u.ID, time.Now()); err != nil {
		u.e.t.Fatal(err)
	}
}

func (u *user) balance() wallet.Balance {
	u.e.t.Helper()
	b, err := wallet.Get(context.Background(), u.e.app.DB, u.ID)
	if err != nil {
		u.e.t.Fatal(err)
	}
	return b
}

// event is one server-sent event of a turn.
type event struct {
	Name string
	Data map[string]any
}

// turnResult is a whole answered submit: its events, or the JSON error
// when Status is not 200.
type turnResult struct {
	apitest.Response
	Events []event
}

func (r turnResult) done() map[string]any {
	for _, e := range r.Events {
		if e.Name == "done" {
			return e.Data
		}
	}
	return nil
}

func (r turnResult) text() string {
	var b strings.Builder
	for _, e := range r.Events {
		if e.Name == "delta" {
			b.WriteString(e.Data["content"].(string))
		}
	}
	return b.String()
}

// ask submits a question and reads the whole answer.
func (u *user) ask(conversation, content, key string) turnResult {
	u.e.t.Helper()
	return u.submit(conversation, map[string]any{"content": content, "idempotencyKey": key})
}

// submit posts a turn's body (model, images, ...) and reads the whole answer.
func (u *user) submit(conversation string, body map[string]any) turnResult {
	u.e.t.Helper()
	res, err := u.Open(context.Background(), "POST", "/api/assistant/conversations/"+conversation+"/messages/stream", body)
	if err != nil {
		u.e.t.Fatalf("submit: %v", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return turnResult{Response: apitest.ReadResponse(res)}
	}
	return turnResult{Response: apitest.Response{Status: res.StatusCode, Header: res.Header}, Events: readEvents(u.e.t, bufio.NewReader(res.Body), -1)}
}

// readEvents parses SSE events from r until the body ends, or until n
// events were read when n >= 0.
func readEvents(t testing.TB, r *bufio.Reader, n int) []event {
	t.Helper()
	var (
		out  []event
		name string
		data strings.Builder
	)
	for n < 0 || len(out) < n {
		line, err := r.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" && (name != "" || data.Len() > 0) {
			var v map[string]any
			if jerr := json.Unmarshal([]byte(data.String()), &v); jerr != nil {
				t.Fatalf("event %s: data %q is not JSON: %v", name, data.String(), jerr)
			}
			out = append(out, event{Name: name, Data: v})
			name = ""
			data.Reset()
		}
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data.WriteString(strings.TrimPrefix(line, "data: "))
		}
		if err != nil {
			break
		}
	}
	return out
}

// waitFor polls cond for up to 10 s: the server finishes a turn after the
// client left, on its own time.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// turnRow is a turn as stored.
type turnRow struct {
	Status, Reason string
	Charged        int64
	Reservation    string
	HoldStatus     string
}

func (e *env) turn(id string) turnRow {
	e.t.Helper()
	var r turnRow
	var reason *string
	err := e.app.DB.QueryRow(context.Background(), `SELECT t.status, t.end_reason, t.credits_charged, t.reservation_id::text, c.status
		FROM assistant_turns t JOIN credit_reservations c ON c.id = t.reservation_id WHERE t.id = $1`, id).
		Scan(&r.Status, &reason, &r.Charged, &r.Reservation, &r.HoldStatus)
	if err != nil {
		e.t.Fatalf("turn %s: %v", id, err)
	}
	if reason != nil {
		r.Reason = *reason
	}
	return r
}

// allowJournal sets the user's consent to the assistant reading their journal.
func (u *user) allowJournal(on bool) {
	u.e.t.Helper()
	if res := u.Do("PUT", "/api/assistant/settings", map[string]any{"journalAccess": on}); res.Status != 200 || res.JSON["journalAccess"] != on {
		u.e.t.Fatalf("settings: %d %s", res.Status, res.Body)
	}
}
