// Package packs is the credit-pack catalogue: what a purchase costs and how
// many credits it grants. It comes only from server configuration
// (CREDIT_PACKS), never from a client, and is parsed once at start so a bad
// catalogue stops the process before it sells anything.
//
// A credit is one micro-dollar (USD 0.000001) of metered usage as it is
// charged, that is raw provider cost times PRICING_MARKUP. A pack priced in
// USD therefore grants its face value: USD 5 buys 5,000,000 credits, which
// is USD 4.17 of raw provider cost at the default markup of 1.2; the margin
// pays the payment processor's fee. The larger default packs add a small
// volume bonus.
package packs

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pack is one purchasable credit pack. It carries no secret and is safe to
// send to the web.
type Pack struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// PriceMinor is the price in the currency's minor unit (cents for USD).
	PriceMinor int64  `json:"priceMinor"`
	Currency   string `json:"currency"`
	Credits    int64  `json:"credits"`
}

// Limits of a catalogue entry.
const (
	maxPacks    = 50
	maxIDLen    = 64
	maxLabelLen = 100
	// maxPriceMinor keeps prices within what payment processors accept
	// (USD 999,999.99) and far from any overflow.
	maxPriceMinor = 99_999_999
	// maxCredits is 2^53 - 1, so a credit count survives a JavaScript
	// number on the web side.
	maxCredits = 1<<53 - 1
)

// Default is the catalogue used when CREDIT_PACKS is unset: four USD packs
// at face value (1 cent = 10,000 credits), the two larger ones with a volume
// bonus of 4% and 6%.
func Default() []Pack {
	return []Pack{
		{ID: "starter", Label: "Starter", PriceMinor: 500, Currency: "USD", Credits: 5_000_000},
		{ID: "standard", Label: "Standard", PriceMinor: 1000, Currency: "USD", Credits: 10_000_000},
		{ID: "plus", Label: "Plus", PriceMinor: 2500, Currency: "USD", Credits: 26_000_000},
		{ID: "max", Label: "Max", PriceMinor: 5000, Currency: "USD", Credits: 53_000_000},
	}
}

var (
	idShape       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	currencyShape = regexp.MustCompile(`^[A-Z]{3}$`)
)

// rawPack is one entry as written; numbers stay raw so a fraction, an
// exponent or a quoted number is reported rather than silently converted.
type rawPack struct {
	ID         *string         `json:"id"`
	Label      *string         `json:"label"`
	PriceMinor json.RawMessage `json:"priceMinor"`
	Currency   *string         `json:"currency"`
	Credits    json.RawMessage `json:"credits"`
}

// Parse reads CREDIT_PACKS: a JSON array of
// {"id","label","priceMinor","currency","credits"} objects. An unset (empty)
// value gives Default(). Every entry needs every field: an id (unique,
// letters, digits, '.', '_' or '-', at most 64 characters), a label (at most
// 100 characters), priceMinor and credits as positive whole JSON numbers,
// and a 3-letter uppercase currency code. The error names CREDIT_PACKS and
// the offending entry, and is meant to stop the process at start.
func Parse(raw string) ([]Pack, error) {
	if strings.TrimSpace(raw) == "" {
		return Default(), nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	var entries []rawPack
	if err := dec.Decode(&entries); err != nil {
		return nil, fail("must be a JSON array of {\"id\",\"label\",\"priceMinor\",\"currency\",\"credits\"} objects: %s", jsonProblem(err))
	}
	if dec.More() {
		return nil, fail("must hold a single JSON array")
	}
	if entries == nil {
		return nil, fail("must be a JSON array, not null")
	}
	if len(entries) == 0 {
		return nil, fail("must list at least one pack (leave it unset for the default catalogue)")
	}
	if len(entries) > maxPacks {
		return nil, fail("lists %d packs; at most %d are allowed", len(entries), maxPacks)
	}
	out := make([]Pack, 0, len(entries))
	seen := map[string]bool{}
	for i, e := range entries {
		p, err := check(e)
		if err != nil {
			return nil, fail("pack %d%s: %v", i+1, named(e.ID), err)
		}
		if seen[p.ID] {
			return nil, fail("pack %d: id %q is used twice (ids must be unique)", i+1, p.ID)
		}
		seen[p.ID] = true
		out = append(out, p)
	}
	return out, nil
}

// Find returns the pack with the given id.
func Find(catalogue []Pack, id string) (Pack, bool) {
	for _, p := range catalogue {
		if p.ID == id {
			return p, true
		}
	}
	return Pack{}, false
}

func check(e rawPack) (Pack, error) {
	var p Pack
	switch {
	case e.ID == nil:
		return p, errors.New("id is missing")
	case !idShape.MatchString(*e.ID) || len(*e.ID) > maxIDLen:
		return p, fmt.Errorf("id must be 1 to %d letters, digits, '.', '_' or '-' (starting with a letter or digit)", maxIDLen)
	case e.Label == nil || strings.TrimSpace(*e.Label) == "":
		return p, errors.New("label is missing or empty")
	case utf8.RuneCountInString(*e.Label) > maxLabelLen || !utf8.ValidString(*e.Label):
		return p, fmt.Errorf("label must be valid text of at most %d characters", maxLabelLen)
	case e.Currency == nil:
		return p, errors.New("currency is missing")
	case !currencyShape.MatchString(*e.Currency):
		return p, fmt.Errorf("currency must be a 3-letter uppercase code such as USD, got %q", *e.Currency)
	}
	price, err := positive("priceMinor", e.PriceMinor, maxPriceMinor)
	if err != nil {
		return p, err
	}
	credits, err := positive("credits", e.Credits, maxCredits)
	if err != nil {
		return p, err
	}
	return Pack{ID: *e.ID, Label: strings.TrimSpace(*e.Label), PriceMinor: price, Currency: *e.Currency, Credits: credits}, nil
}

// positive reads a whole JSON number in 1..hi, refusing fractions,
// exponents and quoted numbers ("5.0", 5e3, "500") rather than guessing.
func positive(field string, raw json.RawMessage, hi int64) (int64, error) {
	s := string(raw)
	if s == "" || s == "null" {
		return 0, fmt.Errorf("%s is missing", field)
	}
	if !isDigits(s) {
		if len(s) > 32 {
			s = s[:32] + "..."
		}
		return 0, fmt.Errorf("%s must be a positive whole JSON number (no quotes, fraction, sign or exponent), got %s", field, s)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil || v > hi:
		return 0, fmt.Errorf("%s must be at most %d, got %s", field, hi, s)
	case v < 1:
		return 0, fmt.Errorf("%s must be a positive whole number, got %s", field, s)
	}
	return v, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func named(id *string) string {
	if id == nil || *id == "" || len(*id) > maxIDLen {
		return ""
	}
	return fmt.Sprintf(" (%q)", *id)
}

// jsonProblem describes a decoding error without Go type names.
func jsonProblem(err error) string {
	var (
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("not valid JSON at byte %d", syntax.Offset)
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Sprintf("field %s must be a string", lastField(typeErr.Field))
	case errors.As(err, &typeErr):
		return "the value is not an array of objects"
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return "unknown field " + name
	}
	return "not valid JSON"
}

func lastField(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

func fail(format string, args ...any) error {
	return fmt.Errorf("CREDIT_PACKS "+format, args...)
}
