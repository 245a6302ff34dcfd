package assistant_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/shared/apitest"
)

// trade records a closed position with notes for the user.
func (u *user) trade(symbol, notes, entry, exit, openedAt, closedAt string) (positionID string) {
	u.e.t.Helper()
	acc := u.Do("POST", "/api/accounts", map[string]any{"name": "Main " + symbol, "currency": "USD"})
	if acc.Status != http.StatusCreated {
		u.e.t.Fatalf("account: %d %s", acc.Status, acc.Body)
	}
	res := u.Do("POST", "/api/positions", map[string]any{
		"accountId": acc.JSON["account"].(map[string]any)["id"], "symbol": symbol, "assetType": "stock", "side": "long",
		"stopLoss": "1", "notes": notes,
		"fills": []any{
			map[string]any{"type": "entry", "price": entry, "quantity": "10", "fees": "1", "filledAt": openedAt},
			map[string]any{"type": "exit", "price": exit, "quantity": "10", "fees": "1", "filledAt": closedAt},
		},
	})
	if res.Status != http.StatusCreated {
		u.e.t.Fatalf("position: %d %s", res.Status, res.Body)
	}
	return res.JSON["position"].(map[string]any)["id"].(string)
}

// A normal turn: the answer streams as it is produced, the final event
// reports the provider's usage and the exact charge, the wallet is charged
// that and holds nothing more, and both messages are stored.
func TestNormalAnswer(t *testing.T) {
	p, e, alice := startFunded(t, "alice@example.com")
	alice.trade("AAPL", "alice-private-note: chased the open", "100", "90", "2024-05-06T14:00:00Z", "2024-05-06T15:00:00Z")
	alice.allowJournal(true)
	bob := e.user("bob@example.com")
	bob.trade("ZZZB", "bob-private-note", "10", "20", "2024-05-07T14:00:00Z", "2024-05-07T15:00:00Z")
	bob.allowJournal(true)

	// The provider holds its second delta until the test has read the first
	// one through the whole server: the answer is streamed, not buffered.
	gate := make(chan struct{})
	p.setScript(func(int) (int, []step) {
		return 200, []step{{text: "Your Monday "}, {gate: gate}, {text: "trades lose."}, {usage: &[2]int64{1000, 200}}, {done: true}}
	})
	res, err := alice.Open(context.Background(), "POST", "/api/assistant/conversations/new/messages/stream",
		map[string]any{"content": "Why do my AAPL Monday trades lose?", "idempotencyKey": "k-normal-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(res.Body)
	first := readEvents(t, rd, 2)
	if first[0].Name != "start" || first[1].Name != "delta" || first[1].Data["content"] != "Your Monday " {
		t.Fatalf("first events %+v", first)
	}
	close(gate)
	rest := readEvents(t, rd, -1)
	all := turnResult{Response: apitest.Response{Status: 200}, Events: append(first, rest...)}
	if got := all.text(); got != "Your Monday trades lose." {
		t.Fatalf("text %q", got)
	}
	done := all.done()
	// raw = 1000 x 0.15 + 200 x 0.6 = 270 micro-USD; x 1.2 = 324 credits.
	if done["status"] != "complete" || done["reason"] != "complete" || done["creditsCharged"] != float64(324) {
		t.Fatalf("done %v", done)
	}
	if u := done["usage"].(map[string]any); u["promptTokens"] != float64(1000) || u["completionTokens"] != float64(200) {
		t.Fatalf("usage %v", u)
	}
	if b := alice.balance(); b.Balance != 1_000_000-324 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}
	row := e.turn(done["turnId"].(string))
	if row.Status != "complete" || row.Charged != 324 || row.HoldStatus != "settled" {
		t.Fatalf("turn %+v", row)
	}
	var usages int
	if err := e.app.DB.QueryRow(context.Background(), `SELECT count(*) FROM credit_usage WHERE reservation_id = $1`, row.Reservation).Scan(&usages); err != nil || usages != 1 {
		t.Fatalf("%d usage records for the turn's hold (%v), want exactly 1", usages, err)
	}

	// What the provider was sent: the model, streaming with usage, the key
	// in the Authorization header, and alice's journal, never bob's.
	calls := p.calls()
	if len(calls) != 1 {
		t.Fatalf("%d provider calls", len(calls))
	}
	c := calls[0]
	if c.Auth != "Bearer "+testKey || c.Body["model"] != testModel || c.Body["stream"] != true {
		t.Fatalf("request auth %q body %v", c.Auth, c.Body)
	}
	if so, _ := c.Body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Fatalf("stream_options %v", c.Body["stream_options"])
	}
	for _, want := range []string{
		"Statistics over closed positions in USD: trades 1, wins 0, losses 1",
		"By weekday of the close: Monday 1 trades, 0 wins, 1 losses, net -102.00",
		"- AAPL long closed (id ", ", opened 2024-05-06 10:00 Mon, closed 2024-05-06 11:00 Mon, net -102.00 USD",
		"alice-private-note: chased the open", "Why do my AAPL Monday trades lose?",
	} {
		if !strings.Contains(c.Raw, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	for _, not := range []string{"ZZZB", "bob-private-note"} {
		if strings.Contains(c.Raw, not) {
			t.Errorf("the prompt holds another user's data %q", not)
		}
	}

	// Stored: the question and the complete answer, in order.
	conv := alice.Do("GET", "/api/assistant/conversations/"+done["conversationId"].(string), nil)
	msgs := conv.JSON["messages"].([]any)
	if conv.Status != 200 || len(msgs) != 2 {
		t.Fatalf("conversation %d %s", conv.Status, conv.Body)
	}
	q, a := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if q["role"] != "user" || q["content"] != "Why do my AAPL Monday trades lose?" || a["role"] != "assistant" ||
		a["content"] != "Your Monday trades lose." || a["complete"] != true || a["id"] != done["messageId"] {
		t.Fatalf("messages %v", msgs)
	}
	if title := conv.JSON["conversation"].(map[string]any)["title"]; title != "Why do my AAPL Monday trades lose?" {
		t.Fatalf("title %v", title)
	}

	// A follow-up in the same conversation sends the history along.
	next := alice.ask(done["conversationId"].(string), "And on Tuesdays?", "k-normal-2")
	if next.Status != 200 || next.done()["status"] != "complete" {
		t.Fatalf("follow-up %d %v", next.Status, next.done())
	}
	if raw := p.calls()[1].Raw; !strings.Contains(raw, "Your Monday trades lose.") || !strings.Contains(raw, "And on Tuesdays?") {
		t.Fatalf("the follow-up lacks the history: %s", raw)
	}
}

// The answer is cut at the turn budget: the partial text is stored marked
// incomplete, no usage was reported, so the hold is released and nothing
// is charged.
func TestBudgetEndsTheTurn(t *testing.T) {
	p := newFakeProvider(t)
	cfg := assistantConfig(t, p)
	cfg.Assistant.TurnBudget = 400 * time.Millisecond
	e := start(t, cfg, p)
	u := e.user("slow@example.com")
	u.credit(1_000_000)
	p.setScript(func(int) (int, []step) {
		return 200, []step{{text: "Let me think"}, {wait: time.Minute}, {text: " never sent"}, {usage: &[2]int64{10, 10}}, {done: true}}
	})
	begun := time.Now()
	r := u.ask("new", "Review my last 20 losers", "k-budget")
	if r.Status != 200 {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	if took := time.Since(begun); took > 20*time.Second {
		t.Fatalf("the turn ran %v, past its budget", took)
	}
	done := r.done()
	if done["status"] != "incomplete" || done["reason"] != "budget" || done["creditsCharged"] != float64(0) || done["usage"] != nil {
		t.Fatalf("done %v", done)
	}
	if r.text() != "Let me think" {
		t.Fatalf("text %q", r.text())
	}
	if b := u.balance(); b.Balance != 1_000_000 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}
	if row := e.turn(done["turnId"].(string)); row.Status != "incomplete" || row.Reason != "budget" || row.HoldStatus != "released" {
		t.Fatalf("turn %+v", row)
	}
	msgs := u.Do("GET", "/api/assistant/conversations/"+done["conversationId"].(string), nil).JSON["messages"].([]any)
	if a := msgs[1].(map[string]any); a["content"] != "Let me think" || a["complete"] != false {
		t.Fatalf("stored answer %v", a)
	}
}

// Provider failures: a connection dropped mid-stream, an error event in the
// stream, usage reported before the break (charged exactly), and a refused
// request before any byte (502 JSON, nothing charged).
func TestProviderErrors(t *testing.T) {
	p, e, u := startFunded(t, "errors@example.com")

	t.Run("DroppedMidStream", func(t *testing.T) {
		p.setScript(func(int) (int, []step) { return 200, []step{{text: "Partial"}, {cut: true}} })
		r := u.ask("new", "What went wrong in May?", "k-cut")
		done := r.done()
		if r.Status != 200 || done["status"] != "incomplete" || done["reason"] != "provider_error" || done["creditsCharged"] != float64(0) {
			t.Fatalf("%d %v", r.Status, done)
		}
		if row := e.turn(done["turnId"].(string)); row.HoldStatus != "released" || row.Status != "incomplete" {
			t.Fatalf("turn %+v", row)
		}
		msgs := u.Do("GET", "/api/assistant/conversations/"+done["conversationId"].(string), nil).JSON["messages"].([]any)
		if a := msgs[1].(map[string]any); a["content"] != "Partial" || a["complete"] != false {
			t.Fatalf("stored answer %v", a)
		}
	})
	t.Run("ErrorEvent", func(t *testing.T) {
		p.setScript(func(int) (int, []step) {
			return 200, []step{{text: "Half"}, {raw: "data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n"}}
		})
		r := u.ask("new", "Anything?", "k-error-event")
		if done := r.done(); done["reason"] != "provider_error" || done["status"] != "incomplete" {
			t.Fatalf("done %v", done)
		}
	})
	t.Run("UsageThenBreakIsCharged", func(t *testing.T) {
		before := u.balance().Balance
		p.setScript(func(int) (int, []step) {
			return 200, []step{{text: "All of it"}, {usage: &[2]int64{2000, 500}}, {cut: true}}
		})
		r := u.ask("new", "Summarise", "k-usage-cut")
		done := r.done()
		// raw = 2000 x 0.15 + 500 x 0.6 = 600; x 1.2 = 720.
		if done["reason"] != "provider_error" || done["creditsCharged"] != float64(720) {
			t.Fatalf("done %v", done)
		}
		if b := u.balance(); b.Balance != before-720 || b.Reserved != 0 {
			t.Fatalf("wallet %+v (before %d)", b, before)
		}
		if row := e.turn(done["turnId"].(string)); row.HoldStatus != "settled" || row.Charged != 720 {
			t.Fatalf("turn %+v", row)
		}
	})
	t.Run("RefusedBeforeStreaming", func(t *testing.T) {
		before := u.balance()
		p.setScript(func(int) (int, []step) { return http.StatusInternalServerError, nil })
		r := u.ask("new", "Hello?", "k-refused")
		if r.Status != http.StatusBadGateway || r.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Fatalf("status %d %q %s", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		if b := u.balance(); b != before {
			t.Fatalf("wallet %+v, before %+v", b, before)
		}
	})
}

// The client goes away mid-answer: the server stops the provider, stores
// the partial answer as incomplete and releases the hold.
func TestClientDisconnect(t *testing.T) {
	p, e, u := startFunded(t, "gone@example.com")
	p.setScript(func(int) (int, []step) {
		return 200, []step{{text: "Start"}, {wait: time.Minute}, {text: "late"}, {done: true}}
	})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := u.Open(ctx, "POST", "/api/assistant/conversations/new/messages/stream",
		map[string]any{"content": "Long question", "idempotencyKey": "k-gone"})
	if err != nil {
		t.Fatal(err)
	}
	evs := readEvents(t, bufio.NewReader(res.Body), 2)
	turnID := evs[0].Data["turnId"].(string)
	cancel()
	res.Body.Close()

	waitFor(t, "the turn to end", func() bool { return e.turn(turnID).Status != "running" })
	if row := e.turn(turnID); row.Reason != "disconnect" || row.HoldStatus != "released" || row.Charged != 0 {
		t.Fatalf("turn %+v", row)
	}
	select {
	case <-p.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the provider request was not cancelled")
	}
	if b := u.balance(); b.Balance != 1_000_000 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}
}

// The gate: without enough credits the answer is 402 before any byte is
// streamed, and the provider is never called; no conversation is made.
func TestInsufficientCredits(t *testing.T) {
	p := newFakeProvider(t)
	e := start(t, assistantConfig(t, p), p)
	broke := e.user("broke@example.com")
	r := broke.ask("new", "Why?", "k-broke")
	if r.Status != http.StatusPaymentRequired || r.ErrorCode() != "INSUFFICIENT_CREDITS" {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}

	cfg := assistantConfig(t, p)
	cfg.Billing.SecretKey = ""
	e2 := start(t, cfg, p)
	r = e2.user("nobilling@example.com").ask("new", "Why?", "k-broke")
	if r.Status != http.StatusPaymentRequired || r.ErrorCode() != "BILLING_NOT_AVAILABLE" {
		t.Fatalf("status %d %s", r.Status, r.Body)
	}
	if n := len(p.calls()); n != 0 {
		t.Fatalf("the provider was called %d times", n)
	}
	if list := broke.Do("GET", "/api/assistant/conversations", nil); len(list.JSON["items"].([]any)) != 0 {
		t.Fatalf("a refused turn left a conversation: %s", list.Body)
	}
}

// One turn at a time per user: a second submit while one streams is 409
// TURN_IN_PROGRESS, and is charged nothing; another user is not held up.
func TestOneTurnAtATime(t *testing.T) {
	p, e, u := startFunded(t, "busy@example.com")
	other := e.user("other@example.com")
	other.credit(1_000_000)

	gate := make(chan struct{})
	p.setScript(func(n int) (int, []step) {
		if n == 0 {
			return 200, []step{{text: "Working"}, {gate: gate}, {usage: &[2]int64{100, 100}}, {done: true}}
		}
		return 200, []step{{text: "Quick"}, {usage: &[2]int64{100, 100}}, {done: true}}
	})
	res, err := u.Open(context.Background(), "POST", "/api/assistant/conversations/new/messages/stream",
		map[string]any{"content": "First", "idempotencyKey": "k-first"})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	rd := bufio.NewReader(res.Body)
	running := readEvents(t, rd, 2)[0].Data["conversationId"].(string)
	if r := u.Do("DELETE", "/api/assistant/conversations/"+running, nil); r.Status != http.StatusConflict || r.ErrorCode() != "TURN_IN_PROGRESS" {
		t.Fatalf("deleting the streaming conversation: %d %s", r.Status, r.Body)
	}

	second := u.ask("new", "Second", "k-second")
	if second.Status != http.StatusConflict || second.ErrorCode() != "TURN_IN_PROGRESS" {
		t.Fatalf("second: %d %s", second.Status, second.Body)
	}
	// The same key again while it runs: 409 too, not a second run.
	if again := u.ask("new", "First", "k-first"); again.Status != http.StatusConflict || again.ErrorCode() != "TURN_IN_PROGRESS" {
		t.Fatalf("retry while running: %d %s", again.Status, again.Body)
	}
	if r := other.ask("new", "Mine", "k-other"); r.Status != 200 || r.done()["status"] != "complete" {
		t.Fatalf("another user: %d %v", r.Status, r.done())
	}
	close(gate)
	readEvents(t, rd, -1)

	// 100 x 0.15 + 100 x 0.6 = 75; x 1.2 = 90: only the first turn charged.
	if b := u.balance(); b.Balance != 1_000_000-90 || b.Reserved != 0 {
		t.Fatalf("wallet %+v", b)
	}
	if r := u.ask("new", "Third", "k-third"); r.Status != 200 {
		t.Fatalf("after the first ended: %d %s", r.Status, r.Body)
	}
}

// Many submits at once from one user: exactly one runs.
func TestConcurrentSubmits(t *testing.T) {
	p, e, u := startFunded(t, "burst@example.com")
	gate := make(chan struct{})
	p.setScript(func(int) (int, []step) {
		return 200, []step{{gate: gate}, {text: "One"}, {usage: &[2]int64{1, 1}}, {done: true}}
	})
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := u.Open(context.Background(), "POST", "/api/assistant/conversations/new/messages/stream",
				map[string]any{"content": "Burst", "idempotencyKey": "k-burst-" + string(rune('a'+i))})
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			statuses[i] = res.StatusCode
			if res.StatusCode == 200 {
				readEvents(t, bufio.NewReader(res.Body), -1)
			}
		}()
	}
	// Open the gate once every loser has been answered.
	waitFor(t, "the refusals", func() bool {
		var c int
		_ = e.app.DB.QueryRow(context.Background(), `SELECT count(*) FROM credit_reservations WHERE status = 'released'`).Scan(&c)
		return c == n-1
	})
	close(gate)
	wg.Wait()
	ok, conflict := 0, 0
	for _, s := range statuses {
		switch s {
		case 200:
			ok++
		case http.StatusConflict:
			conflict++
		}
	}
	if ok != 1 || conflict != n-1 {
		t.Fatalf("statuses %v", statuses)
	}
	if len(p.calls()) != 1 {
		t.Fatalf("%d provider calls", len(p.calls()))
	}
}

