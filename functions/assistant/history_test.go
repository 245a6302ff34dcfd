package assistant_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// renderMessages is the conversation of a recorded request, one line a
// message: its role and text, the calls it asks for (id, name, arguments)
// or the call a result answers. The system prompt is left out.
func renderMessages(t *testing.T, r recorded) string {
	t.Helper()
	var b strings.Builder
	for _, m := range r.Body["messages"].([]any) {
		m := m.(map[string]any)
		role := m["role"].(string)
		if role == "system" {
			continue
		}
		b.WriteString(role + ":")
		switch content := m["content"].(type) {
		case string: // OpenAI's text, or a tool's result
			if role == "tool" {
				b.WriteString(" result " + m["tool_call_id"].(string))
			} else {
				b.WriteString(" " + content)
			}
		case nil: // OpenAI's answer asking for calls
		case []any: // Anthropic's blocks
			for _, block := range content {
				block := block.(map[string]any)
				switch block["type"] {
				case "text":
					b.WriteString(" " + block["text"].(string))
				case "tool_use":
					input, _ := json.Marshal(block["input"])
					fmt.Fprintf(&b, " call %s %s %s", block["id"], block["name"], input)
				case "tool_result":
					b.WriteString(" result " + block["tool_use_id"].(string))
				}
			}
		}
		for _, c := range asList(m["tool_calls"]) {
			fn := c.(map[string]any)["function"].(map[string]any)
			fmt.Fprintf(&b, " call %s %s %s", c.(map[string]any)["id"], fn["name"], fn["arguments"])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// Later turns resend the earlier turns' tool calls and results in each
// API's own shape, round by round (OpenAI: an assistant message with
// tool_calls and a tool message per result; Anthropic: tool_use blocks and
// tool_result blocks), under the stored call's id; once the trader takes
// journal access back, the journal tools' calls and results are no longer
// sent.
func TestHistoryResendsToolCalls(t *testing.T) {
	const (
		sizeArgs = `{"direction":"long","dollarRisk":"500","entryPrice":"100","mode":"stock","stopLoss":"95"}`
		dayArgs  = `{"date":"2024-05-06"}`
	)
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			p := newFakeProvider(t)
			e := start(t, anthropicConfig(t, p), p)
			u := e.user(api + "-history@example.com")
			u.credit(1_000_000)
			u.allowJournal(true)
			if res := u.Do("PUT", "/api/journal/days/2024-05-06", map[string]any{"plan": "history-secret-plan", "review": "", "notes": "", "tagIds": []any{}}); res.Status != 200 {
				t.Fatalf("day: %d %s", res.Status, res.Body)
			}
			model := map[string]string{"openai": testModel, "anthropic": claudeModel}[api]
			p.setScript(func(n int) (int, []step) {
				switch n {
				case 0:
					return 200, []step{{tool: &[3]string{"p1", "position_size", sizeArgs}}, {tool: &[3]string{"p2", "statistics", `{}`}}, {usage: &[2]int64{10, 1}}, {done: true}}
				case 1:
					return 200, []step{{tool: &[3]string{"p3", "day_journal", dayArgs}}, {usage: &[2]int64{10, 1}}, {done: true}}
				case 2:
					return 200, []step{{text: "Answer one."}, {usage: &[2]int64{10, 1}}, {done: true}}
				}
				return 200, []step{{text: fmt.Sprintf("Answer %d.", n-1)}, {usage: &[2]int64{10, 1}}, {done: true}}
			})
			ask := func(conversation, question, key string) map[string]any {
				t.Helper()
				done := u.submit(conversation, map[string]any{"content": question, "idempotencyKey": key, "model": model}).done()
				if done["status"] != "complete" {
					t.Fatalf("turn %q: %v", question, done)
				}
				return done
			}
			first := ask("new", "Question one", "k-hist-1")
			conv, t1 := first["conversationId"].(string), first["turnId"].(string)
			ask(conv, "Question two", "k-hist-2")

			second := p.calls()[3]
			var want string
			if api == "openai" {
				want = fmt.Sprintf("user: Question one\nassistant: call %[1]s-0 position_size %[2]s call %[1]s-1 statistics {}\ntool: result %[1]s-0\ntool: result %[1]s-1\n"+
					"assistant: call %[1]s-2 day_journal %[3]s\ntool: result %[1]s-2\nassistant: Answer one.\nuser: Question two\n", t1, sizeArgs, dayArgs)
			} else {
				want = fmt.Sprintf("user: Question one\nassistant: call %[1]s-0 position_size %[2]s call %[1]s-1 statistics {}\nuser: result %[1]s-0 result %[1]s-1\n"+
					"assistant: call %[1]s-2 day_journal %[3]s\nuser: result %[1]s-2\nassistant: Answer one.\nuser: Question two\n", t1, sizeArgs, dayArgs)
			}
			if got := renderMessages(t, second); got != want {
				t.Fatalf("second turn's conversation:\n%s\nwant:\n%s", got, want)
			}
			// The results themselves, as the first turn's rounds got them.
			for _, in := range []string{`\"positionSize\":100`, "No closed positions yet, so no statistics.", "history-secret-plan"} {
				if !strings.Contains(second.Raw, in) {
					t.Fatalf("the resent results lack %q:\n%s", in, second.Raw)
				}
			}

			// Journal access taken back: the journal tools' calls and results stay home.
			u.allowJournal(false)
			ask(conv, "Question three", "k-hist-3")
			third := p.calls()[4]
			want = fmt.Sprintf("user: Question one\nassistant: call %[1]s-0 position_size %[2]s\ntool: result %[1]s-0\nassistant: Answer one.\n"+
				"user: Question two\nassistant: Answer 2.\nuser: Question three\n", t1, sizeArgs)
			if api == "anthropic" {
				want = strings.Replace(want, "tool: result", "user: result", 1)
			}
			if got := renderMessages(t, third); got != want {
				t.Fatalf("third turn's conversation:\n%s\nwant:\n%s", got, want)
			}
			if strings.Contains(third.Raw, "history-secret-plan") || strings.Contains(third.Raw, "so no statistics") {
				t.Fatalf("journal data without consent:\n%s", third.Raw)
			}
		})
	}
}

