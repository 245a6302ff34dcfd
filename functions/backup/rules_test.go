package backup_test

import (
	"bytes"
	"context"
	"testing"

	"tradejournal/shared/apitest"
	"tradejournal/shared/backup"
)

// TestRestoreRulesBeforeWeights: an archive made before rule weights and
// tag scopes (its rule lines without weight and tagId) restores its rules
// as important ones of every position; an unknown weight is refused.
func TestRestoreRulesBeforeWeights(t *testing.T) {
	f := setup(t)
	build := func(rule string) []byte {
		var buf bytes.Buffer
		w := backup.NewWriter(&buf, "test", testNow)
		ew, _ := w.Create(backup.EntryRules, true)
		_, _ = ew.Write([]byte(rule + "\n"))
		_ = w.Close()
		return buf.Bytes()
	}
	old := `{"type":"maxTradesPerDay","params":{"count":3},"enabled":true,"accountId":null,"createdAt":"2025-01-01T00:00:00Z"}`
	c, uid := f.user(t, "old@example.com")
	apitest.Must(t, restore(t, c, build(old)), 201)
	var (
		weight int
		tag    *string
	)
	if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT weight, tag_id::text FROM trading_rules WHERE user_id = $1`, uid).Scan(&weight, &tag); err != nil {
		t.Fatal(err)
	}
	if weight != 2 || tag != nil {
		t.Fatalf("weight %d, tag %v", weight, tag)
	}
	if l := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/rules", nil), 200)); len(l) != 1 || l[0].(map[string]any)["weight"] != "important" {
		t.Fatalf("rules %v", l)
	}
	c2, _ := f.user(t, "bad@example.com")
	bad := `{"type":"maxTradesPerDay","params":{"count":3},"enabled":true,"accountId":null,"weight":"huge","createdAt":"2025-01-01T00:00:00Z"}`
	if r := restore(t, c2, build(bad)); r.Status != 400 || r.ErrorCode() != "INVALID_BACKUP" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}
