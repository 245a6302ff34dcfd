package packs_test

import (
	"reflect"
	"strings"
	"testing"

	"tradejournal/shared/packs"
)

func TestParseUnsetIsDefault(t *testing.T) {
	for _, raw := range []string{"", "  \n"} {
		got, err := packs.Parse(raw)
		if err != nil {
			t.Fatalf("Parse(%q): %v", raw, err)
		}
		if !reflect.DeepEqual(got, packs.Default()) {
			t.Fatalf("Parse(%q) = %v, want the default catalogue", raw, got)
		}
	}
}

func TestDefaultIsValid(t *testing.T) {
	d := packs.Default()
	if len(d) != 4 {
		t.Fatalf("default has %d packs, want 4", len(d))
	}
	seen := map[string]bool{}
	for _, p := range d {
		if seen[p.ID] || p.ID == "" || p.Label == "" || p.Currency != "USD" || p.PriceMinor <= 0 || p.Credits <= 0 {
			t.Fatalf("bad default pack %+v", p)
		}
		seen[p.ID] = true
		// Face value at least: 1 cent buys 10,000 credits (micro-dollars).
		if p.Credits < p.PriceMinor*10_000 {
			t.Fatalf("pack %s grants less than face value", p.ID)
		}
	}
}

func TestParse(t *testing.T) {
	got, err := packs.Parse(`[{"id":"small","label":" Small ","priceMinor":500,"currency":"EUR","credits":4000000},
		{"id":"big.2","label":"Big","priceMinor":99999999,"currency":"USD","credits":9007199254740991}]`)
	if err != nil {
		t.Fatal(err)
	}
	want := []packs.Pack{
		{ID: "small", Label: "Small", PriceMinor: 500, Currency: "EUR", Credits: 4000000},
		{ID: "big.2", Label: "Big", PriceMinor: 99999999, Currency: "USD", Credits: 9007199254740991},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if p, ok := packs.Find(got, "big.2"); !ok || p.Credits != 9007199254740991 {
		t.Fatalf("Find: %+v %v", p, ok)
	}
	if _, ok := packs.Find(got, "nope"); ok {
		t.Fatal("Find found an unknown id")
	}
}

func TestParseErrors(t *testing.T) {
	const ok = `"label":"L","priceMinor":500,"currency":"USD","credits":100`
	for _, tc := range []struct{ name, raw, want string }{
		{"NotJSON", `[{"id":`, "not valid JSON"},
		{"Object", `{"id":"a"}`, "not an array"},
		{"Null", `null`, "not null"},
		{"Empty", `[]`, "at least one pack"},
		{"Trailing", `[{"id":"a",` + ok + `}] []`, "single JSON array"},
		{"UnknownField", `[{"id":"a",` + ok + `,"bonus":1}]`, `unknown field "bonus"`},
		{"IDMissing", `[{` + ok + `}]`, "pack 1: id is missing"},
		{"IDEmpty", `[{"id":"",` + ok + `}]`, "pack 1: id must be"},
		{"IDSpaces", `[{"id":"a b",` + ok + `}]`, "id must be"},
		{"IDTooLong", `[{"id":"` + strings.Repeat("a", 65) + `",` + ok + `}]`, "id must be"},
		{"IDNumber", `[{"id":5,` + ok + `}]`, "field id must be a string"},
		{"DuplicateID", `[{"id":"a",` + ok + `},{"id":"a",` + ok + `}]`, `pack 2: id "a" is used twice`},
		{"LabelMissing", `[{"id":"a","priceMinor":500,"currency":"USD","credits":100}]`, `pack 1 ("a"): label is missing`},
		{"LabelBlank", `[{"id":"a","label":"  ","priceMinor":500,"currency":"USD","credits":100}]`, "label is missing or empty"},
		{"CurrencyLower", `[{"id":"a","label":"L","priceMinor":500,"currency":"usd","credits":100}]`, "3-letter uppercase"},
		{"CurrencyLong", `[{"id":"a","label":"L","priceMinor":500,"currency":"USDT","credits":100}]`, "3-letter uppercase"},
		{"CurrencyMissing", `[{"id":"a","label":"L","priceMinor":500,"credits":100}]`, "currency is missing"},
		{"PriceMissing", `[{"id":"a","label":"L","currency":"USD","credits":100}]`, "priceMinor is missing"},
		{"PriceNull", `[{"id":"a","label":"L","priceMinor":null,"currency":"USD","credits":100}]`, "priceMinor is missing"},
		{"PriceZero", `[{"id":"a","label":"L","priceMinor":0,"currency":"USD","credits":100}]`, "priceMinor must be a positive whole number"},
		{"PriceNegative", `[{"id":"a","label":"L","priceMinor":-5,"currency":"USD","credits":100}]`, "priceMinor must be a positive whole"},
		{"PriceFraction", `[{"id":"a","label":"L","priceMinor":5.5,"currency":"USD","credits":100}]`, "priceMinor must be a positive whole"},
		{"PriceExponent", `[{"id":"a","label":"L","priceMinor":5e2,"currency":"USD","credits":100}]`, "priceMinor must be a positive whole"},
		{"PriceQuoted", `[{"id":"a","label":"L","priceMinor":"500","currency":"USD","credits":100}]`, "priceMinor must be a positive whole"},
		{"PriceHuge", `[{"id":"a","label":"L","priceMinor":100000000,"currency":"USD","credits":100}]`, "priceMinor must be at most"},
		{"CreditsOverflow", `[{"id":"a","label":"L","priceMinor":5,"currency":"USD","credits":99999999999999999999999}]`, "credits must be at most"},
		{"CreditsOverJS", `[{"id":"a","label":"L","priceMinor":5,"currency":"USD","credits":9007199254740992}]`, "credits must be at most"},
		{"CreditsZero", `[{"id":"a","label":"L","priceMinor":5,"currency":"USD","credits":0}]`, "credits must be a positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := packs.Parse(tc.raw)
			if err == nil {
				t.Fatalf("accepted: %+v", got)
			}
			if !strings.HasPrefix(err.Error(), "CREDIT_PACKS ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to name CREDIT_PACKS and contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "json:") || strings.Contains(err.Error(), "Go value") {
				t.Fatalf("error %q is not one clean line", err)
			}
		})
	}
}
