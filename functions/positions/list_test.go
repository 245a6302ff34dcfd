package positions_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apitest"
)

func TestPositionsList(t *testing.T) {
	f := setup(t, map[string]any{"name": "NY", "currency": "USD"})
	a := f.a
	berlin := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "DE", "currency": "EUR", "timezone": "Europe/Berlin"}), 201), "account")["id"].(string)
	tag := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": "A+"}), 201), "tag")["id"].(string)

	create := func(account, symbol string, tags []any, fills ...any) string {
		body := map[string]any{"accountId": account, "symbol": symbol, "assetType": "stock", "side": "long", "fills": fills}
		if tags != nil {
			body["tagIds"] = tags
		}
		return apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", body), 201), "position")["id"].(string)
	}
	// Drafts (no fills) sort first.
	for range 3 {
		create(f.account, "DRAFT", nil)
	}
	// 03:00 UTC on the 3rd is still the 2nd in New York, already the 3rd in Berlin.
	lateNY := create(f.account, "AAPL", []any{tag}, fill("entry", "10", "1", "0", "2024-01-03T03:00:00Z"))
	lateDE := create(berlin, "AAPL", nil, fill("entry", "10", "1", "0", "2024-01-03T03:00:00Z"))
	closed := create(f.account, "MSFT", []any{tag}, fill("entry", "10", "1", "0", "2024-01-04T15:00:00Z"), fill("exit", "11", "1", "0", "2024-01-04T16:00:00Z"))
	for i := range 5 {
		create(f.account, "NVDA", nil, fill("entry", "10", "1", "0", "2024-01-0"+string(rune('5'+i))+"T15:00:00Z"))
	}
	// Two positions opened at the same instant: the id breaks the tie.
	create(f.account, "TIE", nil, fill("entry", "10", "1", "0", "2024-01-20T15:00:00Z"))
	create(f.account, "TIE", nil, fill("entry", "10", "1", "0", "2024-01-20T15:00:00Z"))

	rows, err := f.srv.App.DB.Query(context.Background(), `SELECT id::text FROM positions ORDER BY opened_at DESC NULLS FIRST, id DESC`)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(want) != 13 {
		t.Fatalf("%d positions (%v)", len(want), err)
	}

	for _, limit := range []string{"1", "2", "5", "50"} {
		t.Run("Pages/limit="+limit, func(t *testing.T) {
			var got []string
			cursor := ""
			for range 20 {
				q := url.Values{"limit": {limit}}
				if cursor != "" {
					q.Set("cursor", cursor)
				}
				r := apitest.Must(t, a.Do("GET", "/api/positions?"+q.Encode(), nil), 200)
				for _, it := range apitest.Items(t, r) {
					m := it.(map[string]any)
					got = append(got, m["id"].(string))
					if _, ok := m["fills"]; ok {
						t.Fatal("list items carry fills")
					}
				}
				next, _ := r.JSON["nextCursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pages gave\n%v\nwant\n%v", got, want)
			}
		})
	}
	first := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?limit=1", nil), 200))[0].(map[string]any)
	if first["openedAt"] != nil || first["status"] != "draft" {
		t.Fatalf("first item is not a draft: %v", first)
	}

	count := func(query string) int {
		t.Helper()
		return len(apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?"+query, nil), 200)))
	}
	ids := func(query string) []string {
		t.Helper()
		var out []string
		for _, it := range apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?"+query, nil), 200)) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	for q, n := range map[string]int{
		"accountId=" + berlin:    1,
		"accountId=" + f.account: 12,
		"symbol=aapl":            2,
		"status=draft":           3,
		"status=closed":          1,
		"status=open":            9,
		"tagId=" + tag:           2,
		"symbol=NVDA&from=2024-01-06&to=2024-01-08": 3,
		"limit=0":                1,
		"accountId=" + missingID: 0,
	} {
		if got := count(q); got != n {
			t.Errorf("%s: %d positions, want %d", q, got, n)
		}
	}
	// Dates are trading days in each account's zone.
	if got := ids("symbol=AAPL&to=2024-01-02"); !slices.Equal(got, []string{lateNY}) {
		t.Errorf("to=2024-01-02 gave %v, want the New York one", got)
	}
	if got := ids("symbol=AAPL&from=2024-01-03"); !slices.Equal(got, []string{lateDE}) {
		t.Errorf("from=2024-01-03 gave %v, want the Berlin one", got)
	}
	if got := ids("status=closed"); !slices.Equal(got, []string{closed}) {
		t.Errorf("closed %v", got)
	}
	it := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?status=closed", nil), 200))[0].(map[string]any)
	if it["netPnl"] != "1.0000" || len(it["tags"].([]any)) != 1 || it["closedAt"] != "2024-01-04T16:00:00Z" {
		t.Fatalf("list item %v", it)
	}

	apitest.Run(t, a, []apitest.Case{
		{Name: "BadStatus", Method: "GET", Path: "/api/positions?status=won", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadAccount", Method: "GET", Path: "/api/positions?accountId=1", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadTag", Method: "GET", Path: "/api/positions?tagId=1", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadFrom", Method: "GET", Path: "/api/positions?from=2024-02-30", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ToBeforeFrom", Method: "GET", Path: "/api/positions?from=2024-02-02&to=2024-02-01", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadLimit", Method: "GET", Path: "/api/positions?limit=ten", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadCursor", Method: "GET", Path: "/api/positions?cursor=bm90LWEtY3Vyc29y", Status: 400, Code: "VALIDATION_ERROR"},
	})
	r := apitest.Must(t, a.Do("GET", "/api/positions?status=won&limit=x&cursor=%25", nil), 400)
	if fs := detailFields(t, r); !slices.Equal(fs, []string{"status", "limit", "cursor"}) {
		t.Fatalf("details %v", fs)
	}
}