// A retried submit with the same idempotency key replays the stored answer
// and charges nothing more; the key with another question is refused.
func TestIdempotentRetry(t *testing.T) {
	p, _, u := startFunded(t, "retry@example.com")

	first := u.ask("new", "Review my week", "k-retry")
	charged := u.balance()
	retry := u.ask("new", "Review my week", "k-retry")
	if retry.Status != 200 || retry.text() != first.text() || retry.done()["replay"] != true {
		t.Fatalf("retry %d %q %v", retry.Status, retry.text(), retry.done())
	}
	for _, k := range []string{"turnId", "conversationId", "messageId", "creditsCharged", "status"} {
		if retry.done()[k] != first.done()[k] {
			t.Errorf("%s: replay %v, first %v", k, retry.done()[k], first.done()[k])
		}
	}
	// The same key naming the conversation it made replays as well.
	inConv := u.ask(first.done()["conversationId"].(string), "Review my week", "k-retry")
	if inConv.Status != 200 || inConv.done()["turnId"] != first.done()["turnId"] {
		t.Fatalf("retry in the conversation: %d %v", inConv.Status, inConv.done())
	}
	if b := u.balance(); b != charged {
		t.Fatalf("the retry charged again: %+v, after the first %+v", b, charged)
	}
	if n := len(p.calls()); n != 1 {
		t.Fatalf("%d provider calls", n)
	}
	other := u.ask("new", "Something else", "k-retry")
	if other.Status != http.StatusConflict || other.ErrorCode() != "CONFLICT" {
		t.Fatalf("reused key: %d %s", other.Status, other.Body)
	}
	msgs := u.Do("GET", "/api/assistant/conversations/"+first.done()["conversationId"].(string), nil).JSON["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("%d messages after retries", len(msgs))
	}
}

