package dayjournal_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/encrypt"
)

func TestParseDate(t *testing.T) {
	for _, ok := range []string{"1900-01-01", "2025-01-06", "2024-02-29", "2199-12-31"} {
		if _, err := dayjournal.ParseDate(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "x", "1899-12-31", "2200-01-01", "2025-02-29", "2025-1-6", "0000-01-01", "2025-01-06T00:00:00Z", " 2025-01-06"} {
		if _, err := dayjournal.ParseDate(bad); err != dayjournal.ErrDate {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestRotation: rotate-encryption-key re-seals a day's plan, review and
// notes under the new key, and they read the same.
func TestRotation(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	cfg := apitest.Config(t)
	cfg.Encryption.Key = oldKey
	srv := apitest.Start(t, cfg, functions.All)
	c := srv.Client(t)
	c.Register("rotate@example.com", "password1")
	apitest.Must(t, c.Do("PUT", "/api/journal/days/2025-01-06", map[string]any{"plan": "plan", "review": "review", "notes": "notes", "tagIds": []string{}}), 200)
	ring, err := encrypt.New(newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if n, err := encrypt.Rotate(ctx, srv.App.DB, ring, encrypt.Sealed, 10); err != nil || n != 3 {
		t.Fatalf("rotated %d (%v)", n, err)
	}
	var plan, review, notes string
	if err := srv.App.DB.QueryRow(ctx, `SELECT plan, review, notes FROM journal_days`).Scan(&plan, &review, &notes); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{plan, review, notes} {
		if !strings.HasPrefix(v, "tj1:"+encrypt.KeyID(newKey)+":") {
			t.Fatalf("not under the new key: %q", v)
		}
	}
	var userID string
	if err := srv.App.DB.QueryRow(ctx, `SELECT id::text FROM users`).Scan(&userID); err != nil {
		t.Fatal(err)
	}
	e, err := dayjournal.New(srv.App.DB, ring, time.Now).Get(ctx, userID, time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC))
	if err != nil || e.Plan != "plan" || e.Review != "review" || e.Notes != "notes" {
		t.Fatalf("read back %+v (%v)", e, err)
	}
}
