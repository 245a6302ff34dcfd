package users_test

import (
	"fmt"
	"slices"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/personal"
)

const layoutPath = "/api/users/me/dashboard-layout"

func widgetIDs(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var ids []string
	for _, w := range r.JSON["widgets"].([]any) {
		ids = append(ids, w.(map[string]any)["id"].(string))
	}
	return ids
}

// TestDashboardLayout: the default until changed; a layout is kept whole
// (order and sizes) per user; bad layouts are 400s naming the element and
// store nothing; DELETE brings the default back.
func TestDashboardLayout(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("layout-a@example.com", "password1")
	b := srv.Client(t)
	b.Register("layout-b@example.com", "password1")

	def := apitest.Must(t, a.Do("GET", layoutPath, nil), 200)
	if def.JSON["custom"] != false || len(widgetIDs(t, def)) != personal.MaxWidgets || widgetIDs(t, def)[0] != "total-balance" {
		t.Fatalf("default layout: %s", def.Body)
	}

	mine := []map[string]string{{"id": "calendar", "size": "half"}, {"id": "net-pnl", "size": "third"}, {"id": "by-tag", "size": "full"}}
	t.Run("Saved", func(t *testing.T) {
		apitest.Must(t, a.Do("PUT", layoutPath, map[string]any{"widgets": mine}), 200)
		got := apitest.Must(t, a.Do("GET", layoutPath, nil), 200)
		if got.JSON["custom"] != true || !slices.Equal(widgetIDs(t, got), []string{"calendar", "net-pnl", "by-tag"}) ||
			got.JSON["widgets"].([]any)[1].(map[string]any)["size"] != "third" {
			t.Fatalf("stored layout: %s", got.Body)
		}
	})
	t.Run("OtherUserUnaffected", func(t *testing.T) {
		if got := apitest.Must(t, b.Do("GET", layoutPath, nil), 200); got.JSON["custom"] != false {
			t.Fatalf("b sees a's layout: %s", got.Body)
		}
	})

	tooMany := make([]map[string]string, personal.MaxWidgets+1)
	for i := range tooMany {
		tooMany[i] = map[string]string{"id": personal.DefaultLayout[i%personal.MaxWidgets].ID, "size": "full"}
	}
	apitest.Run(t, a, []apitest.Case{
		{Name: "Missing", Method: "PUT", Path: layoutPath, Body: map[string]any{}, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets"},
		{Name: "Null", Method: "PUT", Path: layoutPath, Body: `{"widgets":null}`, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets"},
		{Name: "UnknownWidget", Method: "PUT", Path: layoutPath, Body: map[string]any{"widgets": []map[string]string{
			{"id": "net-pnl", "size": "full"}, {"id": "stock-ticker", "size": "full"}}}, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets[1].id"},
		{Name: "Duplicate", Method: "PUT", Path: layoutPath, Body: map[string]any{"widgets": []map[string]string{
			{"id": "net-pnl", "size": "full"}, {"id": "net-pnl", "size": "half"}}}, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets[1].id"},
		{Name: "UnknownSize", Method: "PUT", Path: layoutPath, Body: map[string]any{"widgets": []map[string]string{
			{"id": "net-pnl", "size": "two-thirds"}}}, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets[0].size"},
		{Name: "TooMany", Method: "PUT", Path: layoutPath, Body: map[string]any{"widgets": tooMany}, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets"},
		{Name: "UnknownField", Method: "PUT", Path: layoutPath, Body: `{"widgets":[{"id":"net-pnl","size":"full","x":1}]}`, Status: 400, Code: "VALIDATION_ERROR"},
		{Name: "NotAList", Method: "PUT", Path: layoutPath, Body: `{"widgets":"net-pnl"}`, Status: 400, Code: "VALIDATION_ERROR", Field: "widgets"},
		{Name: "Malformed", Method: "PUT", Path: layoutPath, Body: `{"widgets":[`, Status: 400, Code: "INVALID_JSON"},
	})
	t.Run("RefusedChangesNothing", func(t *testing.T) {
		if got := apitest.Must(t, a.Do("GET", layoutPath, nil), 200); len(widgetIDs(t, got)) != 3 {
			t.Fatalf("a refused layout was stored: %s", got.Body)
		}
	})
	t.Run("EmptyIsALayout", func(t *testing.T) {
		apitest.Must(t, b.Do("PUT", layoutPath, map[string]any{"widgets": []any{}}), 200)
		if got := apitest.Must(t, b.Do("GET", layoutPath, nil), 200); got.JSON["custom"] != true || len(widgetIDs(t, got)) != 0 {
			t.Fatalf("empty layout: %s", got.Body)
		}
	})
	t.Run("Reset", func(t *testing.T) {
		r := apitest.Must(t, a.Do("DELETE", layoutPath, nil), 200)
		if r.JSON["custom"] != false || len(widgetIDs(t, r)) != personal.MaxWidgets {
			t.Fatalf("reset answer: %s", r.Body)
		}
		if got := apitest.Must(t, a.Do("GET", layoutPath, nil), 200); got.JSON["custom"] != false {
			t.Fatalf("after reset: %s", got.Body)
		}
		if got := apitest.Must(t, b.Do("GET", layoutPath, nil), 200); got.JSON["custom"] != true {
			t.Fatalf("a's reset reset b's layout: %s", got.Body)
		}
	})
	t.Run("SignedOut", func(t *testing.T) {
		apitest.Run(t, srv.Client(t), []apitest.Case{
			{Name: "Get", Method: "GET", Path: layoutPath, Status: 401, Code: "UNAUTHENTICATED"},
			{Name: "Put", Method: "PUT", Path: layoutPath, Body: map[string]any{"widgets": mine}, Status: 401, Code: "UNAUTHENTICATED"},
		})
	})
}

const viewsPath = "/api/users/me/saved-views"

// TestSavedViews: create, list, rename, refilter and delete; names unique
// per user whatever their case; the filter checked as the statistics check
// it; at most personal.MaxViews; another user's views out of reach.
func TestSavedViews(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("views-a@example.com", "password1")
	b := srv.Client(t)
	b.Register("views-b@example.com", "password1")

	v := apitest.Object(t, apitest.Must(t, a.Do("POST", viewsPath, map[string]any{"name": "  Longs in May ", "query": "?to=2025-05-31&side=long&from=2025-05-01"}), 201), "view")
	id := v["id"].(string)
	if v["name"] != "Longs in May" || v["query"] != "from=2025-05-01&side=long&to=2025-05-31" {
		t.Fatalf("created view: %v", v)
	}
	apitest.Must(t, a.Do("POST", viewsPath, map[string]any{"name": "Everything", "query": ""}), 201)

	apitest.Run(t, a, []apitest.Case{
		{Name: "NameMissing", Method: "POST", Path: viewsPath, Body: map[string]any{"query": ""}, Status: 400, Code: "VALIDATION_ERROR", Field: "name"},
		{Name: "NameBlank", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "  ", "query": ""}, Status: 400, Code: "VALIDATION_ERROR", Field: "name"},
		{Name: "NameTooLong", Method: "POST", Path: viewsPath, Body: map[string]any{"name": string(make([]rune, 81)), "query": ""}, Status: 400, Code: "VALIDATION_ERROR", Field: "name"},
		{Name: "NameTaken", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "longs IN may", "query": ""}, Status: 400, Code: "VALIDATION_ERROR", Field: "name"},
		{Name: "QueryMissing", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "x"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query"},
		{Name: "BadDate", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "x", "query": "from=May"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query.from"},
		{Name: "BadAccountID", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "x", "query": "accountId=1"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query.accountId"},
		{Name: "ListOnlyFilter", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "x", "query": "status=open"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query.status"},
		{Name: "NotAFilter", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "x", "query": "sort=-netPnl"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query.sort"},
		{Name: "BadEscape", Method: "POST", Path: viewsPath, Body: map[string]any{"name": "x", "query": "symbol=%zz"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query"},
		{Name: "RenameTaken", Method: "PATCH", Path: viewsPath + "/" + id, Body: map[string]any{"name": "EVERYTHING"}, Status: 400, Code: "VALIDATION_ERROR", Field: "name"},
		{Name: "PatchBadQuery", Method: "PATCH", Path: viewsPath + "/" + id, Body: map[string]any{"query": "weekday=9"}, Status: 400, Code: "VALIDATION_ERROR", Field: "query.weekday"},
		{Name: "PatchMalformedID", Method: "PATCH", Path: viewsPath + "/nope", Body: map[string]any{"name": "y"}, Status: 404},
		{Name: "DeleteMalformedID", Method: "DELETE", Path: viewsPath + "/nope", Status: 404},
	})

	t.Run("Renamed", func(t *testing.T) {
		r := apitest.Object(t, apitest.Must(t, a.Do("PATCH", viewsPath+"/"+id, map[string]any{"name": "May longs"}), 200), "view")
		if r["name"] != "May longs" || r["query"] != v["query"] {
			t.Fatalf("renamed: %v", r)
		}
		r = apitest.Object(t, apitest.Must(t, a.Do("PATCH", viewsPath+"/"+id, map[string]any{"query": "symbol=aapl"}), 200), "view")
		if r["name"] != "May longs" || r["query"] != "symbol=aapl" {
			t.Fatalf("refiltered: %v", r)
		}
	})
	t.Run("OtherUser", func(t *testing.T) {
		if items := apitest.Items(t, apitest.Must(t, b.Do("GET", viewsPath, nil), 200)); len(items) != 0 {
			t.Fatalf("b lists a's views: %v", items)
		}
		apitest.Must(t, b.Do("PATCH", viewsPath+"/"+id, map[string]any{"name": "mine now"}), 404)
		apitest.Must(t, b.Do("DELETE", viewsPath+"/"+id, nil), 404)
		// The same name is b's to use.
		apitest.Must(t, b.Do("POST", viewsPath, map[string]any{"name": "May longs", "query": ""}), 201)
	})
	t.Run("Listed", func(t *testing.T) {
		items := apitest.Items(t, apitest.Must(t, a.Do("GET", viewsPath, nil), 200))
		if len(items) != 2 || items[0].(map[string]any)["name"] != "Everything" || items[1].(map[string]any)["name"] != "May longs" {
			t.Fatalf("a's views: %v", items)
		}
	})
	t.Run("Limit", func(t *testing.T) {
		for i := 2; i < personal.MaxViews; i++ {
			apitest.Must(t, a.Do("POST", viewsPath, map[string]any{"name": fmt.Sprintf("View %d", i), "query": ""}), 201)
		}
		r := a.Do("POST", viewsPath, map[string]any{"name": "One too many", "query": ""})
		if r.Status != 409 || r.ErrorCode() != "CONFLICT" {
			t.Fatalf("view past the limit: %d %s", r.Status, r.Body)
		}
	})
	t.Run("Deleted", func(t *testing.T) {
		apitest.Must(t, a.Do("DELETE", viewsPath+"/"+id, nil), 204)
		apitest.Must(t, a.Do("DELETE", viewsPath+"/"+id, nil), 404)
		if items := apitest.Items(t, apitest.Must(t, b.Do("GET", viewsPath, nil), 200)); len(items) != 1 {
			t.Fatalf("a's deletion reached b: %v", items)
		}
	})
}