// Conversations are the caller's own: another user's is a 404 on every
// route, and submitting into it neither reserves nor calls the provider.
func TestOtherUsersConversation(t *testing.T) {
	p, e, owner := startFunded(t, "owner@example.com")
	conv := owner.ask("new", "Mine", "k-owner").done()["conversationId"].(string)
	intruder := e.user("intruder@example.com")
	intruder.credit(1_000_000)

	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/assistant/conversations/" + conv},
		{"PATCH", "/api/assistant/conversations/" + conv},
		{"DELETE", "/api/assistant/conversations/" + conv},
		{"POST", "/api/assistant/conversations/" + conv + "/messages/stream"},
	} {
		var body any
		switch tc.method {
		case "PATCH":
			body = map[string]any{"title": "Mine now"}
		case "POST":
			body = map[string]any{"content": "Tell me their secrets", "idempotencyKey": "k-intrude"}
		}
		r := intruder.Do(tc.method, tc.path, body)
		if r.Status != http.StatusNotFound || r.ErrorCode() != "" {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, r.Status, r.Body)
		}
	}
	if list := intruder.Do("GET", "/api/assistant/conversations", nil); len(list.JSON["items"].([]any)) != 0 {
		t.Fatalf("the intruder lists %s", list.Body)
	}
	if n := len(p.calls()); n != 1 {
		t.Fatalf("%d provider calls", n)
	}
	if b := intruder.balance(); b.Reserved != 0 || b.Balance != 1_000_000 {
		t.Fatalf("intruder wallet %+v", b)
	}
	if r := owner.Do("GET", "/api/assistant/conversations/"+conv, nil); r.Status != 200 {
		t.Fatalf("owner read %d", r.Status)
	}
}

