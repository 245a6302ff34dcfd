package functions_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// TestNoServerErrorOnMalformedInput sends malformed paths, queries and
// bodies to every route of api/openapi.yaml, signed in as an admin with an
// account and a position, and fails on any 5xx: a value the database
// refuses (a year 0000, a far offset, a number past a column's range) must
// be refused at the edge, or mapped to 400, never answered with a 500.
func TestNoServerErrorOnMalformedInput(t *testing.T) {
	doc := loadDocument(t)
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	c.Register("fuzz@example.com", "correct horse battery")
	if _, err := srv.App.DB.Exec(context.Background(), `UPDATE users SET is_admin = true`); err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	if r := c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD", "startingBalance": "1000"}); r.Status == 201 {
		ids["accountId"], _ = r.JSON["account"].(map[string]any)["id"].(string)
	}
	if r := c.Do("POST", "/api/positions", map[string]any{"accountId": ids["accountId"], "symbol": "AAPL", "assetType": "stock", "side": "long",
		"fills": []any{map[string]any{"type": "entry", "price": "10", "quantity": "1", "filledAt": "2024-01-02T15:00:00Z"}}}); r.Status == 201 {
		p := r.JSON["position"].(map[string]any)
		ids["positionId"], _ = p["id"].(string)
		if fills, _ := p["fills"].([]any); len(fills) > 0 {
			ids["fillId"], _ = fills[0].(map[string]any)["id"].(string)
		}
	}
	// An expense and a category of the user's own, so their routes are
	// sent malformed bodies against records that exist.
	if r := c.Do("POST", "/api/expense-categories", map[string]any{"name": "Coaching"}); r.Status == 201 {
		ids["categoryId"], _ = r.JSON["category"].(map[string]any)["id"].(string)
	}
	if r := c.Do("POST", "/api/expenses", map[string]any{"amount": "10", "startDate": "2024-01-31", "recurrence": "monthly",
		"accountId": ids["accountId"], "category": ids["categoryId"]}); r.Status == 201 {
		ids["expenseId"], _ = r.JSON["expense"].(map[string]any)["id"].(string)
	}
	if len(ids) != 5 {
		t.Fatalf("setting up: ids %v", ids)
	}

	var sent, failed int
	send := func(op operation, method, path, contentType, body string) {
		sent++
		req := c.NewRequest(method, path, body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		r := c.Send(req)
		if r.Status >= 500 && r.Status != http.StatusNotImplemented {
			failed++
			if failed <= 40 {
				t.Errorf("%s: %s %s %.200q: %d %s", op.route, method, path, body, r.Status, r.Body)
			}
		}
	}
	for _, op := range operations(t, doc) {
		if op.route == (route{"POST", "/api/auth/logout"}) {
			continue // would end the session the rest needs
		}
		params := parametersOf(doc, op)
		basePath := fillPath(op.Path, func(name string) string { return valid(ids, name) })
		if op.Method == "DELETE" {
			// Do not delete the records the other operations need.
			basePath = fillPath(op.Path, func(string) string { return "00000000-0000-4000-8000-000000000000" })
		}
		// Paths: each parameter malformed in turn.
		for _, p := range params["path"] {
			for _, v := range badPathValues {
				path := fillPath(op.Path, func(name string) string {
					if name == p {
						return v
					}
					return valid(ids, name)
				})
				send(op, op.Method, path, "", "")
			}
		}
		// Queries: each parameter malformed in turn, then from/to together.
		for _, p := range params["query"] {
			for _, v := range badQueryValues(p) {
				send(op, op.Method, basePath+"?"+url.Values{p: {v}}.Encode(), "", "")
			}
		}
		if slices.Contains(params["query"], "from") && slices.Contains(params["query"], "to") {
			for _, pair := range [][2]string{{"0001-01-01", "9999-12-31"}, {"0000-01-01", "0000-12-31"}, {"9999-12-31", "10000-01-01"}} {
				send(op, op.Method, basePath+"?"+url.Values{"from": {pair[0]}, "to": {pair[1]}}.Encode(), "", "")
			}
		}
		// Bodies: not JSON, the wrong JSON, and each property malformed in
		// an otherwise plausible body.
		schema := bodySchema(doc, op)
		if schema == nil && op.Method == "GET" {
			continue
		}
		for _, b := range []string{"", "{", "[]", "null", `"x"`, `{"x":1}`, "\x00\xff", strings.Repeat("[", 10000)} {
			send(op, op.Method, basePath, "application/json", b)
		}
		send(op, op.Method, basePath, "multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n0000-01-01\r\n--x--\r\n")
		send(op, op.Method, basePath, "text/plain", "x")
		if schema == nil {
			continue
		}
		base := sample(doc, schema, ids, "", 0)
		obj, ok := base.(map[string]any)
		if !ok {
			continue
		}
		raw, _ := json.Marshal(obj)
		send(op, op.Method, basePath, "application/json", string(raw))
		props := mapAt(resolve(doc, schema), "properties")
		for _, name := range sortedKeys(props) {
			for _, v := range badBodyValues(doc, resolve(doc, props[name]), ids) {
				mut := map[string]any{}
				for k, x := range obj {
					mut[k] = x
				}
				mut[name] = v
				raw, _ := json.Marshal(mut)
				send(op, op.Method, basePath, "application/json", string(raw))
			}
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d malformed requests got a 5xx", failed, sent)
	}
	t.Logf("%d malformed requests, none answered 5xx", sent)
}

// parametersOf lists an operation's parameter names by location, its own
// and its path item's.
func parametersOf(doc map[string]any, op operation) map[string][]string {
	out := map[string][]string{}
	for _, list := range []any{op.Item["parameters"], op.Op["parameters"]} {
		items, _ := list.([]any)
		for _, p := range items {
			p := resolve(doc, p)
			in, _ := p["in"].(string)
			name, _ := p["name"].(string)
			if !slices.Contains(out[in], name) {
				out[in] = append(out[in], name)
			}
		}
	}
	return out
}

var pathParam = regexp.MustCompile(`\{([^{}]+)\}`)

func fillPath(path string, value func(string) string) string {
	return pathParam.ReplaceAllStringFunc(path, func(m string) string { return value(m[1 : len(m)-1]) })
}

// valid is a path or body value that exists: the set-up's ids, else a
// well-formed id nobody has.
func valid(ids map[string]string, name string) string {
	if id, ok := ids[name]; ok {
		return id
	}
	switch name {
	case "symbol":
		return "AAPL"
	case "date":
		return "2024-01-02"
	}
	return "00000000-0000-4000-8000-000000000000"
}

var badPathValues = []string{"x", "00000000-0000-0000-0000-000000000000", "ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ",
	"%00", "%FF%FE", "%25", strings.Repeat("a", 300), "-1", "1e400", "0000-01-01", "%27%3B--"}

// badQueryValues are values a client can send for a query parameter:
// dates and times PostgreSQL refuses, numbers past any column, and for a
// cursor, well-formed cursors carrying such values.
func badQueryValues(name string) []string {
	v := []string{"", " ", "x", "%", "\x00", "-1", "0", "1e400", "99999999999999999999", "-99999999999999999999",
		"0000-01-01", "0001-01-01", "9999-12-31", "10000-01-01", "2024-02-30", "0000-01-01T00:00:00Z",
		"2024-01-01T00:00:00+23:59", strings.Repeat("x", 5000), "NaN", "Infinity"}
	if name != "cursor" {
		return v
	}
	const id = "00000000-0000-4000-8000-000000000000"
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	keys := func(k ...string) string { raw, _ := json.Marshal(k); return b64(string(raw)) }
	for _, at := range []string{"-99999999999999999", "99999999999999999", "-210866803200000001", "-62135596800000000",
		"-62167219200000000", "253402300800000000", "-", "0", "9223372036854775807", "-9223372036854775808"} {
		v = append(v, b64(at+"."+id))
	}
	for _, at := range []string{"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
		"2024-01-01T00:00:00+23:59", "2024-01-01T00:00:00-23:59", "yesterday", "infinity", "-infinity", "\x00"} {
		v = append(v, keys(at, id), keys(at, at, id), keys(at, at, at, id), keys("0000-01-01", id), keys("x", "0000-01-01", id))
	}
	return append(v, keys(id), keys("x", id), keys(strings.Repeat("x", 600), id), b64("[]"), b64("{}"), "!!!")
}

// bodySchema is the schema of an operation's JSON body, or nil.
func bodySchema(doc map[string]any, op operation) map[string]any {
	body := resolve(doc, op.Op["requestBody"])
	if body == nil {
		return nil
	}
	return mapAt(body, "content", "application/json", "schema")
}

// sample builds a plausible value of schema: its example or first enum
// value, else one by type and format, else by the property's name.
func sample(doc map[string]any, s any, ids map[string]string, name string, depth int) any {
	m := resolve(doc, s)
	if m == nil || depth > 6 {
		return nil
	}
	if ex, ok := m["example"]; ok {
		return ex
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"allOf", "oneOf", "anyOf"} {
		if alts, ok := m[k].([]any); ok && len(alts) > 0 {
			return sample(doc, alts[0], ids, name, depth+1)
		}
	}
	typ := m["type"]
	if list, ok := typ.([]any); ok && len(list) > 0 {
		typ = list[0]
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props := mapAt(m, "properties")
		req, _ := m["required"].([]any)
		for _, r := range req {
			p := fmt.Sprint(r)
			out[p] = sample(doc, props[p], ids, p, depth+1)
		}
		return out
	case "array":
		return []any{sample(doc, m["items"], ids, name, depth+1)}
	case "integer", "number":
		return 1
	case "boolean":
		return false
	}
	switch m["format"] {
	case "uuid":
		return valid(ids, name)
	case "date":
		return "2024-01-02"
	case "date-time":
		return "2024-01-02T15:00:00Z"
	case "email":
		return "fuzz@example.com"
	}
	switch name {
	case "currency", "baseCurrency", "quoteCurrency":
		return "USD"
	case "timezone":
		return "UTC"
	case "password":
		return "correct horse battery"
	case "email":
		return "fuzz@example.com"
	case "accountId", "positionId", "fillId", "expenseId", "categoryId":
		return valid(ids, name)
	}
	return "1"
}

// badBodyValues are malformed values for one property: the wrong types,
// values past the database's ranges, and within a nested object each of
// its properties so.
func badBodyValues(doc map[string]any, prop map[string]any, ids map[string]string) []any {
	v := []any{nil, true, -1, 0, 1e308, -1e308, json.Number("1e400"), json.Number("99999999999999999999999999999"),
		"", "\x00", strings.Repeat("x", 5000), "0000-01-01", "0001-01-01", "9999-12-31", "10000-01-01",
		"0000-01-01T00:00:00Z", "2024-01-01T00:00:00+23:59", "-0001-01-01T00:00:00Z", "99999999999999999999.99999999",
		"-99999999999999999999", "1e400", "NaN", "Infinity", []any{}, map[string]any{}}
	if items := resolve(doc, prop["items"]); items != nil && items["type"] == "object" {
		base, _ := sample(doc, items, ids, "", 0).(map[string]any)
		for _, name := range sortedKeys(mapAt(items, "properties")) {
			for _, bad := range []any{"0000-01-01", "0000-01-01T00:00:00Z", "2024-01-01T00:00:00+23:59",
				"99999999999999999999.99999999", json.Number("1e400"), "\x00", nil} {
				el := map[string]any{}
				for k, x := range base {
					el[k] = x
				}
				el[name] = bad
				v = append(v, []any{el})
			}
		}
	}
	return v
}
