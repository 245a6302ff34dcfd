package playbooks_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const missingID = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"

// fixture is a server with two signed-in users; a has a closed position.
type fixture struct {
	srv      *apitest.Server
	a, b     *apitest.Client
	account  string
	position string
}

func setup(t *testing.T) fixture {
	t.Helper()
	cfg := apitest.Config(t)
	cfg.Encryption.Key = bytes.Repeat([]byte{7}, 32)
	srv := apitest.Start(t, cfg, functions.All)
	f := fixture{srv: srv, a: srv.Client(t), b: srv.Client(t)}
	f.a.Register("a@example.com", "password1")
	f.b.Register("b@example.com", "password1")
	f.account = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts",
		map[string]any{"name": "Main", "currency": "USD", "startingBalance": "10000"}), 201), "account")["id"].(string)
	f.position = f.trade(t, "AAPL", "110")
	return f
}

// trade is a closed long position of 10 at 100, out at exit.
func (f fixture) trade(t *testing.T, symbol, exit string) string {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/positions", map[string]any{
		"accountId": f.account, "symbol": symbol, "assetType": "stock", "side": "long", "stopLoss": "95",
		"fills": []any{
			map[string]any{"type": "entry", "price": "100", "quantity": "10", "filledAt": "2024-03-01T14:00:00Z"},
			map[string]any{"type": "exit", "price": exit, "quantity": "10", "filledAt": "2024-03-01T15:00:00Z"},
		},
	}), 201), "position")["id"].(string)
}

// book creates a playbook of c and returns its id and its criteria's.
func book(t *testing.T, c *apitest.Client, name string, criteria ...string) (string, []string) {
	t.Helper()
	list := []any{}
	for _, text := range criteria {
		list = append(list, map[string]any{"text": text})
	}
	b := apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/playbooks", map[string]any{"name": name, "criteria": list}), 201), "playbook")
	return b["id"].(string), criterionIDs(b)
}

func criterionIDs(b map[string]any) []string {
	var ids []string
	for _, c := range b["criteria"].([]any) {
		ids = append(ids, c.(map[string]any)["id"].(string))
	}
	return ids
}

func detailFields(t *testing.T, r apitest.Response) []string {
	t.Helper()
	e := apitest.Object(t, r, "error")
	ds, _ := e["details"].([]any)
	var out []string
	for _, d := range ds {
		out = append(out, d.(map[string]any)["field"].(string))
	}
	return out
}

// following is what the position follows: its playbook id ("" for none)
// and its ticked criteria.
func following(t *testing.T, c *apitest.Client, position string) (string, []string) {
	t.Helper()
	r := apitest.Must(t, c.Do("GET", "/api/positions/"+position+"/playbook", nil), 200)
	book, _ := r.JSON["playbookId"].(string)
	ids := []string{}
	for _, id := range r.JSON["criterionIds"].([]any) {
		ids = append(ids, id.(string))
	}
	return book, ids
}