// With ENCRYPTION_KEY set, titles and message text are ciphertext in the
// tables and plaintext to their owner.
func TestEncryptedAtRest(t *testing.T) {
	p := newFakeProvider(t)
	cfg := assistantConfig(t, p)
	cfg.Encryption.Key = bytes.Repeat([]byte{9}, 32)
	e := start(t, cfg, p)
	u := e.user("sealed@example.com")
	u.credit(1_000_000)
	p.setScript(func(int) (int, []step) {
		return 200, []step{{text: "answer-plaintext-marker"}, {usage: &[2]int64{1, 1}}, {done: true}}
	})
	done := u.ask("new", "question-plaintext-marker", "k-sealed").done()
	conv := done["conversationId"].(string)

	rows, err := e.app.DB.Query(context.Background(), `SELECT content FROM assistant_messages WHERE conversation_id = $1
		UNION ALL SELECT title FROM assistant_conversations WHERE id = $1`, conv)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var stored string
		if err := rows.Scan(&stored); err != nil {
			t.Fatal(err)
		}
		n++
		if !strings.HasPrefix(stored, "tj1:") || strings.Contains(stored, "plaintext-marker") {
			t.Errorf("stored in the clear: %q", stored)
		}
	}
	if rows.Err() != nil || n != 3 {
		t.Fatalf("%d sealed values, err %v", n, rows.Err())
	}
	r := u.Do("GET", "/api/assistant/conversations/"+conv, nil)
	if !strings.Contains(string(r.Body), "question-plaintext-marker") || !strings.Contains(string(r.Body), "answer-plaintext-marker") {
		t.Fatalf("read back %s", r.Body)
	}
	if renamed := u.Do("PATCH", "/api/assistant/conversations/"+conv, map[string]any{"title": "renamed-marker"}); renamed.Status != 200 {
		t.Fatalf("rename %d", renamed.Status)
	}
	var title string
	_ = e.app.DB.QueryRow(context.Background(), `SELECT title FROM assistant_conversations WHERE id = $1`, conv).Scan(&title)
	if !strings.HasPrefix(title, "tj1:") || strings.Contains(title, "renamed-marker") {
		t.Fatalf("renamed title stored as %q", title)
	}
	if list := u.Do("GET", "/api/assistant/conversations", nil); !strings.Contains(string(list.Body), "renamed-marker") {
		t.Fatalf("list %s", list.Body)
	}
}

