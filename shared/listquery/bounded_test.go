package listquery

import (
	"net/url"
	"slices"
	"testing"
	"time"
)

func TestBoundedPage(t *testing.T) {
	const id = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	order := []SortKey{TimeKey("created_at"), IDKey}
	at := time.Date(2024, 1, 2, 3, 4, 5, 123456000, time.UTC)

	whole, err := ParseBoundedPage(url.Values{}, order)
	if err != nil {
		t.Fatal(err)
	}
	if sql, args := whole.Query(`SELECT 1 FROM t WHERE u = $1`, []any{"u"}, order); sql != `SELECT 1 FROM t WHERE u = $1 ORDER BY created_at, id` || len(args) != 1 {
		t.Fatalf("whole list: %s %v", sql, args)
	}
	rows, next := PageOf([]string{"a", "b", "c"}, whole, func(string) []string { t.Fatal("a cursor for a whole list"); return nil })
	if len(rows) != 3 || next != nil {
		t.Fatalf("whole list cut: %v %v", rows, next)
	}

	q := url.Values{"limit": {"2"}, "cursor": {EncodeKeys(TimeKeyOf(at), id)}}
	page, err := ParseBoundedPage(q, order)
	if err != nil {
		t.Fatal(err)
	}
	sql, args := page.Query(`SELECT 1 FROM t WHERE u = $1`, []any{"u"}, order)
	want := `SELECT 1 FROM t WHERE u = $1 AND (created_at, id) > ($2::timestamptz, $3::uuid) ORDER BY created_at, id LIMIT $4`
	if sql != want || !slices.Equal(args, []any{"u", "2024-01-02T03:04:05.123456Z", id, 3}) {
		t.Fatalf("page:\n%s\n%v", sql, args)
	}
	rows, next = PageOf([]string{"a", "b", "c"}, page, func(s string) []string { return []string{s, id} })
	if !slices.Equal(rows, []string{"a", "b"}) || next == nil || *next != EncodeKeys("b", id) {
		t.Fatalf("cut: %v %v", rows, next)
	}
	if rows, next = PageOf([]string{"a", "b"}, page, nil); len(rows) != 2 || next != nil {
		t.Fatalf("last page: %v %v", rows, next)
	}

	for _, bad := range []url.Values{
		{"limit": {"two"}},
		{"cursor": {"%"}},
		{"cursor": {EncodeKeys("yesterday", id)}},
		{"cursor": {EncodeKeys(TimeKeyOf(at), "x", id)}},
		{"cursor": {Cursor{At: &at, ID: id}.Encode()}},
	} {
		if _, err := ParseBoundedPage(bad, order); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
