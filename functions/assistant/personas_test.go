package assistant_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"tradejournal/shared/apitest"
)

// position records a closed long position of 10 shares and returns its id.
func (u *user) position(symbol, notes, entry, exit, openedAt, closedAt string) string {
	u.e.t.Helper()
	acc := u.Do("POST", "/api/accounts", map[string]any{"name": "Acct " + symbol, "currency": "USD", "timezone": "UTC"})
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

// systemPrompt is the system message of the provider's nth request.
func (p *fakeProvider) systemPrompt(t testing.TB, n int) string {
	t.Helper()
	calls := p.calls()
	if len(calls) <= n {
		t.Fatalf("the provider got %d requests, want more than %d", len(calls), n)
	}
	msgs := calls[n].Body["messages"].([]any)
	first := msgs[0].(map[string]any)
	if first["role"] != "system" {
		t.Fatalf("first message %v", first)
	}
	return first["content"].(string)
}

// wantField fails unless res is a 400 VALIDATION_ERROR naming field.
func wantField(t testing.TB, r apitest.Response, field string) {
	t.Helper()
	if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `"code":"VALIDATION_ERROR"`) || !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
		t.Fatalf("want 400 naming %s, got %d %s", field, r.Status, r.Body)
	}
}

func TestPersonaRoutes(t *testing.T) {
	_, e, alice := startFunded(t, "alice@example.com")
	bob := e.user("bob@example.com")

	list := alice.Do("GET", "/api/assistant/personas", nil)
	items := list.JSON["items"].([]any)
	if list.Status != 200 || len(items) != 1 || items[0].(map[string]any)["id"] != "default" || items[0].(map[string]any)["builtIn"] != true {
		t.Fatalf("list %d %s", list.Status, list.Body)
	}

	t.Run("Validation", func(t *testing.T) {
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"instructions": "x"}, "name"},
			{map[string]any{"name": "  ", "instructions": "x"}, "name"},
			{map[string]any{"name": strings.Repeat("n", 61), "instructions": "x"}, "name"},
			{map[string]any{"name": "Coach"}, "instructions"},
			{map[string]any{"name": "Coach", "instructions": strings.Repeat("i", 2001)}, "instructions"},
			{map[string]any{"name": "Coach", "instructions": "a\x00b"}, "instructions"},
		} {
			wantField(t, alice.Do("POST", "/api/assistant/personas", c.body), c.field)
		}
	})

	res := alice.Do("POST", "/api/assistant/personas", map[string]any{"name": " Coach ", "instructions": "Be blunt."})
	if res.Status != http.StatusCreated {
		t.Fatalf("create %d %s", res.Status, res.Body)
	}
	coach := res.JSON["persona"].(map[string]any)
	id := coach["id"].(string)
	if coach["name"] != "Coach" || coach["builtIn"] != false {
		t.Fatalf("created %v", coach)
	}

	t.Run("NamesUniqueIgnoringCase", func(t *testing.T) {
		if res := alice.Do("POST", "/api/assistant/personas", map[string]any{"name": "COACH", "instructions": "x"}); res.Status != http.StatusConflict {
			t.Fatalf("duplicate: %d %s", res.Status, res.Body)
		}
		// Another user may use the name.
		if res := bob.Do("POST", "/api/assistant/personas", map[string]any{"name": "coach", "instructions": "x"}); res.Status != http.StatusCreated {
			t.Fatalf("bob's coach: %d %s", res.Status, res.Body)
		}
	})

	t.Run("PatchKeepsWhatIsLeftOut", func(t *testing.T) {
		res := alice.Do("PATCH", "/api/assistant/personas/"+id, map[string]any{"instructions": "Be blunter."})
		p := res.JSON["persona"].(map[string]any)
		if res.Status != 200 || p["name"] != "Coach" || p["instructions"] != "Be blunter." {
			t.Fatalf("patch %d %s", res.Status, res.Body)
		}
		wantField(t, alice.Do("PATCH", "/api/assistant/personas/"+id, map[string]any{"name": ""}), "name")
	})

	t.Run("OthersUnreachable", func(t *testing.T) {
		for _, r := range []struct{ method, path string }{
			{"PATCH", "/api/assistant/personas/" + id}, {"DELETE", "/api/assistant/personas/" + id},
			{"PATCH", "/api/assistant/personas/default"}, {"DELETE", "/api/assistant/personas/default"},
			{"DELETE", "/api/assistant/personas/not-a-uuid"},
		} {
			who := bob
			if strings.HasSuffix(r.path, "default") || strings.HasSuffix(r.path, "uuid") {
				who = alice
			}
			if res := who.Do(r.method, r.path, map[string]any{"name": "Mine"}); res.Status != http.StatusNotFound {
				t.Fatalf("%s %s: %d %s", r.method, r.path, res.Status, res.Body)
			}
		}
		for _, it := range bob.Do("GET", "/api/assistant/personas", nil).JSON["items"].([]any) {
			if it.(map[string]any)["id"] == id {
				t.Fatal("bob lists alice's persona")
			}
		}
	})

	t.Run("AtMost20", func(t *testing.T) {
		for i := 1; i < 20; i++ {
			if res := alice.Do("POST", "/api/assistant/personas", map[string]any{"name": fmt.Sprintf("P%d", i), "instructions": "x"}); res.Status != http.StatusCreated {
				t.Fatalf("persona %d: %d %s", i, res.Status, res.Body)
			}
		}
		if res := alice.Do("POST", "/api/assistant/personas", map[string]any{"name": "One too many", "instructions": "x"}); res.Status != http.StatusConflict {
			t.Fatalf("21st: %d %s", res.Status, res.Body)
		}
	})

	t.Run("DeletedWithTheUser", func(t *testing.T) {
		res := bob.Do("DELETE", "/api/users/me", map[string]any{"password": "password123", "confirmEmail": "bob@example.com"})
		if res.Status != http.StatusNoContent {
			t.Fatalf("delete bob: %d %s", res.Status, res.Body)
		}
		var n int
		if err := e.app.DB.QueryRow(context.Background(), `SELECT count(*) FROM assistant_personas WHERE user_id = $1`, bob.ID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("bob's personas left: %d %v", n, err)
		}
	})
}

