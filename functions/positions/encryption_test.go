package positions_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// With ENCRYPTION_KEY set, notes and captions are ciphertext in the
// database and plaintext to their owner.
func TestNotesAndCaptionsEncryptedAtRest(t *testing.T) {
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32)
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	c.Register("private@example.com", "password1")
	account := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")["id"].(string)
	pos := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{
		"accountId": account, "symbol": "AAPL", "assetType": "stock", "side": "long", "notes": "chased the gap, again",
	}), 201), "position")
	id := pos["id"].(string)
	if pos["notes"] != "chased the gap, again" {
		t.Fatalf("notes in the answer: %v", pos["notes"])
	}
	apitest.Must(t, c.Do("PATCH", "/api/positions/"+id, map[string]any{"notes": "sized too big"}), 200)
	upload(t, c, "/api/positions/"+id+"/images", map[string][]byte{"file": pngBytes, "caption": []byte("my secret setup")}, "image/png")

	var notes, caption string
	if err := srv.App.DB.QueryRow(context.Background(),
		`SELECT p.notes, i.caption FROM positions p JOIN position_images i ON i.position_id = p.id WHERE p.id = $1`, id).Scan(&notes, &caption); err != nil {
		t.Fatal(err)
	}
	for _, stored := range []string{notes, caption} {
		if !strings.HasPrefix(stored, "tj1:") || strings.Contains(stored, "sized") || strings.Contains(stored, "secret") {
			t.Fatalf("stored in the clear: %q", stored)
		}
	}
	if got := apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/positions/"+id, nil), 200), "position")["notes"]; got != "sized too big" {
		t.Fatalf("notes read back %v", got)
	}
	imgs := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions/"+id+"/images", nil), 200))
	if len(imgs) != 1 || imgs[0].(map[string]any)["caption"] != "my secret setup" {
		t.Fatalf("images %v", imgs)
	}
}
