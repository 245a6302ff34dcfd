package backup_test

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/backup"
)

// TestSealedText: with ENCRYPTION_KEY set, notes, captions and journal
// days' texts are sealed at rest; the backup (the user's own copy) holds
// them opened, and a restore into an instance with another key seals them
// with that key.
func TestSealedText(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32)
	src := apitest.Start(t, cfg, functions.All)
	a := src.Client(t)
	a.Register("a@example.com", "password1")
	account := id(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")
	pos := id(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": "AAPL", "assetType": "stock",
		"side": "long", "notes": "private thoughts", "fills": []any{fill("entry", "10", "1", "0", "2025-01-02T15:00:00Z")}}), 201), "position")
	apitest.Must(t, upload(t, a, "/api/positions/"+pos+"/images", pngBytes, "my caption"), 201)
	apitest.Must(t, a.Do("PUT", "/api/journal/days/2025-01-02", map[string]any{"plan": "day plan", "review": "day review",
		"notes": "day notes", "tagIds": []string{}}), 200)
	archive := download(t, a)

	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, zf := range zr.File {
		if zf.Name == backup.EntryPositions || zf.Name == backup.EntryImages || zf.Name == backup.EntryJournalDays {
			rc, _ := zf.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			text.Write(b)
		}
	}
	if !strings.Contains(text.String(), "private thoughts") || !strings.Contains(text.String(), "my caption") ||
		!strings.Contains(text.String(), `"plan":"day plan","review":"day review","notes":"day notes"`) || strings.Contains(text.String(), "tj1:") {
		t.Fatalf("the backup does not hold the opened text: %s", text.String())
	}

	cfg2 := apitest.Config(t)
	cfg2.Encryption.Key = bytes.Repeat([]byte{8}, 32)
	dst := apitest.Start(t, cfg2, functions.All)
	c := dst.Client(t)
	c.Register("c@example.com", "password1")
	apitest.Must(t, restore(t, c, archive), 201)
	list := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions", nil), 200))
	restored := list[0].(map[string]any)["id"].(string)
	got := apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/positions/"+restored, nil), 200), "position")
	imgs := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions/"+restored+"/images", nil), 200))
	if got["notes"] != "private thoughts" || len(imgs) != 1 || imgs[0].(map[string]any)["caption"] != "my caption" {
		t.Fatalf("restored notes %v, images %v", got["notes"], imgs)
	}
	var notes, caption string
	if err := dst.App.DB.QueryRow(t.Context(), `SELECT p.notes, i.caption FROM positions p JOIN position_images i ON i.position_id = p.id`).
		Scan(&notes, &caption); err != nil || !strings.HasPrefix(notes, "tj1:") || !strings.HasPrefix(caption, "tj1:") {
		t.Fatalf("stored %q %q (%v): not sealed", notes, caption, err)
	}
	day := apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/journal/days/2025-01-02", nil), 200), "day")
	if day["plan"] != "day plan" || day["review"] != "day review" || day["notes"] != "day notes" {
		t.Fatalf("restored day %v", day)
	}
	var plan, review string
	if err := dst.App.DB.QueryRow(t.Context(), `SELECT plan, review, notes FROM journal_days`).Scan(&plan, &review, &notes); err != nil ||
		!strings.HasPrefix(plan, "tj1:") || !strings.HasPrefix(review, "tj1:") || !strings.HasPrefix(notes, "tj1:") {
		t.Fatalf("stored day %q %q %q (%v): not sealed", plan, review, notes, err)
	}
}
