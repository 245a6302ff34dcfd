package performance_test

import (
	"encoding/json"
	"testing"

	"tradejournal/shared/apitest"
)

// TestEntryDayAndHourInAccountZone: a position entered at 23:30 on a
// Monday in New York (04:30 Tuesday in UTC) is a Monday, 23h entry in the
// breakdowns and the filters of the statistics and the positions list, and
// a calendar day lists it by its close (dateBy=closed).
func TestEntryDayAndHourInAccountZone(t *testing.T) {
	srv := start(t)
	c, uid := signUp(t, srv, "zone@example.com")
	acc := account(t, srv, uid, "USD", "America/New_York")
	var id string
	queryRow(t, srv, &id, `INSERT INTO positions (user_id, account_id, symbol, asset_type, side, status, opened_at, closed_at,
			entry_quantity, exit_quantity, net_pnl, gross_pnl, fees)
		VALUES ($1, $2, 'AAPL', 'stock', 'long', 'closed', '2024-03-05T04:30:00Z', '2024-03-05T15:00:00Z', 10, 10, 50, 51, 1)
		RETURNING id::text`, uid, acc)
	rebuild(t, srv, uid)

	type entry struct {
		Weekday *int `json:"weekday"`
		Hour    *int `json:"hour"`
		Bucket  string
		Trades  int64 `json:"trades"`
	}
	var rep struct {
		ByCurrency []struct {
			ByWeekday  []entry `json:"byWeekday"`
			ByHour     []entry `json:"byHour"`
			ByHoldTime []struct {
				Bucket string `json:"bucket"`
				Trades int64  `json:"trades"`
			} `json:"byHoldTime"`
		} `json:"byCurrency"`
	}
	decode := func(r apitest.Response, dst any) {
		t.Helper()
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if err := json.Unmarshal(r.Body, dst); err != nil {
			t.Fatal(err)
		}
	}
	decode(c.Do("GET", "/api/performance?bySymbol=false", nil), &rep)
	b := rep.ByCurrency[0]
	if len(b.ByWeekday) != 1 || *b.ByWeekday[0].Weekday != 1 || len(b.ByHour) != 1 || *b.ByHour[0].Hour != 23 {
		t.Fatalf("weekday %+v hour %+v, want Monday (1) at 23", b.ByWeekday, b.ByHour)
	}
	if len(b.ByHoldTime) != 1 || b.ByHoldTime[0].Bucket != "4h-1d" {
		t.Fatalf("hold time %+v, want 10.5 hours (4h-1d)", b.ByHoldTime)
	}
	// counts answers how many positions the statistics and the positions
	// list give for query.
	counts := func(query string) [2]int {
		t.Helper()
		var r report
		decode(c.Do("GET", "/api/performance"+query, nil), &r)
		var page struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		decode(c.Do("GET", "/api/positions"+query, nil), &page)
		n := 0
		for _, b := range r.ByCurrency {
			n += int(b.Summary["trades"].(float64))
		}
		return [2]int{n, len(page.Items)}
	}
	// The statistics date by the close (10:00 on Tuesday 5 March in New
	// York), the list by the entry (Monday 4 March) unless dateBy=closed.
	for query, want := range map[string][2]int{
		"?weekday=1": {1, 1}, "?weekday=2": {0, 0}, "?hour=23": {1, 1}, "?hour=4": {0, 0}, "?weekday=1&hour=23&side=long": {1, 1},
		"?weekday=1&side=short": {0, 0}, "?from=2024-03-05&to=2024-03-05": {1, 0}, "?from=2024-03-04&to=2024-03-04": {0, 1},
		"?dateBy=closed&from=2024-03-05&to=2024-03-05": {1, 1}, "?dateBy=closed&from=2024-03-04&to=2024-03-04": {0, 0},
	} {
		if got := counts(query); got != want {
			t.Errorf("%s: statistics and list count %v, want %v", query, got, want)
		}
	}
}
