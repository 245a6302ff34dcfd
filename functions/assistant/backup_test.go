package assistant_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

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

// rewriteArchive is archive with each entry passed through edit (false
// drops it) and a new manifest: an archive as an older version, or a
// tampered one, would be written.
func rewriteArchive(t *testing.T, archive []byte, edit func(name string, data []byte) ([]byte, bool)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w := backup.NewWriter(&out, "test", time.Now())
	for _, f := range zr.File {
		if f.Name == backup.ManifestName {
			continue
		}
		data := []byte(entry(t, archive, f.Name))
		data, keep := edit(f.Name, data)
		if !keep {
			continue
		}
		fw, err := w.Create(f.Name, true)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// The consent and the turns' tool calls travel in the archive: a restore
// brings the consent back, and the calls under the restored turns, in their
// rounds (a later turn resends them as those rounds). An archive from
// before them restores without them; a call outside the limits is refused
// whole.
func TestBackupToolCallsAndConsent(t *testing.T) {
	p, e, alice := startFunded(t, "tools-backup@example.com")
	alice.allowJournal(true)
	const sizeArgs = `{"direction":"long","dollarRisk":"500","entryPrice":"100","mode":"stock","stopLoss":"95"}`
	p.setScript(func(n int) (int, []step) {
		switch n {
		case 0:
			return 200, []step{{tool: &[3]string{"a", "position_size", sizeArgs}}, {tool: &[3]string{"b", "day_journal", `{"date":"2024-05-06"}`}}, {usage: &[2]int64{10, 1}}, {done: true}}
		case 1:
			return 200, []step{{tool: &[3]string{"c", "list_positions", `{}`}}, {usage: &[2]int64{10, 1}}, {done: true}}
		}
		return 200, []step{{text: "Done."}, {usage: &[2]int64{10, 1}}, {done: true}}
	})
	conv := alice.ask("new", "Plan my day", "k-tb-1").done()["conversationId"].(string)
	mine := alice.Do("GET", "/api/assistant/conversations/"+conv, nil).JSON["toolCalls"].([]any)
	if len(mine) != 3 {
		t.Fatalf("alice's calls %v", mine)
	}

	archive := apitest.Must(t, alice.Do("GET", "/api/backup/archive", nil), 200).Body
	if got := entry(t, archive, backup.EntryAssistantSettings); strings.TrimSpace(got) != `{"journalAccess":true}` {
		t.Fatalf("settings entry %q", got)
	}
	lines := entry(t, archive, backup.EntryAssistantConversations)
	if !strings.Contains(lines, `"toolCalls":[{"round":0,"name":"position_size","arguments":`+sizeArgs) || !strings.Contains(lines, `{"round":1,"name":"list_positions"`) ||
		!strings.Contains(lines, `positionSize`) {
		t.Fatalf("conversations entry:\n%s", lines)
	}

	carol := e.user("tools-backup-carol@example.com")
	carol.credit(1_000_000)
	res := restoreArchive(t, carol, archive)
	if res.Status != http.StatusCreated || res.JSON["restored"].(map[string]any)["assistantToolCalls"] != float64(3) {
		t.Fatalf("restore %d %s", res.Status, res.Body)
	}
	if s := carol.Do("GET", "/api/assistant/settings", nil); s.JSON["journalAccess"] != true {
		t.Fatalf("carol's consent %s", s.Body)
	}
	carolConv := carol.Do("GET", "/api/assistant/conversations", nil).JSON["items"].([]any)[0].(map[string]any)["id"].(string)
	theirs := carol.Do("GET", "/api/assistant/conversations/"+carolConv, nil).JSON
	calls := theirs["toolCalls"].([]any)
	carolTurn := theirs["messages"].([]any)[0].(map[string]any)["turnId"].(string)
	for i, c := range calls {
		c, m := c.(map[string]any), mine[i].(map[string]any)
		if c["turnId"] != carolTurn || c["turnId"] == m["turnId"] || c["seq"] != m["seq"] || c["name"] != m["name"] || c["result"] != m["result"] ||
			fmt.Sprint(c["arguments"]) != fmt.Sprint(m["arguments"]) {
			t.Fatalf("restored call %d %v, was %v", i, c, m)
		}
	}
	// Carol's next turn resends them in their two rounds.
	p.setScript(func(int) (int, []step) { return 200, []step{{text: "Again."}, {usage: &[2]int64{10, 1}}, {done: true}} })
	carol.ask(carolConv, "And tomorrow?", "k-tb-carol")
	want := fmt.Sprintf("user: Plan my day\nassistant: call %[1]s-0 position_size %[2]s call %[1]s-1 day_journal {\"date\":\"2024-05-06\"}\ntool: result %[1]s-0\ntool: result %[1]s-1\n"+
		"assistant: call %[1]s-2 list_positions {}\ntool: result %[1]s-2\nassistant: Done.\nuser: And tomorrow?\n", carolTurn, sizeArgs)
	if got := renderMessages(t, p.calls()[len(p.calls())-1]); got != want {
		t.Fatalf("carol's turn:\n%s\nwant:\n%s", got, want)
	}

	t.Run("OlderArchive", func(t *testing.T) {
		old := rewriteArchive(t, archive, func(name string, data []byte) ([]byte, bool) {
			if name == backup.EntryAssistantSettings {
				return nil, false
			}
			if name != backup.EntryAssistantConversations {
				return data, true
			}
			var out bytes.Buffer
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var c map[string]any
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatal(err)
				}
				for _, turn := range c["turns"].([]any) {
					delete(turn.(map[string]any), "toolCalls")
				}
				b, _ := json.Marshal(c)
				out.Write(append(b, '\n'))
			}
			return out.Bytes(), true
		})
		dave := e.user("tools-backup-dave@example.com")
		res := restoreArchive(t, dave, old)
		if res.Status != http.StatusCreated || res.JSON["restored"].(map[string]any)["assistantToolCalls"] != float64(0) ||
			res.JSON["restored"].(map[string]any)["assistantConversations"] != float64(1) {
			t.Fatalf("restore %d %s", res.Status, res.Body)
		}
		if s := dave.Do("GET", "/api/assistant/settings", nil); s.JSON["journalAccess"] != false {
			t.Fatalf("dave's consent %s", s.Body)
		}
	})

	t.Run("CallOutsideTheLimits", func(t *testing.T) {
		u := e.user("tools-backup-refused@example.com")
		for name, edit := range map[string]func(string) string{
			"Round": func(l string) string { return strings.Replace(l, `"round":1`, `"round":9`, 1) },
			"Result": func(l string) string {
				return strings.Replace(l, `"result":"No positions match."`, `"result":"`+strings.Repeat("x", 9000)+`"`, 1)
			},
			"Arguments": func(l string) string { return strings.Replace(l, `"arguments":{}`, `"arguments":[1]`, 1) },
			"Name":      func(l string) string { return strings.Replace(l, `"name":"list_positions"`, `"name":""`, 1) },
		} {
			t.Run(name, func(t *testing.T) {
				bad := rewriteArchive(t, archive, func(n string, data []byte) ([]byte, bool) {
					if n == backup.EntryAssistantConversations {
						changed := edit(string(data))
						if changed == string(data) {
							t.Fatalf("the edit changed nothing")
						}
						return []byte(changed), true
					}
					return data, true
				})
				res := restoreArchive(t, u, bad)
				if res.Status != http.StatusBadRequest || res.ErrorCode() != "INVALID_BACKUP" || !strings.Contains(string(res.Body), "tool call") {
					t.Fatalf("restore %d %s", res.Status, res.Body)
				}
				if list := u.Do("GET", "/api/accounts", nil); len(list.JSON["items"].([]any)) != 0 {
					t.Fatalf("a refused restore wrote %s", list.Body)
				}
			})
		}
	})
}