// The chosen persona's instructions reach the provider in the system
// prompt of each turn of its conversation, and only there.
func TestPersonaReachesProvider(t *testing.T) {
	p, e, alice := startFunded(t, "alice@example.com")
	bob := e.user("bob@example.com")
	const pirate = "PIRATE-INSTRUCTIONS: answer like a ship's captain"
	id := alice.Do("POST", "/api/assistant/personas", map[string]any{"name": "Captain", "instructions": pirate}).JSON["persona"].(map[string]any)["id"].(string)
	bobs := bob.Do("POST", "/api/assistant/personas", map[string]any{"name": "Bob's", "instructions": "BOB-SECRET-PERSONA"}).JSON["persona"].(map[string]any)["id"].(string)

	t.Run("AnotherUsersPersonaRefused", func(t *testing.T) {
		wantField(t, alice.submit("new", map[string]any{"content": "Hi", "idempotencyKey": "k-bob-persona", "personaId": bobs}).Response, "personaId")
		if n := len(p.calls()); n != 0 {
			t.Fatalf("the provider was called %d times", n)
		}
		if b := alice.balance(); b.Reserved != 0 || b.Balance != 1_000_000 {
			t.Fatalf("wallet %+v", b)
		}
	})

	first := alice.submit("new", map[string]any{"content": "How did I do?", "idempotencyKey": "k-persona-1", "personaId": id})
	conv := first.done()["conversationId"].(string)
	if sys := p.systemPrompt(t, 0); !strings.Contains(sys, pirate) || !strings.Contains(sys, `"Captain"`) || strings.Contains(sys, "BOB-SECRET") {
		t.Fatalf("system prompt lacks the persona:\n%s", sys)
	}
	if c := alice.Do("GET", "/api/assistant/conversations/"+conv, nil).JSON["conversation"].(map[string]any); c["personaId"] != id {
		t.Fatalf("conversation %v", c)
	}
	alice.submit(conv, map[string]any{"content": "And then?", "idempotencyKey": "k-persona-2"})
	if sys := p.systemPrompt(t, 1); !strings.Contains(sys, pirate) {
		t.Fatal("the second turn lost the persona")
	}

	t.Run("OnlyForNewConversations", func(t *testing.T) {
		wantField(t, alice.submit(conv, map[string]any{"content": "x", "idempotencyKey": "k-persona-x", "personaId": id}).Response, "personaId")
	})

	t.Run("ChangedByPatch", func(t *testing.T) {
		wantField(t, alice.Do("PATCH", "/api/assistant/conversations/"+conv, map[string]any{"personaId": bobs}), "personaId")
		res := alice.Do("PATCH", "/api/assistant/conversations/"+conv, map[string]any{"personaId": "default"})
		if res.Status != 200 || res.JSON["conversation"].(map[string]any)["personaId"] != "default" {
			t.Fatalf("patch %d %s", res.Status, res.Body)
		}
		alice.submit(conv, map[string]any{"content": "Plainly now?", "idempotencyKey": "k-persona-3"})
		if sys := p.systemPrompt(t, 2); strings.Contains(sys, pirate) {
			t.Fatal("the default persona still sent the old instructions")
		}
		wantField(t, alice.Do("PATCH", "/api/assistant/conversations/"+conv, map[string]any{}), "title")
	})

	t.Run("DeletedPersonaFallsBackToDefault", func(t *testing.T) {
		alice.Do("PATCH", "/api/assistant/conversations/"+conv, map[string]any{"personaId": id})
		if res := alice.Do("DELETE", "/api/assistant/personas/"+id, nil); res.Status != http.StatusNoContent {
			t.Fatalf("delete %d %s", res.Status, res.Body)
		}
		if c := alice.Do("GET", "/api/assistant/conversations/"+conv, nil).JSON["conversation"].(map[string]any); c["personaId"] != "default" {
			t.Fatalf("conversation %v", c)
		}
	})
}