// Off (no key and model): every route is the plain 404 of an absent route,
// GET /api/config says assistant: false, and nothing reaches the provider.
func TestOffMeansAbsent(t *testing.T) {
	p := newFakeProvider(t)
	cfg := apitest.Config(t)
	cfg.Assistant.BaseURL = p.URL + "/v1"
	e := start(t, cfg, p)
	u := e.user("off@example.com")
	u.credit(1_000_000)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/assistant/conversations"},
		{"GET", "/api/assistant/conversations/00000000-0000-0000-0000-000000000000"},
		{"PATCH", "/api/assistant/conversations/00000000-0000-0000-0000-000000000000"},
		{"DELETE", "/api/assistant/conversations/00000000-0000-0000-0000-000000000000"},
		{"POST", "/api/assistant/conversations/new/messages/stream"},
	} {
		r := u.Do(tc.method, tc.path, map[string]any{"content": "hi", "idempotencyKey": "k", "title": "t"})
		if r.Status != http.StatusNotFound || r.ErrorCode() != "" {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, r.Status, r.Body)
		}
	}
	if c := u.Do("GET", "/api/config", nil); c.JSON["assistant"] != false {
		t.Fatalf("config %s", c.Body)
	}
	if n := len(p.calls()); n != 0 {
		t.Fatalf("%d provider calls while off", n)
	}

	on := start(t, assistantConfig(t, p), p)
	if c := on.user("on@example.com").Do("GET", "/api/config", nil); c.JSON["assistant"] != true || strings.Contains(string(c.Body), testKey) {
		t.Fatalf("config on: %s", c.Body)
	}
}

