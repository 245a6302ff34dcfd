package listquery

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

func TestParseFilter(t *testing.T) {
	const id = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	t.Run("Empty", func(t *testing.T) {
		f, err := ParseFilter(url.Values{})
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		if got := f.SQL(&args, "p.closed_at"); got != "TRUE" || len(args) != 0 {
			t.Fatalf("%q %v", got, args)
		}
	})
	t.Run("All", func(t *testing.T) {
		q := url.Values{"accountId": {id}, "symbol": {" aapl ,msft"}, "status": {"closed"}, "tagId": {id}, "from": {"2026-01-01"}, "to": {"2026-01-31"},
			"excludeTagId": {id}, "side": {"short"}, "assetType": {"option", "future", "future_option"}, "weekday": {"1,5"}, "hour": {"9"}}
		f, err := ParseFilter(q)
		if err != nil {
			t.Fatal(err)
		}
		args := []any{"user"}
		sql := f.SQL(&args, "p.closed_at")
		for _, want := range []string{"p.account_id = ANY($2::uuid[])", "p.symbol = ANY($3::text[]) OR p.underlying = ANY($3::text[])",
			"p.status = $4", "pt.tag_id = ANY($5::uuid[])", "NOT EXISTS", "pt.tag_id = ANY($6::uuid[])", "p.side = $7",
			"p.asset_type = ANY($8::text[])", "isodow FROM p.opened_at AT TIME ZONE a.timezone)::int = ANY($9::int[])",
			"extract(hour FROM p.opened_at AT TIME ZONE a.timezone)::int = ANY($10::int[])",
			"AT TIME ZONE a.timezone)::date >= $11::date", "<= $12::date"} {
			if !strings.Contains(sql, want) {
				t.Errorf("%q lacks %q", sql, want)
			}
		}
		if len(args) != 12 || !slices.Equal(args[2].([]string), []string{"AAPL", "MSFT"}) || !slices.Equal(args[8].([]int), []int{1, 5}) ||
			args[10] != "2026-01-01" || !f.NeedsAccount() {
			t.Fatalf("args %v", args)
		}
	})
	t.Run("Playbook", func(t *testing.T) {
		f, err := ParseFilter(url.Values{"playbookId": {id + "," + id}})
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		if got := f.SQL(&args, "p.closed_at"); got != "p.playbook_id = ANY($1::uuid[])" || len(args) != 1 || f.NeedsAccount() {
			t.Fatalf("%q %v", got, args)
		}
	})
	t.Run("PropFirm", func(t *testing.T) {
		f, err := ParseFilter(url.Values{"propFirm": {"false"}, "phase": {"evaluation", "funded"}})
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		got := f.SQL(&args, "p.closed_at")
		want := "NOT EXISTS (SELECT 1 FROM prop_firm_plans pf WHERE pf.account_id = p.account_id) AND " +
			"EXISTS (SELECT 1 FROM prop_firm_plans pf WHERE pf.account_id = p.account_id AND pf.phase = ANY($1::text[]))"
		if got != want || !slices.Equal(args[0].([]string), []string{"evaluation", "funded"}) || f.NeedsAccount() {
			t.Fatalf("%q %v", got, args)
		}
		yes := true
		for _, tc := range []struct {
			f     Filter
			phase string
			takes bool
		}{
			{f, "", false}, {f, "evaluation", false}, // no plan, and a plan's phase: never both
			{Filter{PropFirm: &yes}, "funded", true}, {Filter{PropFirm: &yes}, "", false},
			{Filter{Phases: []string{"funded"}}, "funded", true}, {Filter{Phases: []string{"funded"}}, "evaluation", false},
		} {
			m := tc.f.Compile(nil, nil, nil)
			c := Candidate{Phase: tc.phase, Status: journal.StatusClosed}
			if m.Takes(&c) != tc.takes {
				t.Errorf("%+v takes phase %q: %v", tc.f, tc.phase, !tc.takes)
			}
		}
	})
	t.Run("Result", func(t *testing.T) {
		f, err := ParseFilter(url.Values{"result": {"win,breakeven"}})
		if err != nil {
			t.Fatal(err)
		}
		var args []any
		got := f.SQL(&args, "p.closed_at")
		if got != "(p.status = 'closed' AND sign(p.net_pnl)::int = ANY($1::int[]))" || !slices.Equal(args[0].([]int), []int{1, 0}) {
			t.Fatalf("%q %v", got, args)
		}
	})
	for name, q := range map[string]url.Values{
		"BadPlaybook":   {"playbookId": {id + ",x"}},
		"BadAccount":    {"accountId": {"1 OR 1=1"}},
		"BadStatus":     {"status": {"won"}},
		"BadTag":        {"tagId": {"x"}},
		"BadDate":       {"from": {"2026-13-01"}},
		"DateTime":      {"to": {"2026-01-01T00:00:00Z"}},
		"ToBeforeFrom":  {"from": {"2026-02-01"}, "to": {"2026-01-01"}},
		"LongSymbol":    {"symbol": {strings.Repeat("A", 33)}},
		"NULInSymbol":   {"symbol": {"AA\x00PL"}},
		"BadUTF8":       {"symbol": {"\xff\xfe"}},
		"BadSide":       {"side": {"flat"}},
		"BadResult":     {"result": {"win,lost"}},
		"ResultCase":    {"result": {"Win"}},
		"BadAsset":      {"assetType": {"stock,bond"}},
		"FuturesOption": {"assetType": {"futures_option"}},
		"Weekday0":      {"weekday": {"0"}},
		"Hour24":        {"hour": {"24"}},
		"BadExclude":    {"excludeTagId": {id + ",x"}},
		"TooMany":       {"symbol": {strings.Repeat("A,", 51)}},
		"BadPropFirm":   {"propFirm": {"yes"}},
		"BadPhase":      {"phase": {"evaluation,challenge"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseFilter(q); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestFilterFieldsInBoth: every field of Filter narrows in both of its
// forms, the SQL and the in-memory Match. A field added to Filter fails
// here until it has a row below, and then until both forms read it.
func TestFilterFieldsInBoth(t *testing.T) {
	day := func(s string) *time.Time { d, _ := journal.ParseDate(s); return &d }
	const known = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	index := func(id string) (int32, bool) { return 7, id == known }
	// A candidate every empty filter takes; each row's filter refuses the
	// candidate after its change.
	base := Candidate{Account: 7, Status: journal.StatusClosed, Day: day("2026-03-04").Unix() / 86400, Tags: []int32{7}, Playbook: 7,
		Long: true, AssetType: instrument.AssetStock, Strategy: NoStrategy, Result: journal.ResultWin, Weekday: 3, Hour: 15, Phase: "evaluation"}
	rows := map[string]struct {
		set    func(*Filter)
		refuse func(*Candidate)
	}{
		"AccountIDs":    {func(f *Filter) { f.AccountIDs = []string{known} }, func(c *Candidate) { c.Account = 8 }},
		"Symbols":       {func(f *Filter) { f.Symbols = []string{"AAPL"} }, nil}, // matched apart: TakesSymbol
		"Status":        {func(f *Filter) { f.Status = journal.StatusClosed }, func(c *Candidate) { c.Status = journal.StatusOpen }},
		"TagIDs":        {func(f *Filter) { f.TagIDs = []string{known} }, func(c *Candidate) { c.Tags = nil }},
		"ExcludeTagIDs": {func(f *Filter) { f.ExcludeTagIDs = []string{known} }, func(c *Candidate) {}},
		"PlaybookIDs":   {func(f *Filter) { f.PlaybookIDs = []string{known} }, func(c *Candidate) { c.Playbook = -1 }},
		"Strategies":    {func(f *Filter) { f.Strategies = []string{"vertical"} }, func(c *Candidate) {}},
		"Side":          {func(f *Filter) { f.Side = journal.SideShort }, func(c *Candidate) {}},
		"AssetTypes":    {func(f *Filter) { f.AssetTypes = []string{instrument.AssetOption} }, func(c *Candidate) {}},
		"Results":       {func(f *Filter) { f.Results = []string{journal.ResultWin} }, func(c *Candidate) { c.Result = journal.ResultLoss }},
		"Weekdays":      {func(f *Filter) { f.Weekdays = []int{1} }, func(c *Candidate) {}},
		"Hours":         {func(f *Filter) { f.Hours = []int{9} }, func(c *Candidate) {}},
		"From":          {func(f *Filter) { f.From = day("2026-03-05") }, func(c *Candidate) {}},
		"To":            {func(f *Filter) { f.To = day("2026-03-03") }, func(c *Candidate) {}},
		"ByClose":       {nil, nil}, // no condition of its own: the list dates From and To by the close (SQL's dateColumn)
		"PropFirm":      {func(f *Filter) { yes := true; f.PropFirm = &yes }, func(c *Candidate) { c.Phase = "" }},
		"Phases":        {func(f *Filter) { f.Phases = []string{"funded"} }, func(c *Candidate) {}},
	}
	var empty Filter
	var args []any
	if empty.SQL(&args, "p.closed_at") != "TRUE" {
		t.Fatal("the empty filter narrows")
	}
	m := empty.Compile(index, index, index)
	if c := base; !m.Takes(&c) {
		t.Fatal("the empty filter refuses the base candidate")
	}
	for _, field := range reflect.VisibleFields(reflect.TypeFor[Filter]()) {
		row, ok := rows[field.Name]
		if !ok {
			t.Errorf("Filter.%s has no row here: give it its SQL and its Match, then a row", field.Name)
			continue
		}
		if row.set == nil {
			continue
		}
		var f Filter
		row.set(&f)
		var args []any
		if f.SQL(&args, "p.closed_at") == "TRUE" {
			t.Errorf("Filter.%s is missing from SQL", field.Name)
		}
		m := f.Compile(index, index, index)
		if row.refuse == nil {
			if !m.HasSymbols() || m.TakesSymbol("MSFT") || !m.TakesSymbol("AAPL") {
				t.Errorf("Filter.%s is missing from Match", field.Name)
			}
			continue
		}
		c := base
		row.refuse(&c)
		if m.Takes(&c) {
			t.Errorf("Filter.%s is missing from Match (it takes %+v)", field.Name, c)
		}
	}
}
