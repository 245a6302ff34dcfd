package positions_test

import (
	"context"
	"net/url"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apitest"
	"tradejournal/shared/listquery"
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
	// The Berlin account is a funded prop-firm account.
	if _, err := f.srv.App.DB.Exec(context.Background(), `INSERT INTO prop_firm_plans (account_id, user_id, phase, plan)
		SELECT id, user_id, 'funded', '{}' FROM accounts WHERE id = $1`, berlin); err != nil {
		t.Fatal(err)
	}
	for q, n := range map[string]int{
		"propFirm=true":               1,
		"propFirm=false":              12,
		"phase=funded":                1,
		"phase=evaluation":            0,
		"propFirm=false&phase=funded": 0,
		"accountId=" + berlin:         1,
		"accountId=" + f.account:      12,
		"symbol=aapl":                 2,
		"status=draft":                3,
		"status=closed":               1,
		"status=open":                 9,
		"tagId=" + tag:                2,
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
		{Name: "BadPropFirm", Method: "GET", Path: "/api/positions?propFirm=1", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "BadPhase", Method: "GET", Path: "/api/positions?phase=challenge", Status: 400, Code: "VALIDATION_ERROR"},
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

	// Results: the net P&L's sign of closed positions (fees count); open
	// and draft positions have none.
	t.Run("Result", func(t *testing.T) {
		loss := create(f.account, "LOSS", nil, fill("entry", "10", "1", "0", "2024-02-01T15:00:00Z"), fill("exit", "9", "1", "0", "2024-02-01T16:00:00Z"))
		even := create(f.account, "EVEN", nil, fill("entry", "10", "1", "0.5", "2024-02-02T15:00:00Z"), fill("exit", "11", "1", "0.5", "2024-02-02T16:00:00Z"))
		for q, want := range map[string][]string{
			"result=win":                {closed},
			"result=loss":               {loss},
			"result=breakeven":          {even},
			"result=win,breakeven":      {even, closed},
			"result=loss&result=win":    {loss, closed},
			"result=win&status=open":    nil,
			"result=loss&symbol=MSFT":   nil,
			"result=win,loss,breakeven": {even, loss, closed},
			"result=breakeven&dateBy=closed&from=2024-02-02&to=2024-02-02": {even},
		} {
			if got := ids(q); !slices.Equal(got, want) {
				t.Errorf("%s gave %v, want %v", q, got, want)
			}
		}
		apitest.Run(t, a, []apitest.Case{
			{Name: "BadResult", Method: "GET", Path: "/api/positions?result=won", Status: 400, Code: "VALIDATION_ERROR", Field: "result"},
			{Name: "ResultWithBadSide", Method: "GET", Path: "/api/positions?result=win,tie&side=up", Status: 400, Code: "VALIDATION_ERROR", Field: "result"},
		})
	})
}

// TestPositionsListSorted walks every sort page by page: the pages must give
// what one full ORDER BY gives (the sorted column, the positions without a
// value last, or drafts first in the default order; ties by id), whatever
// the page size.
func TestPositionsListSorted(t *testing.T) {
	f := setup(t, nil)
	a := f.a
	create := func(symbol, stop string, fills ...any) {
		body := map[string]any{"accountId": f.account, "symbol": symbol, "assetType": "stock", "side": "long", "fills": fills}
		if stop != "" {
			body["stopLoss"] = stop
		}
		apitest.Must(t, a.Do("POST", "/api/positions", body), 201)
	}
	create("DRAFT", "")
	create("DRAFT", "")
	create("OPEN", "9", fill("entry", "10", "1", "0", "2024-01-02T15:00:00Z"))
	create("OPEN", "", fill("entry", "10", "1", "0", "2024-01-02T15:00:00Z"))
	// Same P&L and R, same close: the id breaks the ties.
	for range 3 {
		create("TIE", "9", fill("entry", "10", "1", "0", "2024-01-03T15:00:00Z"), fill("exit", "12", "1", "0", "2024-01-04T15:00:00Z"))
	}
	create("AAPL", "", fill("entry", "10", "1", "0", "2024-01-05T15:00:00Z"), fill("exit", "8", "1", "0", "2024-01-06T15:00:00Z"))
	create("MSFT", "9", fill("entry", "10", "2", "0", "2024-01-01T15:00:00Z"), fill("exit", "9.5", "2", "0", "2024-01-07T15:00:00Z"))
	create("ZM", "8", fill("entry", "10", "1", "0", "2024-01-08T15:00:00Z"), fill("exit", "15", "1", "0", "2024-01-09T15:00:00Z"))

	for _, sort := range []string{"", "-openedAt", "openedAt", "-closedAt", "closedAt", "symbol", "-symbol", "-netPnl", "netPnl", "-rMultiple", "rMultiple"} {
		srt, err := listquery.ParseSort(sort)
		if err != nil {
			t.Fatal(err)
		}
		dir, nulls := " ASC", " NULLS LAST"
		if srt.Desc {
			dir = " DESC"
		}
		if srt.NullsFirst {
			nulls = " NULLS FIRST"
		}
		rows, err := f.srv.App.DB.Query(context.Background(), `SELECT p.id::text FROM positions p ORDER BY `+srt.Column+dir+nulls+`, p.id`+dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil || len(want) != 10 {
			t.Fatalf("%d positions (%v)", len(want), err)
		}
		for _, limit := range []string{"1", "2", "3", "50"} {
			t.Run("sort="+sort+"/limit="+limit, func(t *testing.T) {
				var got []string
				cursor := ""
				for range 20 {
					q := url.Values{"limit": {limit}, "sort": {sort}}
					if cursor != "" {
						q.Set("cursor", cursor)
					}
					r := apitest.Must(t, a.Do("GET", "/api/positions?"+q.Encode(), nil), 200)
					for _, it := range apitest.Items(t, r) {
						got = append(got, it.(map[string]any)["id"].(string))
					}
					if cursor, _ = r.JSON["nextCursor"].(string); cursor == "" {
						break
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("pages gave\n%v\nwant\n%v", got, want)
				}
			})
		}
	}
	t.Run("NoValueLast", func(t *testing.T) {
		items := apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?sort=-rMultiple&limit=1", nil), 200))
		if r := items[0].(map[string]any)["rMultiple"]; r != "2.5000" {
			t.Fatalf("best R first: %v", r)
		}
		items = apitest.Items(t, apitest.Must(t, a.Do("GET", "/api/positions?sort=-closedAt", nil), 200))
		if last := items[len(items)-1].(map[string]any); last["closedAt"] != nil || items[0].(map[string]any)["symbol"] != "ZM" {
			t.Fatalf("latest close first, open ones last: first %v, last %v", items[0], last)
		}
	})
	page := apitest.Must(t, a.Do("GET", "/api/positions?sort=-netPnl&limit=2", nil), 200)
	otherSort := url.Values{"sort": {"netPnl"}, "cursor": {page.JSON["nextCursor"].(string)}}
	apitest.Run(t, a, []apitest.Case{
		{Name: "UnknownSort", Method: "GET", Path: "/api/positions?sort=pnl", Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "SortInjection", Method: "GET", Path: "/api/positions?sort=" + url.QueryEscape("p.id; DROP TABLE positions"), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "CursorOfAnotherSort", Method: "GET", Path: "/api/positions?" + otherSort.Encode(), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "ForgedCursorValue", Method: "GET", Path: "/api/positions?sort=-netPnl&cursor=" + listquery.EncodeKeys("-netPnl", "yesterday", missingID), Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NullCursorOfNotNullColumn", Method: "GET", Path: "/api/positions?sort=symbol&cursor=" + listquery.EncodeKeys("symbol", "", missingID), Status: 400, Code: "VALIDATION_ERROR"},
	})
	r := apitest.Must(t, a.Do("GET", "/api/positions?sort=best", nil), 400)
	if fs := detailFields(t, r); !slices.Equal(fs, []string{"sort"}) {
		t.Fatalf("details %v", fs)
	}
}