func TestPlaybookCRUD(t *testing.T) {
	f := setup(t)
	c := f.a
	r := apitest.Must(t, c.Do("POST", "/api/playbooks", map[string]any{"name": "  Opening drive ", "description": "first 30 minutes",
		"criteria": []any{map[string]any{"text": " Gap over 2% "}, map[string]any{"text": "Volume"}}}), 201)
	b := apitest.Object(t, r, "playbook")
	id := b["id"].(string)
	crits := criterionIDs(b)
	if b["name"] != "Opening drive" || b["description"] != "first 30 minutes" || b["archived"] != false || len(crits) != 2 ||
		b["criteria"].([]any)[0].(map[string]any)["text"] != "Gap over 2%" {
		t.Fatalf("created %v", b)
	}
	t.Run("DescriptionSealedAtRest", func(t *testing.T) {
		var stored string
		if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT description FROM playbooks WHERE id = $1`, id).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(stored, "tj1:") || strings.Contains(stored, "minutes") {
			t.Fatalf("stored in the clear: %q", stored)
		}
	})
	t.Run("NameTakenRegardlessOfCase", func(t *testing.T) {
		r := c.Do("POST", "/api/playbooks", map[string]any{"name": "OPENING DRIVE"})
		if r.Status != 409 || r.ErrorCode() != "CONFLICT" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		other, _ := book(t, c, "Fade")
		r = c.Do("PATCH", "/api/playbooks/"+other, map[string]any{"name": "opening Drive"})
		if r.Status != 409 || r.ErrorCode() != "CONFLICT" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		// Another user may use the name.
		book(t, f.b, "Opening drive")
	})
	t.Run("ChecklistReorderedEditedAndAdded", func(t *testing.T) {
		r := apitest.Must(t, c.Do("PATCH", "/api/playbooks/"+id, map[string]any{"archived": true, "criteria": []any{
			map[string]any{"text": "Above VWAP"}, map[string]any{"id": crits[1], "text": "Volume 2x"}, map[string]any{"id": crits[0], "text": "Gap"},
		}}), 200)
		b := apitest.Object(t, r, "playbook")
		got := []string{}
		for _, x := range b["criteria"].([]any) {
			got = append(got, x.(map[string]any)["text"].(string))
		}
		ids := criterionIDs(b)
		if !slices.Equal(got, []string{"Above VWAP", "Volume 2x", "Gap"}) || ids[1] != crits[1] || ids[2] != crits[0] ||
			b["archived"] != true || b["name"] != "Opening drive" || b["description"] != "first 30 minutes" {
			t.Fatalf("updated %v", b)
		}
		crits = ids
	})
	t.Run("ListByName", func(t *testing.T) {
		items := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/playbooks", nil), 200))
		var names []string
		for _, it := range items {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		if !slices.Equal(names, []string{"Fade", "Opening drive"}) || len(items[1].(map[string]any)["criteria"].([]any)) != 3 {
			t.Fatalf("list %v", items)
		}
		got := apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/playbooks/"+id, nil), 200), "playbook")
		if !slices.Equal(criterionIDs(got), crits) || got["description"] != "first 30 minutes" {
			t.Fatalf("get %v", got)
		}
	})
	t.Run("Delete", func(t *testing.T) {
		apitest.Must(t, c.Do("DELETE", "/api/playbooks/"+id, nil), 204)
		apitest.Must(t, c.Do("GET", "/api/playbooks/"+id, nil), 404)
		apitest.Must(t, c.Do("DELETE", "/api/playbooks/"+id, nil), 404)
	})
}

func TestPlaybookValidation(t *testing.T) {
	f := setup(t)
	id, crits := book(t, f.a, "Breakout", "Trend")
	otherID, otherCrits := book(t, f.a, "Fade", "Extended")
	many := []any{}
	for i := range 31 {
		many = append(many, map[string]any{"text": fmt.Sprint("c", i)})
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		fields             []string
	}{
		{"NoName", "POST", "/api/playbooks", map[string]any{"description": "x"}, []string{"name"}},
		{"BlankName", "POST", "/api/playbooks", map[string]any{"name": "  "}, []string{"name"}},
		{"LongName", "POST", "/api/playbooks", map[string]any{"name": strings.Repeat("n", 101)}, []string{"name"}},
		{"LongDescription", "POST", "/api/playbooks", map[string]any{"name": "x", "description": strings.Repeat("d", 4001)}, []string{"description"}},
		{"TooManyCriteria", "POST", "/api/playbooks", map[string]any{"name": "x", "criteria": many}, []string{"criteria"}},
		{"BlankCriterion", "POST", "/api/playbooks", map[string]any{"name": "x", "criteria": []any{map[string]any{"text": ""}}},
			[]string{"criteria[0].text"}},
		{"NewPlaybookCriterionWithID", "POST", "/api/playbooks", map[string]any{"name": "x", "criteria": []any{
			map[string]any{"id": crits[0], "text": "t"}}}, []string{"criteria[0].id"}},
		{"CriterionOfAnotherPlaybook", "PATCH", "/api/playbooks/" + id, map[string]any{"criteria": []any{
			map[string]any{"id": crits[0], "text": "t"}, map[string]any{"id": otherCrits[0], "text": "t"}}}, []string{"criteria[1].id"}},
		{"CriterionTwice", "PATCH", "/api/playbooks/" + id, map[string]any{"criteria": []any{
			map[string]any{"id": crits[0], "text": "t"}, map[string]any{"id": crits[0], "text": "t"}}}, []string{"criteria[1].id"}},
		{"MalformedCriterionID", "PATCH", "/api/playbooks/" + id, map[string]any{"criteria": []any{
			map[string]any{"id": "x", "text": "t"}}}, []string{"criteria[0].id"}},
		{"ForeignPlaybookOnPosition", "PUT", "/api/positions/" + f.position + "/playbook",
			map[string]any{"playbookId": missingID}, []string{"playbookId"}},
		{"TickWithoutPlaybook", "PUT", "/api/positions/" + f.position + "/playbook",
			map[string]any{"playbookId": nil, "criterionIds": []string{crits[0]}}, []string{"criterionIds"}},
		{"TickOfAnotherPlaybook", "PUT", "/api/positions/" + f.position + "/playbook",
			map[string]any{"playbookId": id, "criterionIds": []string{crits[0], otherCrits[0]}}, []string{"criterionIds[1]"}},
		{"MalformedTick", "PUT", "/api/positions/" + f.position + "/playbook",
			map[string]any{"playbookId": id, "criterionIds": []string{"x"}}, []string{"criterionIds[0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.a.Do(tc.method, tc.path, tc.body)
			if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || !slices.Equal(detailFields(t, r), tc.fields) {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
	// Nothing of the refused writes stayed.
	if b, ticks := following(t, f.a, f.position); b != "" || len(ticks) != 0 {
		t.Fatalf("a refused write left %q %v", b, ticks)
	}
	got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/playbooks/"+id, nil), 200), "playbook")
	if !slices.Equal(criterionIDs(got), crits) {
		t.Fatalf("a refused checklist changed it: %v", got)
	}
	items := apitest.Items(t, apitest.Must(t, f.a.Do("GET", "/api/playbooks", nil), 200))
	if len(items) != 2 || otherID == "" {
		t.Fatalf("refused creates left playbooks: %v", items)
	}
}

func TestPositionFollowsPlaybook(t *testing.T) {
	f := setup(t)
	c := f.a
	id, crits := book(t, c, "Breakout", "Trend", "Volume", "Level")
	fade, fadeCrits := book(t, c, "Fade", "Extended")
	loser := f.trade(t, "MSFT", "95")

	r := apitest.Must(t, c.Do("PUT", "/api/positions/"+f.position+"/playbook",
		map[string]any{"playbookId": id, "criterionIds": []string{crits[2], crits[0], crits[2]}}), 200)
	if r.JSON["playbookId"] != id {
		t.Fatalf("answer %s", r.Body)
	}
	if b, ticks := following(t, c, f.position); b != id || !slices.Equal(ticks, []string{crits[0], crits[2]}) {
		t.Fatalf("follows %q %v (checklist order, repeats once)", b, ticks)
	}
	apitest.Must(t, c.Do("PUT", "/api/positions/"+loser+"/playbook", map[string]any{"playbookId": id, "criterionIds": []string{crits[1]}}), 200)

	t.Run("Statistics", func(t *testing.T) {
		block := apitest.Must(t, c.Do("GET", "/api/performance", nil), 200).JSON["byCurrency"].([]any)[0].(map[string]any)
		byBook := block["byPlaybook"].([]any)
		if len(byBook) != 1 || byBook[0].(map[string]any)["name"] != "Breakout" || byBook[0].(map[string]any)["trades"] != float64(2) ||
			byBook[0].(map[string]any)["netPnl"] != "50.0000" {
			t.Fatalf("byPlaybook %v", byBook)
		}
		byCrit := block["byCriterion"].([]any)
		if len(byCrit) != 3 {
			t.Fatalf("byCriterion %v", byCrit)
		}
		// Trend: the winner met it, the loser missed it.
		trend := byCrit[0].(map[string]any)
		met, missed := trend["met"].(map[string]any), trend["missed"].(map[string]any)
		if trend["text"] != "Trend" || met["netPnl"] != "100.0000" || met["winRate"] != "100.00" || missed["netPnl"] != "-50.0000" ||
			missed["trades"] != float64(1) {
			t.Fatalf("Trend %v", trend)
		}
		// The filter, on the list and on the statistics.
		list := apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions?playbookId="+id, nil), 200))
		if len(list) != 2 {
			t.Fatalf("list by playbook: %d", len(list))
		}
		if n := len(apitest.Items(t, apitest.Must(t, c.Do("GET", "/api/positions?playbookId="+fade, nil), 200))); n != 0 {
			t.Fatalf("list by an unfollowed playbook: %d", n)
		}
		rep := apitest.Must(t, c.Do("GET", "/api/performance?playbookId="+fade, nil), 200)
		if n := len(rep.JSON["byCurrency"].([]any)); n != 0 {
			t.Fatalf("statistics of an unfollowed playbook: %s", rep.Body)
		}
	})
	t.Run("ChecklistEditDropsTicksOfDeletedCriteria", func(t *testing.T) {
		apitest.Must(t, c.Do("PATCH", "/api/playbooks/"+id, map[string]any{"criteria": []any{
			map[string]any{"id": crits[2], "text": "Level"}, map[string]any{"text": "Catalyst"}}}), 200)
		if b, ticks := following(t, c, f.position); b != id || !slices.Equal(ticks, []string{crits[2]}) {
			t.Fatalf("follows %q %v", b, ticks)
		}
		block := apitest.Must(t, c.Do("GET", "/api/performance", nil), 200).JSON["byCurrency"].([]any)[0].(map[string]any)
		var texts []string
		for _, x := range block["byCriterion"].([]any) {
			texts = append(texts, x.(map[string]any)["text"].(string))
		}
		if !slices.Equal(texts, []string{"Level", "Catalyst"}) {
			t.Fatalf("criteria %v", texts)
		}
	})
	t.Run("ChangingPlaybookClearsTicks", func(t *testing.T) {
		apitest.Must(t, c.Do("PUT", "/api/positions/"+f.position+"/playbook", map[string]any{"playbookId": fade}), 200)
		if b, ticks := following(t, c, f.position); b != fade || len(ticks) != 0 {
			t.Fatalf("follows %q %v", b, ticks)
		}
		apitest.Must(t, c.Do("PUT", "/api/positions/"+f.position+"/playbook", map[string]any{"playbookId": fade, "criterionIds": fadeCrits}), 200)
	})
	t.Run("DeletedPlaybookLeavesNone", func(t *testing.T) {
		apitest.Must(t, c.Do("DELETE", "/api/playbooks/"+fade, nil), 204)
		if b, ticks := following(t, c, f.position); b != "" || len(ticks) != 0 {
			t.Fatalf("follows %q %v", b, ticks)
		}
		block := apitest.Must(t, c.Do("GET", "/api/performance", nil), 200).JSON["byCurrency"].([]any)[0].(map[string]any)
		byBook := block["byPlaybook"].([]any)
		if len(byBook) != 2 || byBook[0].(map[string]any)["playbookId"] != nil || byBook[0].(map[string]any)["netPnl"] != "100.0000" {
			t.Fatalf("byPlaybook %v", byBook)
		}
	})
	t.Run("Unfollow", func(t *testing.T) {
		apitest.Must(t, c.Do("PUT", "/api/positions/"+loser+"/playbook", map[string]any{"playbookId": nil}), 200)
		if b, _ := following(t, c, loser); b != "" {
			t.Fatalf("follows %q", b)
		}
	})
}

func TestPlaybooksAuthAndOwnership(t *testing.T) {
	f := setup(t)
	id, crits := book(t, f.a, "Breakout", "Trend")
	bID, _ := book(t, f.b, "Theirs")
	anon := f.srv.Client(t)
	pb := "/api/playbooks/" + id
	pp := "/api/positions/" + f.position + "/playbook"
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/playbooks"}, {"POST", "/api/playbooks"}, {"GET", pb}, {"PATCH", pb}, {"DELETE", pb}, {"GET", pp}, {"PUT", pp},
	} {
		t.Run("NoSession "+rt.method+" "+rt.path, func(t *testing.T) {
			r := anon.Do(rt.method, rt.path, map[string]any{"name": "x"})
			if r.Status != 401 || r.ErrorCode() != "UNAUTHENTICATED" {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
	apitest.Run(t, f.b, []apitest.Case{
		{Name: "GetOthers", Method: "GET", Path: pb, Status: 404},
		{Name: "PatchOthers", Method: "PATCH", Path: pb, Body: map[string]any{"name": "mine"}, Status: 404},
		{Name: "DeleteOthers", Method: "DELETE", Path: pb, Status: 404},
		{Name: "GetOthersPosition", Method: "GET", Path: pp, Status: 404},
		{Name: "SetOthersPosition", Method: "PUT", Path: pp, Body: map[string]any{"playbookId": bID}, Status: 404},
		{Name: "MalformedPlaybook", Method: "GET", Path: "/api/playbooks/x", Status: 404},
		{Name: "MalformedPatch", Method: "PATCH", Path: "/api/playbooks/x", Body: map[string]any{}, Status: 404},
		{Name: "MissingPlaybook", Method: "DELETE", Path: "/api/playbooks/" + missingID, Status: 404},
		{Name: "MalformedPosition", Method: "PUT", Path: "/api/positions/x/playbook", Body: map[string]any{}, Status: 404},
		{Name: "MissingPosition", Method: "GET", Path: "/api/positions/" + missingID + "/playbook", Status: 404},
	})
	// a may not follow b's playbook; b's list holds only b's.
	r := f.a.Do("PUT", pp, map[string]any{"playbookId": bID})
	if r.Status != 400 || !slices.Equal(detailFields(t, r), []string{"playbookId"}) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	items := apitest.Items(t, apitest.Must(t, f.b.Do("GET", "/api/playbooks", nil), 200))
	if len(items) != 1 || items[0].(map[string]any)["id"] != bID {
		t.Fatalf("b's list %v", items)
	}
	// Nothing of a's changed.
	got := apitest.Object(t, apitest.Must(t, f.a.Do("GET", pb, nil), 200), "playbook")
	if got["name"] != "Breakout" || !slices.Equal(criterionIDs(got), crits) {
		t.Fatalf("a's playbook %v", got)
	}
}