// Searching by title: case-insensitive, only the caller's, and the keyset
// pages of a search hold every match once, in order.
func TestConversationSearch(t *testing.T) {
	_, e, alice := startFunded(t, "alice@example.com")
	bob := e.user("bob@example.com")
	bob.credit(1_000_000)
	var want []string // matches, latest first
	for i := 0; i < 9; i++ {
		q := fmt.Sprintf("Question %d about cash", i)
		if i%3 != 1 {
			q = fmt.Sprintf("Question %d about the AAPL breakout", i)
		}
		res := alice.ask("new", q, fmt.Sprintf("k-search-%d", i))
		if strings.Contains(q, "AAPL") {
			want = append([]string{res.done()["conversationId"].(string)}, want...)
		}
	}
	bob.ask("new", "Bob's aapl question", "k-search-bob")

	var got []string
	cursor := ""
	for pages := 0; pages < 10; pages++ {
		path := "/api/assistant/conversations?limit=2&q=" + url.QueryEscape(" aApL ")
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		res := alice.Do("GET", path, nil)
		if res.Status != 200 {
			t.Fatalf("search %d %s", res.Status, res.Body)
		}
		for _, it := range res.JSON["items"].([]any) {
			c := it.(map[string]any)
			if !strings.Contains(strings.ToLower(c["title"].(string)), "aapl") {
				t.Fatalf("title %q does not match", c["title"])
			}
			got = append(got, c["id"].(string))
		}
		next, _ := res.JSON["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("search pages gave %v, want %v", got, want)
	}
	if res := alice.Do("GET", "/api/assistant/conversations?q=nothing-like-this", nil); res.Status != 200 || len(res.JSON["items"].([]any)) != 0 {
		t.Fatalf("no match: %d %s", res.Status, res.Body)
	}
	if res := alice.Do("GET", "/api/assistant/conversations", nil); len(res.JSON["items"].([]any)) != 9 {
		t.Fatalf("unsearched list: %s", res.Body)
	}
	wantField(t, alice.Do("GET", "/api/assistant/conversations?q="+strings.Repeat("a", 201), nil), "q")
}

// Review on request: the context of a new conversation reaches the
// provider as the week's, day's or position's figures, read with the
// caller's rights on every turn; another user's position is a 404 before
// anything is reserved.
func TestReviewContext(t *testing.T) {
	p, e, alice := startFunded(t, "alice@example.com")
	bob := e.user("bob@example.com")
	// Thursday 2024-05-09 and the Monday after it.
	pos := alice.position("NVDA", "review-note: sized too big", "100", "90", "2024-05-09T14:00:00Z", "2024-05-09T15:00:00Z")
	alice.position("MSFT", "", "100", "110", "2024-05-13T14:00:00Z", "2024-05-13T15:00:00Z")
	bobsPos := bob.position("ZZZB", "bob-private-note", "10", "20", "2024-05-09T14:00:00Z", "2024-05-09T15:00:00Z")
	if res := alice.Do("PUT", "/api/journal/days/2024-05-09", map[string]any{"plan": "Wait for the open", "review": "DAY-REVIEW-TEXT: chased NVDA",
		"notes": "", "tagIds": []any{}}); res.Status != 200 {
		t.Fatalf("day entry %d %s", res.Status, res.Body)
	}

	t.Run("WithoutConsent", func(t *testing.T) {
		// The review is journal data: without journal access only what was
		// asked reaches the model, not the position.
		alice.submit("new", map[string]any{"content": "Review this trade", "idempotencyKey": "k-pos-no-consent", "context": map[string]any{"kind": "position", "positionId": pos}})
		sys := p.systemPrompt(t, len(p.calls())-1)
		if strings.Contains(sys, "review-note") || strings.Contains(sys, "NVDA") || !strings.Contains(sys, "cannot read without journal access") {
			t.Fatalf("without consent:\n%s", sys)
		}
	})
	alice.allowJournal(true)

	t.Run("Validation", func(t *testing.T) {
		for _, c := range []struct {
			context any
			field   string
		}{
			{map[string]any{}, "context.kind"},
			{map[string]any{"kind": "month", "date": "2024-05-09"}, "context.kind"},
			{map[string]any{"kind": "week"}, "context.date"},
			{map[string]any{"kind": "day", "date": "2024-02-30"}, "context.date"},
			{map[string]any{"kind": "day", "date": "2024-05-09", "positionId": pos}, "context.positionId"},
			{map[string]any{"kind": "position"}, "context.positionId"},
			{map[string]any{"kind": "position", "positionId": pos, "date": "2024-05-09"}, "context.date"},
		} {
			wantField(t, alice.submit("new", map[string]any{"content": "Review", "idempotencyKey": "k-v", "context": c.context}).Response, c.field)
		}
		if res := alice.submit("new", map[string]any{"content": "Review", "idempotencyKey": "k-v", "context": "week"}); res.Response.Status != http.StatusBadRequest {
			t.Fatalf("context of the wrong type: %d", res.Response.Status)
		}
	})

	t.Run("AnotherUsersPosition", func(t *testing.T) {
		before := len(p.calls())
		for _, id := range []string{bobsPos, "not-a-uuid"} {
			res := alice.submit("new", map[string]any{"content": "Review this trade", "idempotencyKey": "k-bob-pos", "context": map[string]any{"kind": "position", "positionId": id}})
			if res.Response.Status != http.StatusNotFound {
				t.Fatalf("%s: %d %s", id, res.Response.Status, res.Response.Body)
			}
		}
		if len(p.calls()) != before || alice.balance().Reserved != 0 {
			t.Fatal("a refused review reached the provider or held credits")
		}
	})

	t.Run("Position", func(t *testing.T) {
		res := alice.submit("new", map[string]any{"content": "Review this trade", "idempotencyKey": "k-pos", "context": map[string]any{"kind": "position", "positionId": pos}})
		conv := res.done()["conversationId"].(string)
		sys := p.systemPrompt(t, len(p.calls())-1)
		for _, want := range []string{"review of this position", "NVDA long (stock), closed", "net P&L -102.0000", "review-note: sized too big", "- entry 10 at 100"} {
			if !strings.Contains(sys, want) {
				t.Fatalf("system prompt lacks %q:\n%s", want, sys)
			}
		}
		if strings.Contains(sys, "bob-private-note") {
			t.Fatal("bob's note reached alice's prompt")
		}
		c := alice.Do("GET", "/api/assistant/conversations/"+conv, nil).JSON["conversation"].(map[string]any)
		if r := c["review"].(map[string]any); r["kind"] != "position" || r["positionId"] != pos {
			t.Fatalf("review %v", c["review"])
		}
		wantField(t, alice.submit(conv, map[string]any{"content": "x", "idempotencyKey": "k-pos-x", "context": map[string]any{"kind": "day", "date": "2024-05-09"}}).Response, "context")
		// A later turn reads the position again; once deleted, it is said to be gone.
		if res := alice.Do("DELETE", "/api/positions/"+pos, nil); res.Status != http.StatusNoContent {
			t.Fatalf("delete position %d %s", res.Status, res.Body)
		}
		alice.submit(conv, map[string]any{"content": "And now?", "idempotencyKey": "k-pos-2"})
		if sys := p.systemPrompt(t, len(p.calls())-1); !strings.Contains(sys, "has since been deleted") || strings.Contains(sys, "review-note") && strings.Contains(sys, "review of this position (") {
			t.Fatalf("after the delete:\n%s", sys)
		}
	})

	t.Run("WeekAndDay", func(t *testing.T) {
		// Re-record the Thursday trade (the Position case deleted it).
		alice.position("AMD", "", "50", "45", "2024-05-09T14:00:00Z", "2024-05-09T15:00:00Z")
		alice.submit("new", map[string]any{"content": "Review my week", "idempotencyKey": "k-week", "context": map[string]any{"kind": "week", "date": "2024-05-11"}})
		sys := p.systemPrompt(t, len(p.calls())-1)
		if !strings.Contains(sys, "week from Monday 2024-05-06 to Sunday 2024-05-12") || !strings.Contains(sys, "- AMD long closed") ||
			!strings.Contains(sys, "trades 1,") {
			t.Fatalf("week prompt:\n%s", sys)
		}
		if i := strings.Index(sys, "Review request"); strings.Contains(sys[i:strings.Index(sys[i:], "\n\nThe trader's journal")+i], "MSFT") {
			t.Fatalf("the week's block holds the next week's trade:\n%s", sys)
		}
		alice.submit("new", map[string]any{"content": "Review this day", "idempotencyKey": "k-day", "context": map[string]any{"kind": "day", "date": "2024-05-09"}})
		sys = p.systemPrompt(t, len(p.calls())-1)
		if !strings.Contains(sys, "trading day 2024-05-09 (Thursday)") || !strings.Contains(sys, "DAY-REVIEW-TEXT: chased NVDA") || !strings.Contains(sys, "- AMD long closed") {
			t.Fatalf("day prompt:\n%s", sys)
		}
	})
}
