package assistant_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/backup"
)

// The backup archive carries the personas and the conversations with their
// messages in the clear; a restore into another user's empty journal seals
// them again, maps the persona and the reviewed position to the restored
// ones, and the restored conversation goes on with its persona.
func TestBackupRoundTrip(t *testing.T) {
	p := newFakeProvider(t)
	cfg := assistantConfig(t, p)
	cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32) // titles and messages sealed at rest
	e := start(t, cfg, p)
	alice := e.user("alice@example.com")
	alice.credit(1_000_000)
	pos := alice.position("NVDA", "note", "100", "90", "2024-05-09T14:00:00Z", "2024-05-09T15:00:00Z")
	const instructions = "ROUNDTRIP-PERSONA: speak like a coach"
	persona := alice.Do("POST", "/api/assistant/personas", map[string]any{"name": "Coach", "instructions": instructions}).JSON["persona"].(map[string]any)["id"].(string)
	reviewed := alice.submit("new", map[string]any{"content": "Review this NVDA trade", "idempotencyKey": "k-rt-1", "personaId": persona,
		"context": map[string]any{"kind": "position", "positionId": pos}}).done()["conversationId"].(string)
	alice.ask(reviewed, "And the exit?", "k-rt-2")
	plain := alice.ask("new", "Weekly question", "k-rt-3").done()["conversationId"].(string)
	var sealed string
	if err := e.app.DB.QueryRow(context.Background(), `SELECT title FROM assistant_conversations WHERE id = $1`, plain).Scan(&sealed); err != nil || !strings.HasPrefix(sealed, "tj1:") {
		t.Fatalf("the title is not sealed at rest: %q %v", sealed, err)
	}

	res := apitest.Must(t, alice.Do("GET", "/api/backup/archive", nil), 200)
	archive := res.Body
	conversations := entry(t, archive, backup.EntryAssistantConversations)
	if !strings.Contains(conversations, "Review this NVDA trade") || !strings.Contains(conversations, "Hello trader.") || strings.Contains(conversations, "tj1:") {
		t.Fatalf("the archive's conversations are not in the clear:\n%s", conversations)
	}
	if !strings.Contains(entry(t, archive, backup.EntryAssistantPersonas), instructions) {
		t.Fatal("the archive lacks the persona")
	}

	carol := e.user("carol@example.com")
	carol.credit(1_000_000)
	restored := restoreArchive(t, carol, archive)
	if restored.Status != http.StatusCreated {
		t.Fatalf("restore %d %s", restored.Status, restored.Body)
	}
	counts := restored.JSON["restored"].(map[string]any)
	if counts["assistantPersonas"] != float64(1) || counts["assistantConversations"] != float64(2) {
		t.Fatalf("counts %v", counts)
	}

	personas := carol.Do("GET", "/api/assistant/personas", nil).JSON["items"].([]any)
	if len(personas) != 2 {
		t.Fatalf("carol's personas %v", personas)
	}
	carolPersona := personas[1].(map[string]any)
	if carolPersona["name"] != "Coach" || carolPersona["instructions"] != instructions || carolPersona["id"] == persona {
		t.Fatalf("restored persona %v", carolPersona)
	}
	// The same conversations, messages and order, under new ids.
	list := carol.Do("GET", "/api/assistant/conversations?q=nvda", nil).JSON["items"].([]any)
	if len(list) != 1 {
		t.Fatalf("carol's search %v", list)
	}
	carolConv := list[0].(map[string]any)["id"].(string)
	mine := alice.Do("GET", "/api/assistant/conversations/"+reviewed, nil).JSON
	theirs := carol.Do("GET", "/api/assistant/conversations/"+carolConv, nil).JSON
	if got, want := messagesOf(theirs), messagesOf(mine); got != want {
		t.Fatalf("restored messages\n%s\nwant\n%s", got, want)
	}
	c := theirs["conversation"].(map[string]any)
	review := c["review"].(map[string]any)
	if c["title"] != mine["conversation"].(map[string]any)["title"] || c["personaId"] != carolPersona["id"] || review["kind"] != "position" || review["positionId"] == pos {
		t.Fatalf("restored conversation %v", c)
	}
	if p := carol.Do("GET", "/api/positions/"+review["positionId"].(string), nil); p.Status != 200 || p.JSON["position"].(map[string]any)["symbol"] != "NVDA" {
		t.Fatalf("the review names %v, not carol's NVDA: %d", review["positionId"], p.Status)
	}

	// The restored conversation goes on with its persona and its review
	// (once carol, too, lets the assistant read her journal).
	carol.allowJournal(true)
	carol.ask(carolConv, "Go on", "k-rt-carol")
	if sys := p.systemPrompt(t, len(p.calls())-1); !strings.Contains(sys, instructions) || !strings.Contains(sys, "NVDA long (stock)") {
		t.Fatalf("carol's turn:\n%s", sys)
	}
	if again := restoreArchive(t, carol, archive); again.Status != http.StatusConflict {
		t.Fatalf("second restore %d %s", again.Status, again.Body)
	}
}

func restoreArchive(t *testing.T, u *user, archive []byte) apitest.Response {
	t.Helper()
	req := u.NewRequest("POST", "/api/backup/restore", string(archive))
	req.Header.Set("Content-Type", "application/zip")
	return u.Send(req)
}

// entry is one entry of a zip archive.
func entry(t *testing.T, archive []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return string(b)
}

// messagesOf is a conversation's messages as role, completeness and text.
func messagesOf(read map[string]any) string {
	var b strings.Builder
	for _, m := range read["messages"].([]any) {
		m := m.(map[string]any)
		b.WriteString(m["role"].(string) + " " + map[bool]string{true: "complete", false: "incomplete"}[m["complete"].(bool)] + " " + m["content"].(string) + "\n")
	}
	return b.String()
}