// The provider key never reaches a log line, an error body or the
// configuration route, even when the provider echoes it back.
func TestKeyNeverLeaks(t *testing.T) {
	p, e, u := startFunded(t, "leak@example.com")
	var bodies []string
	bodies = append(bodies, string(u.Do("GET", "/api/config", nil).Body))
	u.ask("new", "normal", "k-leak-1")
	p.setScript(func(int) (int, []step) { return http.StatusUnauthorized, nil })
	r := u.ask("new", "refused", "k-leak-2")
	if r.Status != http.StatusBadGateway {
		t.Fatalf("status %d", r.Status)
	}
	bodies = append(bodies, string(r.Body))
	p.setScript(func(int) (int, []step) { return 200, []step{{text: "x"}, {cut: true}} })
	u.ask("new", "broken", "k-leak-3")
	logs := e.logs.String()
	if !strings.Contains(logs, "invalid_api_key") {
		t.Fatalf("the refusal was not logged with the provider's code: %s", logs)
	}
	for _, s := range append(bodies, logs) {
		if strings.Contains(s, testKey) || strings.Contains(s, "SECRET-assistant") {
			t.Fatalf("the key leaked: %s", s)
		}
	}
}

// The conversation routes: keyset pages, rename, delete, and validation.
func TestConversationRoutes(t *testing.T) {
	p, e, u := startFunded(t, "routes@example.com")
	var ids []string
	for _, q := range []string{"one", "two", "three"} {
		ids = append(ids, u.ask("new", q, "k-route-"+q).done()["conversationId"].(string))
	}
	page1 := u.Do("GET", "/api/assistant/conversations?limit=2", nil)
	items := page1.JSON["items"].([]any)
	if page1.Status != 200 || len(items) != 2 || items[0].(map[string]any)["id"] != ids[2] || items[1].(map[string]any)["id"] != ids[1] {
		t.Fatalf("page 1: %s", page1.Body)
	}
	cursor, _ := page1.JSON["nextCursor"].(string)
	page2 := u.Do("GET", "/api/assistant/conversations?limit=2&cursor="+cursor, nil)
	items = page2.JSON["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != ids[0] || page2.JSON["nextCursor"] != nil {
		t.Fatalf("page 2: %s", page2.Body)
	}

	r := u.Do("PATCH", "/api/assistant/conversations/"+ids[0], map[string]any{"title": "  Weekly review  "})
	if r.Status != 200 || r.JSON["conversation"].(map[string]any)["title"] != "Weekly review" {
		t.Fatalf("rename %d %s", r.Status, r.Body)
	}
	if r := u.Do("DELETE", "/api/assistant/conversations/"+ids[0], nil); r.Status != http.StatusNoContent {
		t.Fatalf("delete %d %s", r.Status, r.Body)
	}
	if r := u.Do("GET", "/api/assistant/conversations/"+ids[0], nil); r.Status != http.StatusNotFound {
		t.Fatalf("after delete %d", r.Status)
	}

	apitest.Run(t, u.Client, []apitest.Case{
		{Name: "ListBadLimit", Method: "GET", Path: "/api/assistant/conversations?limit=ten", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ListBadCursor", Method: "GET", Path: "/api/assistant/conversations?cursor=zzz", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ReadMalformedID", Method: "GET", Path: "/api/assistant/conversations/not-a-uuid", Status: 404},
		{Name: "RenameEmpty", Method: "PATCH", Path: "/api/assistant/conversations/" + ids[1], Body: map[string]any{"title": "  "}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "RenameMissing", Method: "PATCH", Path: "/api/assistant/conversations/" + ids[1], Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "RenameTooLong", Method: "PATCH", Path: "/api/assistant/conversations/" + ids[1], Body: map[string]any{"title": strings.Repeat("x", 201)}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "RenameUnknownField", Method: "PATCH", Path: "/api/assistant/conversations/" + ids[1], Body: map[string]any{"title": "x", "owner": "y"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SubmitNoContent", Method: "POST", Path: "/api/assistant/conversations/new/messages/stream", Body: map[string]any{"idempotencyKey": "k"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SubmitNoKey", Method: "POST", Path: "/api/assistant/conversations/new/messages/stream", Body: map[string]any{"content": "q"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SubmitBadKey", Method: "POST", Path: "/api/assistant/conversations/new/messages/stream", Body: map[string]any{"content": "q", "idempotencyKey": "has space"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SubmitTooLong", Method: "POST", Path: "/api/assistant/conversations/new/messages/stream", Body: map[string]any{"content": strings.Repeat("é", 4001), "idempotencyKey": "k"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SubmitNUL", Method: "POST", Path: "/api/assistant/conversations/new/messages/stream", Body: map[string]any{"content": "a\u0000b", "idempotencyKey": "k"}, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SubmitNotJSON", Method: "POST", Path: "/api/assistant/conversations/new/messages/stream", Body: "{", Status: 400, Code: "INVALID_JSON"},
		{Name: "SubmitUnknownConversation", Method: "POST", Path: "/api/assistant/conversations/00000000-0000-0000-0000-000000000000/messages/stream", Body: map[string]any{"content": "q", "idempotencyKey": "k"}, Status: 404},
	})
	if n := len(p.calls()); n != 3 {
		t.Fatalf("%d provider calls: a refused submit reached the provider", n)
	}
	anon := e.anonymous()
	if r := anon.Do("GET", "/api/assistant/conversations", nil); r.Status != http.StatusUnauthorized {
		t.Fatalf("anonymous %d", r.Status)
	}
}

// A turn left running by a process that died (past its budget and a
// minute of grace) no longer blocks the user: the next submit closes it as
// abandoned and runs.
func TestAbandonedTurnDoesNotBlock(t *testing.T) {
	p := newFakeProvider(t)
	cfg := assistantConfig(t, p)
	cfg.Assistant.TurnBudget = time.Second
	e := start(t, cfg, p)
	u := e.user("crashed@example.com")
	u.credit(1_000_000)
	conv := u.ask("new", "Before the crash", "k-before").done()["conversationId"].(string)
	var stuck string
	err := e.app.DB.QueryRow(context.Background(), `INSERT INTO assistant_turns (user_id, conversation_id, idempotency_key, started_at)
		VALUES ($1, $2, 'k-crashed', now() - interval '2 minutes') RETURNING id::text`, u.ID, conv).Scan(&stuck)
	if err != nil {
		t.Fatal(err)
	}
	if r := u.ask(conv, "After the crash", "k-after"); r.Status != 200 || r.done()["status"] != "complete" {
		t.Fatalf("after the crash: %d %s %v", r.Status, r.Body, r.done())
	}
	var status, reason string
	if err := e.app.DB.QueryRow(context.Background(), `SELECT status, end_reason FROM assistant_turns WHERE id = $1`, stuck).Scan(&status, &reason); err != nil {
		t.Fatal(err)
	}
	if status != "incomplete" || reason != "abandoned" {
		t.Fatalf("the stuck turn is %s/%s", status, reason)
	}
	// A running turn within its budget still blocks.
	if _, err := e.app.DB.Exec(context.Background(), `INSERT INTO assistant_turns (user_id, conversation_id, idempotency_key, started_at)
		VALUES ($1, $2, 'k-live', now())`, u.ID, conv); err != nil {
		t.Fatal(err)
	}
	if r := u.ask(conv, "Blocked", "k-blocked"); r.Status != http.StatusConflict || r.ErrorCode() != "TURN_IN_PROGRESS" {
		t.Fatalf("with a live turn: %d %s", r.Status, r.Body)
	}
}