// TestHistoryResendsLatestCalls: a turn of twenty tool calls in three
// rounds (8, 8, 4: the most a round may ask) resends only the latest
// historyToolCalls (16) with the next turn, from the fifth call on, in
// their rounds.
func TestHistoryResendsLatestCalls(t *testing.T) {
	const sizeArgs = `{"direction":"long","dollarRisk":"500","entryPrice":"100","mode":"stock","stopLoss":"95"}`
	p := newFakeProvider(t)
	e := start(t, anthropicConfig(t, p), p)
	u := e.user("history-cap@example.com")
	u.credit(1_000_000)
	round := func(from, to int) []step {
		var out []step
		for i := from; i < to; i++ {
			out = append(out, step{tool: &[3]string{fmt.Sprintf("c%d", i), "position_size", sizeArgs}})
		}
		return append(out, step{usage: &[2]int64{10, 1}}, step{done: true})
	}
	p.setScript(func(n int) (int, []step) {
		switch n {
		case 0:
			return 200, round(0, 8)
		case 1:
			return 200, round(8, 16)
		case 2:
			return 200, round(16, 20)
		}
		return 200, []step{{text: "Sized."}, {usage: &[2]int64{10, 1}}, {done: true}}
	})
	ask := func(conversation, question, key string) map[string]any {
		t.Helper()
		done := u.submit(conversation, map[string]any{"content": question, "idempotencyKey": key, "model": testModel}).done()
		if done["status"] != "complete" {
			t.Fatalf("turn %q: %v", question, done)
		}
		return done
	}
	first := ask("new", "Size twenty", "k-cap-1")
	conv, t1 := first["conversationId"].(string), first["turnId"].(string)
	ask(conv, "And now?", "k-cap-2")
	got := renderMessages(t, p.calls()[4])
	if n := strings.Count(got, " position_size "); n != 16 {
		t.Fatalf("%d calls resent, want 16:\n%s", n, got)
	}
	// The oldest four (the first round's first) are left out: the first
	// round's last four open the history.
	if strings.Contains(got, t1+"-3 ") || !strings.Contains(got, "assistant: call "+t1+"-4 ") || !strings.Contains(got, t1+"-19 ") {
		t.Fatalf("not the latest calls:\n%s", got)
	}
}
