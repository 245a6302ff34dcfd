package csvimport_test

import (
	"testing"

	"tradejournal/shared/apitest"
)

// TestSavedMappings: a mapping saved under a name lists back as given, is
// replaced when saved under the same name, is checked as a preview checks
// it, is the user's own, and deletes.
func TestSavedMappings(t *testing.T) {
	f := setup(t, nil)
	mapping := map[string]any{
		"columns":          map[string]any{"date": "Filled At", "symbol": "Contract", "side": "Side", "quantity": 4, "price": "Price", "status": "Status"},
		"filters":          []any{map[string]any{"column": "Kind", "keep": []any{"Trade"}}},
		"sides":            map[string]any{"Purchase": "buy", "Sale": "sell"},
		"defaultAssetType": "future",
		"multiplier":       "10",
	}
	r := apitest.Must(t, f.a.Do("POST", "/api/csv-import/mappings", map[string]any{"name": "My futures broker", "mapping": mapping, "dateFormat": "us"}), 201)
	saved := apitest.Object(t, r, "mapping")
	id := saved["id"].(string)
	if saved["name"] != "My futures broker" || saved["dateFormat"] != "us" || saved["mapping"].(map[string]any)["columns"].(map[string]any)["quantity"] != 4.0 ||
		saved["mapping"].(map[string]any)["multiplier"] != "10" {
		t.Fatalf("%s", r.Body)
	}
	// The same name, other case: replaced, same id.
	r = apitest.Must(t, f.a.Do("POST", "/api/csv-import/mappings", map[string]any{"name": "my futures broker", "mapping": mapping}), 201)
	if apitest.Object(t, r, "mapping")["id"] != id {
		t.Fatalf("%s", r.Body)
	}
	list := apitest.Must(t, f.a.Do("GET", "/api/csv-import/mappings", nil), 200).JSON["items"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["name"] != "my futures broker" {
		t.Fatalf("list %v", list)
	}
	// Checked as a preview checks it.
	for field, body := range map[string]map[string]any{
		"name":                     {"mapping": mapping},
		"mapping":                  {"name": "x"},
		"mapping.multiplier":       {"name": "x", "mapping": map[string]any{"columns": mapping["columns"], "multiplier": "5"}},
		"mapping.columns.quantity": {"name": "x", "mapping": map[string]any{"columns": map[string]any{"date": "d", "symbol": "s", "price": "p"}}},
	} {
		r := f.a.Do("POST", "/api/csv-import/mappings", body)
		if r.Status != 400 || !hasField(r, field) {
			t.Errorf("%s: %d %s", field, r.Status, r.Body)
		}
	}
	// Another user sees none and cannot delete it.
	if r := f.b.Do("DELETE", "/api/csv-import/mappings/"+id, nil); r.Status != 404 {
		t.Fatalf("other user's delete: %d", r.Status)
	}
	if l := apitest.Must(t, f.b.Do("GET", "/api/csv-import/mappings", nil), 200).JSON["items"].([]any); len(l) != 0 {
		t.Fatalf("other user's list %v", l)
	}
	apitest.Must(t, f.a.Do("DELETE", "/api/csv-import/mappings/"+id, nil), 204)
	apitest.Must(t, f.a.Do("DELETE", "/api/csv-import/mappings/"+id, nil), 404)
	apitest.Must(t, f.a.Do("DELETE", "/api/csv-import/mappings/not-a-uuid", nil), 404)
}
