package accounts_test

import (
	"fmt"
	"slices"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/listquery"
)

// TestBoundedListsPaginate walks the accounts, brokerages and tags lists two
// at a time: the pages are the whole list in its order, with no repeats
// and no gaps, even when the item a cursor names is deleted between pages.
// Without a limit each list still comes back whole.
func TestBoundedListsPaginate(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("a@example.com", "password1")
	b.Register("b@example.com", "password1")
	apitest.Must(t, b.Do("POST", "/api/accounts", map[string]any{"name": "B's", "currency": "USD"}), 201)
	apitest.Must(t, b.Do("POST", "/api/tags", map[string]any{"name": "B's"}), 201)
	apitest.Must(t, b.Do("POST", "/api/brokerages", map[string]any{"name": "B's"}), 201)

	for i := range 5 {
		apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": fmt.Sprintf("Account %d", i), "currency": "USD"}), 201)
		apitest.Must(t, a.Do("POST", "/api/brokerages", map[string]any{"name": fmt.Sprintf("Broker %d", i)}), 201)
	}
	// Every category, names whose case and accents sort by lower(name).
	for _, tag := range [][2]string{{"b", "setup"}, {"A", "setup"}, {"Fomo", "emotion"}, {"chased", "mistake"}, {"Zed", "general"},
		{"ärger", "emotion"}, {"Calm", "emotion"}} {
		apitest.Must(t, a.Do("POST", "/api/tags", map[string]any{"name": tag[0], "category": tag[1]}), 201)
	}

	ids := func(r apitest.Response) []string {
		var out []string
		for _, it := range apitest.Items(t, r) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	for _, path := range []string{"/api/accounts", "/api/brokerages", "/api/tags"} {
		t.Run(path, func(t *testing.T) {
			whole := apitest.Must(t, a.Do("GET", path, nil), 200)
			want := ids(whole)
			if whole.JSON["nextCursor"] != nil || len(want) < 5 {
				t.Fatalf("whole list: %s", whole.Body)
			}
			var got []string
			cursor := ""
			for range len(want) {
				r := apitest.Must(t, a.Do("GET", path+"?limit=2&cursor="+cursor, nil), 200)
				page := ids(r)
				if len(page) > 2 {
					t.Fatalf("page of %d", len(page))
				}
				got = append(got, page...)
				next, _ := r.JSON["nextCursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pages %v, want %v", got, want)
			}
			if r := apitest.Must(t, a.Do("GET", path+"?limit=200", nil), 200); r.JSON["nextCursor"] != nil || len(ids(r)) != len(want) {
				t.Fatalf("one page of everything: %s", r.Body)
			}
		})
	}

	t.Run("CursorOfDeletedItem", func(t *testing.T) {
		want := ids(apitest.Must(t, a.Do("GET", "/api/tags", nil), 200))
		r := apitest.Must(t, a.Do("GET", "/api/tags?limit=3", nil), 200)
		apitest.Must(t, a.Do("DELETE", "/api/tags/"+want[2], nil), 204)
		rest := ids(apitest.Must(t, a.Do("GET", "/api/tags?cursor="+r.JSON["nextCursor"].(string), nil), 200))
		if !slices.Equal(rest, want[3:]) {
			t.Fatalf("after the deleted cursor item: %v, want %v", rest, want[3:])
		}
	})

	accountCursor := listquery.EncodeKeys("2024-01-01T00:00:00Z", missingID)
	positionsCursor := listquery.Cursor{ID: missingID}.Encode()
	var cases []apitest.Case
	for _, path := range []string{"/api/accounts", "/api/brokerages", "/api/tags"} {
		cases = append(cases,
			apitest.Case{Name: path + "/BadLimit", Method: "GET", Path: path + "?limit=two", Status: 400, Code: "VALIDATION_ERROR"},
			apitest.Case{Name: path + "/BadCursor", Method: "GET", Path: path + "?cursor=%25", Status: 400, Code: "VALIDATION_ERROR"},
			apitest.Case{Name: path + "/PositionsCursor", Method: "GET", Path: path + "?cursor=" + positionsCursor, Status: 400, Code: "VALIDATION_ERROR"},
		)
	}
	cases = append(cases,
		apitest.Case{Name: "TagsWithAccountCursor", Method: "GET", Path: "/api/tags?cursor=" + accountCursor, Status: 400, Code: "VALIDATION_ERROR"},
		apitest.Case{Name: "AccountsBadTimeKey", Method: "GET", Path: "/api/accounts?cursor=" + listquery.EncodeKeys("yesterday", missingID), Status: 400, Code: "VALIDATION_ERROR"},
		apitest.Case{Name: "BrokeragesBadFlag", Method: "GET", Path: "/api/brokerages?cursor=" + listquery.EncodeKeys("maybe", "2024-01-01T00:00:00Z", missingID), Status: 400, Code: "VALIDATION_ERROR"},
	)
	apitest.Run(t, a, cases)
}
