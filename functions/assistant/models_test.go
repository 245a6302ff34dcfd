package assistant_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"tradejournal/shared/config"
	"tradejournal/shared/market/markettest"
)

const (
	aliceOwnKey  = "sk-alice-OWN-key-9876543210-wxyz"
	claudeModel  = "claude-test"
	operatorAnth = "sk-ant-OPERATOR-key-0123456789"
)

// pngBytes is the start of a PNG: enough for the type check.
var pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 64)...)

func creditUsages(t *testing.T, e *env, turnID string) int {
	t.Helper()
	var n int
	if err := e.app.DB.QueryRow(context.Background(), `SELECT count(*) FROM credit_usage u JOIN assistant_turns t ON t.reservation_id = u.reservation_id
		WHERE t.id = $1`, turnID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func eventNames(r turnResult) string {
	var names []string
	for _, e := range r.Events {
		names = append(names, e.Name)
	}
	return strings.Join(names, ",")
}

// A turn whose model calls a tool: the call and its result are streamed and
// stored, the second provider call carries the result, and the two rounds'
// usage is charged once, on one hold.
func TestToolRoundsChargedOnce(t *testing.T) {
	p, e, alice := startFunded(t, "tools@example.com")
	alice.trade("MSFT", "tool-note", "100", "90", "2024-05-06T14:00:00Z", "2024-05-06T15:00:00Z")
	alice.allowJournal(true)
	p.setScript(func(n int) (int, []step) {
		if n == 0 {
			return 200, []step{{tool: &[3]string{"call_1", "statistics", `{"symbol":"MSFT"}`}}, {usage: &[2]int64{1000, 200}}, {done: true}}
		}
		return 200, []step{{text: "MSFT lost 102."}, {usage: &[2]int64{500, 100}}, {done: true}}
	})
	res := alice.ask("new", "How does MSFT do?", "k-tools-1")
	if got := eventNames(res); got != "start,tool_call,tool_result,delta,done" {
		t.Fatalf("events %s", got)
	}
	call, result := res.Events[1].Data, res.Events[2].Data
	if call["name"] != "statistics" || call["arguments"].(map[string]any)["symbol"] != "MSFT" ||
		!strings.Contains(result["result"].(string), "trades 1, wins 0, losses 1") {
		t.Fatalf("tool events %v %v", call, result)
	}
	// raw = 1500 x 0.15 + 300 x 0.6 = 405; x 1.2 = 486.
	done := res.done()
	if done["creditsCharged"] != float64(486) || done["status"] != "complete" {
		t.Fatalf("done %v", done)
	}
	turnID := done["turnId"].(string)
	if n := creditUsages(t, e, turnID); n != 1 {
		t.Fatalf("%d usage records, want 1", n)
	}
	if b := alice.balance(); b.Balance != 1_000_000-486 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}
	calls := p.calls()
	if len(calls) != 2 || !strings.Contains(calls[1].Raw, `"role":"tool"`) || !strings.Contains(calls[1].Raw, `"tool_call_id":"call_1"`) ||
		!strings.Contains(calls[1].Raw, "trades 1, wins 0, losses 1") {
		t.Fatalf("second request %s", calls[len(calls)-1].Raw)
	}
	conv := alice.Do("GET", "/api/assistant/conversations/"+done["conversationId"].(string), nil)
	stored := conv.JSON["toolCalls"].([]any)
	if len(stored) != 1 || stored[0].(map[string]any)["name"] != "statistics" || stored[0].(map[string]any)["turnId"] != turnID {
		t.Fatalf("stored tool calls %s", conv.Body)
	}

	t.Run("ReplayRepeatsTheToolsFreeOfCharge", func(t *testing.T) {
		n := len(p.calls())
		again := alice.ask("new", "How does MSFT do?", "k-tools-1")
		if got := eventNames(again); got != "start,tool_call,tool_result,delta,done" || again.done()["replay"] != true || len(p.calls()) != n {
			t.Fatalf("replay events %s, done %v", got, again.done())
		}
		if again.Events[2].Data["result"] != result["result"] {
			t.Fatalf("replayed result %v", again.Events[2].Data)
		}
	})

	t.Run("CutStreamAfterAToolRound", func(t *testing.T) {
		p.setScript(func(n int) (int, []step) {
			if n == 2 {
				return 200, []step{{tool: &[3]string{"call_2", "list_positions", `{}`}}, {usage: &[2]int64{1000, 200}}, {done: true}}
			}
			return 200, []step{{text: "Half"}, {cut: true}}
		})
		before := alice.balance().Balance
		res := alice.ask("new", "List my trades", "k-tools-cut")
		done := res.done()
		// Only the first round reported usage: 1000 x 0.15 + 200 x 0.6 = 270; x 1.2 = 324.
		if done["reason"] != "provider_error" || done["creditsCharged"] != float64(324) {
			t.Fatalf("done %v", done)
		}
		row := e.turn(done["turnId"].(string))
		if row.HoldStatus != "settled" || row.Charged != 324 || creditUsages(t, e, done["turnId"].(string)) != 1 {
			t.Fatalf("turn %+v", row)
		}
		if b := alice.balance(); before-b.Balance != 324 || b.Reserved != 0 {
			t.Fatalf("charged %d, reserved %d", before-b.Balance, b.Reserved)
		}
	})

	t.Run("RoundsAreBounded", func(t *testing.T) {
		before := len(p.calls())
		p.setScript(func(int) (int, []step) {
			return 200, []step{{tool: &[3]string{"call_x", "position_size", `{"mode":"stock","direction":"long","entryPrice":"100","stopLoss":"95","dollarRisk":"500"}`}}, {usage: &[2]int64{10, 1}}, {done: true}}
		})
		res := alice.ask("new", "Size it", "k-tools-loop")
		if n := len(p.calls()) - before; n != 9 {
			t.Fatalf("%d provider calls, want 8 tool rounds and one final", n)
		}
		// The last round lists the tools (its messages hold calls of them)
		// but may call none.
		last := p.calls()[len(p.calls())-1]
		if _, listed := last.Body["tools"]; !listed || last.Body["tool_choice"] != "none" {
			t.Fatalf("the last round: tools listed %v, tool_choice %v", listed, last.Body["tool_choice"])
		}
		if before := p.calls()[len(p.calls())-2]; before.Body["tool_choice"] != nil {
			t.Fatalf("an earlier round with tool_choice %v", before.Body["tool_choice"])
		}
		if !strings.Contains(res.Events[2].Data["result"].(string), `"positionSize":100`) {
			t.Fatalf("calculator result %v", res.Events[2].Data)
		}
		if n := creditUsages(t, e, res.done()["turnId"].(string)); n != 1 {
			t.Fatalf("%d usage records", n)
		}
	})
}

// Consent off: no journal data in any request, no journal tool offered,
// and a journal tool the model calls anyway answers nothing of the journal.
func TestConsentOffKeepsTheJournalOut(t *testing.T) {
	p, _, alice := startFunded(t, "consent@example.com")
	alice.trade("NVDA", "secret-consent-note", "100", "90", "2024-05-06T14:00:00Z", "2024-05-06T15:00:00Z")
	if res := alice.Do("GET", "/api/assistant/settings", nil); res.Status != 200 || res.JSON["journalAccess"] != false {
		t.Fatalf("default settings %d %s", res.Status, res.Body)
	}
	p.setScript(func(n int) (int, []step) {
		if n == 0 {
			return 200, []step{{tool: &[3]string{"c1", "list_positions", `{}`}}, {usage: &[2]int64{10, 1}}, {done: true}}
		}
		return 200, []step{{text: "I cannot see your journal."}, {usage: &[2]int64{10, 1}}, {done: true}}
	})
	res := alice.ask("new", "What about NVDA?", "k-consent-1")
	if res.done()["status"] != "complete" {
		t.Fatalf("done %v", res.done())
	}
	calls := p.calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls {
		for _, not := range []string{"secret-consent-note", "Statistics over", "NVDA long", "list_positions\",\"description"} {
			if strings.Contains(c.Raw, not) {
				t.Errorf("request %d holds %q", i, not)
			}
		}
		tools, _ := c.Body["tools"].([]any)
		if len(tools) != 1 || tools[0].(map[string]any)["function"].(map[string]any)["name"] != "position_size" {
			t.Errorf("request %d offers %v", i, c.Body["tools"])
		}
	}
	if !strings.Contains(calls[1].Raw, "error: there is no tool named") {
		t.Fatalf("the refused tool's result %s", calls[1].Raw)
	}

	alice.allowJournal(true)
	p.setScript(func(int) (int, []step) { return 200, []step{{text: "ok"}, {usage: &[2]int64{10, 1}}, {done: true}} })
	alice.ask("new", "And now?", "k-consent-2")
	if last := p.calls()[len(p.calls())-1]; !strings.Contains(last.Raw, "secret-consent-note") {
		t.Fatal("with consent the journal is still left out")
	}
}

// ownKeysConfig: no model of the operator, own keys allowed, sealing on.
func ownKeysConfig(t *testing.T, p *fakeProvider, sealed bool) config.Config {
	cfg := assistantConfig(t, p)
	cfg.Assistant.Models, cfg.Assistant.APIKey, cfg.Assistant.Model = nil, "", ""
	cfg.Assistant.OwnKeys = true
	cfg.Assistant.AnthropicBaseURL = p.URL + "/v1"
	if sealed {
		cfg.Encryption.Key = bytes.Repeat([]byte{3}, 32)
	}
	return cfg
}

// A trader's own key: stored sealed, listed masked, used only for them,
// spending no credits (no pre-stream gate), and never logged or returned.
func TestOwnKeys(t *testing.T) {
	p := newFakeProvider(t)
	e := start(t, ownKeysConfig(t, p, true), p)
	alice, bob := e.user("ownkey-a@example.com"), e.user("ownkey-b@example.com")

	if res := alice.Do("GET", "/api/assistant/models", nil); res.Status != 200 || len(res.JSON["items"].([]any)) != 0 || res.JSON["ownKeys"] != true {
		t.Fatalf("models before any key %d %s", res.Status, res.Body)
	}
	if res := alice.ask("new", "Hi", "k-own-none"); res.Status != 400 || !strings.Contains(string(res.Body), "add your own provider key") {
		t.Fatalf("no model: %d %s", res.Status, res.Body)
	}
	for _, bad := range []map[string]any{
		{"provider": "gemini", "model": "m", "apiKey": aliceOwnKey},
		{"provider": "openai", "model": "", "apiKey": aliceOwnKey},
		{"provider": "openai", "model": "m", "apiKey": "short"},
		{"provider": "openai", "model": "m", "apiKey": "has a space in it"},
	} {
		if res := alice.Do("POST", "/api/assistant/keys", bad); res.Status != 400 || res.JSON["error"].(map[string]any)["code"] != "VALIDATION_ERROR" {
			t.Fatalf("%v: %d %s", bad, res.Status, res.Body)
		}
	}
	res := alice.Do("POST", "/api/assistant/keys", map[string]any{"provider": "openai", "model": "gpt-own", "apiKey": aliceOwnKey})
	if res.Status != 201 || strings.Contains(string(res.Body), aliceOwnKey) {
		t.Fatalf("add %d %s", res.Status, res.Body)
	}
	key := res.JSON["key"].(map[string]any)
	if key["masked"] != "…wxyz" || key["model"] != "gpt-own" {
		t.Fatalf("key %v", key)
	}
	var stored string
	if err := e.app.DB.QueryRow(context.Background(), `SELECT secret FROM assistant_keys WHERE id = $1`, key["id"]).Scan(&stored); err != nil || strings.Contains(stored, aliceOwnKey) {
		t.Fatalf("stored %q %v", stored, err)
	}
	if res := alice.Do("GET", "/api/assistant/keys", nil); strings.Contains(string(res.Body), aliceOwnKey) || len(res.JSON["items"].([]any)) != 1 {
		t.Fatalf("list %s", res.Body)
	}
	models := alice.Do("GET", "/api/assistant/models", nil).JSON["items"].([]any)
	modelID := "key:" + key["id"].(string)
	if len(models) != 1 || models[0].(map[string]any)["id"] != modelID || models[0].(map[string]any)["ownKey"] != true {
		t.Fatalf("models %v", models)
	}

	// No credits at all, and the turn still runs: no gate, nothing charged.
	turn := alice.submit("new", map[string]any{"content": "Hi", "idempotencyKey": "k-own-1", "model": modelID})
	if turn.Status != 200 || turn.done()["creditsCharged"] != float64(0) || turn.done()["status"] != "complete" {
		t.Fatalf("own-key turn %d %s %v", turn.Status, turn.Body, turn.done())
	}
	if c := p.calls()[0]; c.Auth != "Bearer "+aliceOwnKey || c.Body["model"] != "gpt-own" {
		t.Fatalf("provider got auth %q model %v", c.Auth, c.Body["model"])
	}
	if b := alice.balance(); b.Balance != 0 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}

	// Bob cannot use, list or delete alice's key.
	if res := bob.submit("new", map[string]any{"content": "Hi", "idempotencyKey": "k-own-bob", "model": modelID}); res.Status != 400 ||
		!strings.Contains(string(res.Body), "not one of the models you can use") {
		t.Fatalf("bob with alice's key: %d %s", res.Status, res.Body)
	}
	if len(p.calls()) != 1 {
		t.Fatal("bob's refused turn reached the provider")
	}
	if res := bob.Do("GET", "/api/assistant/keys", nil); len(res.JSON["items"].([]any)) != 0 {
		t.Fatalf("bob lists %s", res.Body)
	}
	if res := bob.Do("DELETE", "/api/assistant/keys/"+key["id"].(string), nil); res.Status != 404 {
		t.Fatalf("bob deletes: %d", res.Status)
	}
	if strings.Contains(e.logs.String(), aliceOwnKey) {
		t.Fatal("the own key reached a log line")
	}

	// A refused own key is named as the trader's.
	p.setScript(func(int) (int, []step) { return 401, nil })
	if res := alice.submit("new", map[string]any{"content": "Hi", "idempotencyKey": "k-own-401", "model": modelID}); res.Status != 502 ||
		!strings.Contains(string(res.Body), "refused your key for gpt-own") || strings.Contains(string(res.Body), testKey) {
		t.Fatalf("refused key: %d %s", res.Status, res.Body)
	}

	if res := alice.Do("DELETE", "/api/assistant/keys/"+key["id"].(string), nil); res.Status != 204 {
		t.Fatalf("delete %d", res.Status)
	}
	if res := alice.Do("DELETE", "/api/assistant/keys/"+key["id"].(string), nil); res.Status != 404 {
		t.Fatalf("delete again %d", res.Status)
	}

	t.Run("EncryptionRequired", func(t *testing.T) {
		p := newFakeProvider(t)
		e := start(t, ownKeysConfig(t, p, false), p)
		u := e.user("ownkey-c@example.com")
		res := u.Do("POST", "/api/assistant/keys", map[string]any{"provider": "anthropic", "model": "c", "apiKey": aliceOwnKey})
		if res.Status != 409 || res.JSON["error"].(map[string]any)["code"] != "ENCRYPTION_REQUIRED" || strings.Contains(string(res.Body), aliceOwnKey) {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	})
}

func anthropicConfig(t *testing.T, p *fakeProvider) config.Config {
	cfg := assistantConfig(t, p)
	cfg.Assistant.AnthropicAPIKey = operatorAnth
	cfg.Assistant.Models = append(cfg.Assistant.Models, config.AssistantModel{ID: claudeModel, Provider: "anthropic",
		BaseURL: p.URL + "/v1", InputPrice: inputPrice, OutputPrice: outputPrice, Images: true})
	return cfg
}

// The Anthropic Messages API: headers, streamed text and usage, tool_use
// with input_json_delta and tool_result, image parts, and its errors in words.
func TestAnthropic(t *testing.T) {
	p := newFakeProvider(t)
	e := start(t, anthropicConfig(t, p), p)
	alice := e.user("anthropic@example.com")
	alice.credit(1_000_000)
	alice.allowJournal(true)
	models := alice.Do("GET", "/api/assistant/models", nil).JSON["items"].([]any)
	if len(models) != 2 || models[1].(map[string]any)["provider"] != "anthropic" || models[1].(map[string]any)["images"] != true {
		t.Fatalf("models %v", models)
	}
	p.setScript(func(n int) (int, []step) {
		if n == 0 {
			return 200, []step{{text: "Let me look. "}, {tool: &[3]string{"toolu_1", "statistics", `{"side":"long"}`}}, {usage: &[2]int64{1000, 200}}, {done: true}}
		}
		return 200, []step{{text: "No trades yet."}, {usage: &[2]int64{500, 100}}, {done: true}}
	})
	res := alice.submit("new", map[string]any{"content": "Look at this chart", "idempotencyKey": "k-anth-1", "model": claudeModel,
		"images": []any{map[string]any{"data": base64.StdEncoding.EncodeToString(pngBytes)}}})
	if got := eventNames(res); got != "start,delta,tool_call,tool_result,delta,done" || res.text() != "Let me look. No trades yet." {
		t.Fatalf("events %s text %q", got, res.text())
	}
	if res.done()["creditsCharged"] != float64(486) {
		t.Fatalf("done %v", res.done())
	}
	calls := p.calls()
	first, second := calls[0], calls[1]
	if first.Path != "/v1/messages" || first.Auth != operatorAnth || first.Version != "2023-06-01" || first.Body["stream"] != true {
		t.Fatalf("request %s %q %q", first.Path, first.Auth, first.Version)
	}
	if !strings.Contains(first.Raw, `"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+base64.StdEncoding.EncodeToString(pngBytes)) {
		t.Fatalf("no image part in %s", first.Raw)
	}
	if !strings.Contains(second.Raw, `"type":"tool_use","id":"toolu_1","name":"statistics","input":{"side":"long"}`) ||
		!strings.Contains(second.Raw, `"type":"tool_result","tool_use_id":"toolu_1"`) {
		t.Fatalf("second request %s", second.Raw)
	}

	for _, tc := range []struct {
		name   string
		script func(int) (int, []step)
		status int
		words  string
		prob   string
	}{
		{"BadKey", func(int) (int, []step) { return 401, nil }, 502, "refused this server's key for claude-test", ""},
		{"Overloaded", func(int) (int, []step) { return 529, nil }, 502, "overloaded", ""},
		{"RateLimitInStream", func(int) (int, []step) { return 200, []step{{text: "a"}, {fail: "rate_limit_error"}} }, 200, "", "rate_limited"},
		{"OverloadedInStream", func(int) (int, []step) { return 200, []step{{fail: "overloaded_error"}} }, 200, "", "overloaded"},
		{"Cut", func(int) (int, []step) { return 200, []step{{text: "a"}, {cut: true}} }, 200, "", "unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.setScript(tc.script)
			before := alice.balance().Balance
			res := alice.submit("new", map[string]any{"content": "Hi", "idempotencyKey": "k-anth-" + tc.name, "model": claudeModel})
			if res.Status != tc.status || !strings.Contains(string(res.Body), tc.words) || strings.Contains(string(res.Body), operatorAnth) {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			if tc.prob != "" && res.done()["problem"] != tc.prob {
				t.Fatalf("done %v", res.done())
			}
			if b := alice.balance(); b.Balance != before || b.Reserved != 0 {
				t.Fatalf("charged %d for a failed turn", before-b.Balance)
			}
		})
	}
	if strings.Contains(e.logs.String(), operatorAnth) {
		t.Fatal("the Anthropic key reached a log line")
	}
}

// Images go only to models that take them; others refuse in words naming
// the model, before any credit is held; bad images are refused too.
func TestImages(t *testing.T) {
	p, _, alice := startFunded(t, "images@example.com")
	img := base64.StdEncoding.EncodeToString(pngBytes)
	res := alice.submit("new", map[string]any{"content": "Chart", "idempotencyKey": "k-img-1", "images": []any{map[string]any{"data": img}}})
	if res.Status != 400 || !strings.Contains(string(res.Body), "cannot be sent to the model "+testModel) {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	for _, bad := range []string{"not-base64!", base64.StdEncoding.EncodeToString([]byte("GIF89a....."))} {
		res := alice.submit("new", map[string]any{"content": "Chart", "idempotencyKey": "k-img-2", "images": []any{map[string]any{"data": bad}}})
		if res.Status != 400 || !strings.Contains(string(res.Body), "PNG, JPEG or WebP") {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
	}
	if len(p.calls()) != 0 || alice.balance().Reserved != 0 {
		t.Fatal("a refused image reached the provider or held credits")
	}

	// A model that takes images gets an image_url data URL.
	p2 := newFakeProvider(t)
	cfg := assistantConfig(t, p2)
	cfg.Assistant.Models[0].Images = true
	e2 := start(t, cfg, p2)
	u := e2.user("images2@example.com")
	u.credit(1_000_000)
	if res := u.submit("new", map[string]any{"content": "Chart", "idempotencyKey": "k-img-3", "images": []any{map[string]any{"data": img}}}); res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	if raw := p2.calls()[0].Raw; !strings.Contains(raw, `{"image_url":{"url":"data:image/png;base64,`+img+`"},"type":"image_url"}`) {
		t.Fatalf("request %s", raw)
	}
}

// The journal tools read as the caller: the list takes the journal's
// filter, a position comes with its whole notes, another user's position
// is as absent as a made-up one, and a day's journal entry is read.
func TestJournalTools(t *testing.T) {
	p, e, alice := startFunded(t, "jtools@example.com")
	aapl := alice.trade("AAPL", "aapl-full-note "+strings.Repeat("x", 300)+" END", "100", "90", "2024-05-06T14:00:00Z", "2024-05-06T15:00:00Z")
	alice.trade("MSFT", "msft-note", "100", "110", "2024-05-07T14:00:00Z", "2024-05-07T15:00:00Z")
	alice.allowJournal(true)
	if res := alice.Do("POST", "/api/rules", map[string]any{"type": "requiredFields", "params": map[string]any{"fields": []string{"target"}}}); res.Status != 201 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	bob := e.user("jtools-bob@example.com")
	bobs := bob.trade("ZZZB", "bob-secret-note", "10", "20", "2024-05-07T14:00:00Z", "2024-05-07T15:00:00Z")
	if res := alice.Do("PUT", "/api/journal/days/2024-05-06", map[string]any{"plan": "wait for the open", "review": "chased", "notes": "", "tagIds": []any{}}); res.Status != 200 {
		t.Fatalf("day: %d %s", res.Status, res.Body)
	}
	p.setScript(func(n int) (int, []step) {
		if n == 0 {
			return 200, []step{
				{tool: &[3]string{"c1", "list_positions", `{"symbol":"AAPL"}`}},
				{tool: &[3]string{"c2", "get_position", `{"positionId":"` + aapl + `"}`}},
				{tool: &[3]string{"c3", "get_position", `{"positionId":"` + bobs + `"}`}},
				{tool: &[3]string{"c4", "day_journal", `{"date":"2024-05-06"}`}},
				{tool: &[3]string{"c5", "statistics", `{"from":"not-a-date"}`}},
				{tool: &[3]string{"c6", "rules_compliance", `{"from":"2024-05-01","to":"2024-05-31"}`}},
				{tool: &[3]string{"c7", "rules_compliance", `{"from":"2024-05-31","to":"2024-05-01"}`}},
				{tool: &[3]string{"c8", "statistics", `{"propFirm":"true"}`}},
				{usage: &[2]int64{10, 1}}, {done: true}}
		}
		return 200, []step{{text: "Done."}, {usage: &[2]int64{10, 1}}, {done: true}}
	})
	res := alice.ask("new", "Review AAPL", "k-jtools")
	results := map[string]string{}
	for _, ev := range res.Events {
		if ev.Name == "tool_result" {
			results[ev.Data["id"].(string)] = ev.Data["result"].(string)
		}
	}
	if len(results) != 8 {
		t.Fatalf("events %s", eventNames(res))
	}
	if r := results["c1"]; !strings.Contains(r, "AAPL long closed") || strings.Contains(r, "MSFT") {
		t.Errorf("list_positions: %s", r)
	}
	if r := results["c2"]; !strings.Contains(r, " END") {
		t.Errorf("get_position lacks the whole note: %s", r)
	}
	if r := results["c3"]; r != "error: no position with that id" {
		t.Errorf("bob's position: %s", r)
	}
	if r := results["c4"]; !strings.Contains(r, "wait for the open") || !strings.Contains(r, "chased") {
		t.Errorf("day_journal: %s", r)
	}
	if r := results["c5"]; !strings.HasPrefix(r, "error: ") {
		t.Errorf("bad filter: %s", r)
	}
	// Alice's rule wants a target; neither trade has one, so both days broke
	// it, and the violations name the trades.
	if r := results["c6"]; !strings.Contains(r, "0 kept every rule, 2 broke at least one") || !strings.Contains(r, "requiredFields") ||
		!strings.Contains(r, "2024-05-06: ") || !strings.Contains(r, "AAPL") {
		t.Errorf("rules_compliance: %s", r)
	}
	if r := results["c7"]; !strings.HasPrefix(r, "error: ") {
		t.Errorf("backwards range: %s", r)
	}
	// No account has a prop-firm plan: the filter leaves nothing.
	if r := results["c8"]; strings.Contains(r, "AAPL") || strings.HasPrefix(r, "error: ") {
		t.Errorf("statistics of prop-firm accounts: %s", r)
	}
	for _, c := range p.calls() {
		if strings.Contains(c.Raw, "bob-secret-note") || strings.Contains(c.Raw, "ZZZB") {
			t.Fatal("bob's journal reached alice's provider request")
		}
	}
}

// The quote tool is offered only where market data is configured, and
// reads through the market package.
func TestQuoteTool(t *testing.T) {
	quotes := markettest.NewProvider(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, markettest.QuoteJSON("261.74", 1748865600))
	})
	p := newFakeProvider(t)
	cfg := assistantConfig(t, p)
	cfg.Market.QuoteAPIKey, cfg.Market.QuoteBaseURL = "quote-key", quotes.URL
	e := start(t, cfg, p)
	u := e.user("quote@example.com")
	u.credit(1_000_000)
	p.setScript(func(n int) (int, []step) {
		if n == 0 {
			return 200, []step{{tool: &[3]string{"q1", "quote", `{"symbol":"AAPL"}`}}, {usage: &[2]int64{10, 1}}, {done: true}}
		}
		return 200, []step{{text: "AAPL trades at 261.74."}, {usage: &[2]int64{10, 1}}, {done: true}}
	})
	res := u.ask("new", "AAPL price?", "k-quote")
	if got := res.Events[2].Data["result"].(string); !strings.Contains(got, `"price":"261.74"`) {
		t.Fatalf("quote result %s", got)
	}
	if !strings.Contains(p.calls()[0].Raw, `"name":"quote"`) {
		t.Fatal("the quote tool was not offered")
	}

	// Without market data the tool is neither offered nor run.
	p2, _, v := startFunded(t, "noquote@example.com")
	p2.setScript(p.script)
	res = v.ask("new", "AAPL price?", "k-noquote")
	if got := res.Events[2].Data["result"].(string); got != `error: there is no tool named "quote"` || strings.Contains(p2.calls()[0].Raw, `"name":"quote"`) {
		t.Fatalf("without market data: %s", got)
	}
}

// holdOf is the amount the reservation of a turn held last.
func holdOf(t *testing.T, e *env, turnID string) int64 {
	t.Helper()
	var n int64
	if err := e.app.DB.QueryRow(context.Background(), `SELECT r.amount FROM credit_reservations r JOIN assistant_turns t ON t.reservation_id = r.id
		WHERE t.id = $1`, turnID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The hold covers one provider call; a further tool round grows it first.
// A turn whose credits cover the next round goes on (charged the real total
// of both); one whose credits cannot cover it ends there, before its tools
// run, with insufficient_credits and the gate's code, charged what it cost.
func TestToolRoundsHoldCredits(t *testing.T) {
	p, e, rich := startFunded(t, "rounds-rich@example.com")
	one := rich.ask("new", "One round", "k-rounds-0").done()
	oneRound := holdOf(t, e, one["turnId"].(string)) // the hold of one round at the largest prompt

	u := e.user("rounds@example.com")
	u.credit(oneRound + 1500)
	toolThenText := func(prompt, completion int64) func(int) (int, []step) {
		first := len(p.calls())
		return func(n int) (int, []step) {
			if n == first {
				return 200, []step{{text: "Let me look. "}, {tool: &[3]string{"c1", "position_size", `{"mode":"stock","direction":"long","entryPrice":"100","stopLoss":"95","dollarRisk":"500"}`}},
					{usage: &[2]int64{prompt, completion}}, {done: true}}
			}
			return 200, []step{{text: "Size 100."}, {usage: &[2]int64{500, 100}}, {done: true}}
		}
	}

	// Round one: 1000 x 0.15 + 200 x 0.6 = 270; round two: 500 x 0.15 + 100 x
	// 0.6 = 135; 405 x 1.2 = 486, on a hold grown past one round's.
	p.setScript(toolThenText(1000, 200))
	before := len(p.calls())
	res := u.ask("new", "Size it", "k-rounds-1")
	done := res.done()
	if got := eventNames(res); got != "start,delta,tool_call,tool_result,delta,done" || done["status"] != "complete" || done["creditsCharged"] != float64(486) {
		t.Fatalf("events %s, done %v", got, done)
	}
	if held := holdOf(t, e, done["turnId"].(string)); held <= oneRound || len(p.calls())-before != 2 {
		t.Fatalf("held %d (one round: %d), %d provider calls", held, oneRound, len(p.calls())-before)
	}
	if b := u.balance(); b.Balance != oneRound+1500-486 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}

	// Now a first round of 5000 x 0.15 + 500 x 0.6 = 1050 (1260 credits)
	// leaves too little for another: the turn ends before its tool runs.
	p.setScript(toolThenText(5000, 500))
	before = len(p.calls())
	balance := u.balance().Balance
	res = u.ask("new", "Size it again", "k-rounds-2")
	done = res.done()
	if got := eventNames(res); got != "start,delta,done" || len(p.calls())-before != 1 {
		t.Fatalf("events %s, %d provider calls", got, len(p.calls())-before)
	}
	if done["status"] != "incomplete" || done["reason"] != "insufficient_credits" || done["code"] != "INSUFFICIENT_CREDITS" ||
		done["creditsCharged"] != float64(1260) || res.text() != "Let me look. " {
		t.Fatalf("done %v, text %q", done, res.text())
	}
	row := e.turn(done["turnId"].(string))
	if row.Status != "incomplete" || row.Reason != "insufficient_credits" || row.HoldStatus != "settled" || row.Charged != 1260 {
		t.Fatalf("turn %+v", row)
	}
	if b := u.balance(); b.Balance != balance-1260 || b.Reserved != 0 {
		t.Fatalf("wallet %+v, was %d", b, balance)
	}
	conv := u.Do("GET", "/api/assistant/conversations/"+done["conversationId"].(string), nil).JSON
	if calls := conv["toolCalls"].([]any); len(calls) != 0 {
		t.Fatalf("a tool ran: %v", calls)
	}
	if got := messagesOf(conv); got != "user complete Size it again\nassistant incomplete Let me look. \n" {
		t.Fatalf("messages %q", got)
	}
	// The replay says the same.
	if again := u.ask("new", "Size it again", "k-rounds-2").done(); again["reason"] != "insufficient_credits" || again["code"] != "INSUFFICIENT_CREDITS" || again["replay"] != true {
		t.Fatalf("replay %v", again)
	}
}
