package functions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"tradejournal/api"
	"tradejournal/functions"
	"tradejournal/functions/backup"
	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
)

// These tests hold api/openapi.yaml and the router (functions.All) to each
// other, as ARCHITECTURE.md requires: no undocumented route, no documented
// route missing, and the document's own consistency (operation ids, success
// responses, security, $refs, error codes).

// route is one (METHOD, path) pair, the path in OpenAPI form
// ("/api/positions/{positionId}").
type route struct{ Method, Path string }

func (r route) String() string { return r.Method + " " + r.Path }

// operation is one documented operation.
type operation struct {
	route
	Op   map[string]any // the Operation Object
	Item map[string]any // its Path Item Object
}

// httpMethods are the Path Item fields that hold operations.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// pathItemFields are the other fields a Path Item may have.
var pathItemFields = []string{"$ref", "summary", "description", "servers", "parameters"}

// loadDocument parses api.Document. yaml.v3 refuses duplicate keys, so a path
// or method written twice fails here.
func loadDocument(t *testing.T) map[string]any {
	t.Helper()
	var raw any
	if err := yaml.Unmarshal(api.Document, &raw); err != nil {
		t.Fatalf("api/openapi.yaml is not valid YAML: %v", err)
	}
	doc, ok := normalize(raw).(map[string]any)
	if !ok {
		t.Fatalf("api/openapi.yaml: top level is %T, want a mapping", raw)
	}
	return doc
}

// normalize turns every mapping into map[string]any, whatever its key type
// (an unquoted 200 response key decodes as an int).
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalize(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = normalize(e)
		}
		return v
	}
	return v
}

// mapAt walks keys from v; it returns nil if any step is missing or not a mapping.
func mapAt(v any, keys ...string) map[string]any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

// operations lists every documented operation, and every problem with the
// shape of paths.
func operations(t *testing.T, doc map[string]any) []operation {
	t.Helper()
	paths := mapAt(doc, "paths")
	if len(paths) == 0 {
		t.Fatal("api/openapi.yaml has no paths")
	}
	var ops []operation
	for _, path := range sortedKeys(paths) {
		item := mapAt(paths, path)
		if item == nil {
			t.Errorf("paths[%q] is not a Path Item mapping", path)
			continue
		}
		if !strings.HasPrefix(path, "/") || strings.Contains(path, ":") {
			t.Errorf("path %q must start with / and use the {param} form, not :param", path)
		}
		for _, key := range sortedKeys(item) {
			switch {
			case slices.Contains(httpMethods, key):
				op := mapAt(item, key)
				if op == nil {
					t.Errorf("%s %s is not an Operation mapping", strings.ToUpper(key), path)
					continue
				}
				ops = append(ops, operation{route: route{strings.ToUpper(key), path}, Op: op, Item: item})
			case slices.Contains(pathItemFields, key), strings.HasPrefix(key, "x-"):
			default:
				t.Errorf("paths[%q] has unknown field %q (methods are lowercase)", path, key)
			}
		}
	}
	return ops
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// testApp builds the App the hosts build, on a database URL nothing listens
// on: app.New does not connect, and the route tables need no database.
func testApp(t *testing.T) *app.App {
	t.Helper()
	cfg, err := config.LoadFrom(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("default config: %v", err)
	}
	cfg.DB.URL = "postgres://x@127.0.0.1:1/x"
	a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler), app.SystemClock)
	if err != nil {
		t.Fatalf("app.New: %v", err)
	}
	t.Cleanup(a.Close)
	return a
}

var wildcard = regexp.MustCompile(`\{([^{}]*)\}`)

// patternRoute turns a ServeMux pattern "[METHOD ][HOST]/path/{x...}" into
// the documented form: method and "/path/{x}" ({$} dropped).
func patternRoute(pattern string) (route, error) {
	method, rest, found := strings.Cut(pattern, " ")
	if !found || method == "" {
		return route{}, errors.New("has no method: every route must name one, or the document cannot describe it")
	}
	rest = strings.TrimLeft(rest, " \t")
	if i := strings.IndexByte(rest, '/'); i > 0 {
		rest = rest[i:] // a host-qualified pattern: the document has no hosts
	}
	path := wildcard.ReplaceAllStringFunc(rest, func(w string) string {
		name := strings.TrimSuffix(w[1:len(w)-1], "...")
		if name == "$" {
			return ""
		}
		return "{" + name + "}"
	})
	return route{Method: method, Path: path}, nil
}

// registered returns every route of functions.All, keyed by its documented
// form, with the pattern it came from.
func registered(t *testing.T, a *app.App) map[route]string {
	t.Helper()
	routes := map[route]string{}
	for _, g := range functions.All(a) {
		for _, rt := range g.Routes {
			r, err := patternRoute(rt.Pattern)
			if err != nil {
				t.Errorf("group %s: route %q %v", g.Name, rt.Pattern, err)
				continue
			}
			if prev, dup := routes[r]; dup {
				t.Errorf("group %s: route %q is registered twice (also as %q)", g.Name, rt.Pattern, prev)
			}
			routes[r] = rt.Pattern
		}
	}
	if len(routes) == 0 {
		t.Fatal("functions.All registers no routes")
	}
	return routes
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc := loadDocument(t)
	documented := map[route]bool{}
	for _, op := range operations(t, doc) {
		documented[op.route] = true
	}
	routes := registered(t, testApp(t))

	var undocumented, missing []string
	for r, pattern := range routes {
		if !documented[r] {
			undocumented = append(undocumented, fmt.Sprintf("%s  (pattern %q)", r, pattern))
		}
	}
	for r := range documented {
		if _, ok := routes[r]; !ok {
			missing = append(missing, r.String())
		}
	}
	slices.Sort(undocumented)
	slices.Sort(missing)
	var msg strings.Builder
	if len(undocumented) > 0 {
		fmt.Fprintf(&msg, "\n%d route(s) registered by functions.All but not described in api/openapi.yaml (document them):\n    %s",
			len(undocumented), strings.Join(undocumented, "\n    "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&msg, "\n%d route(s) described in api/openapi.yaml but not registered by functions.All:\n    %s\n"+
			"  Either the route's group is not in functions.All yet (a route documented before its handler lands fails here until it is registered),\n"+
			"  or the document describes a route that no longer exists (remove it).",
			len(missing), strings.Join(missing, "\n    "))
	}
	if msg.Len() > 0 {
		t.Errorf("api/openapi.yaml and the router disagree:%s", msg.String())
	}
}

func TestOpenAPIDocumentShape(t *testing.T) {
	doc := loadDocument(t)
	if v, _ := doc["openapi"].(string); v != "3.1.0" {
		t.Errorf("openapi = %v, want \"3.1.0\" (a quoted or plain string)", doc["openapi"])
	}
	if v, _ := mapAt(doc, "info")["version"].(string); !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("info.version = %v, want the service version such as \"0.14.0\"", mapAt(doc, "info")["version"])
	}
	if title, _ := mapAt(doc, "info")["title"].(string); title == "" {
		t.Error("info.title is required")
	}

	ids := map[string]route{}
	for _, op := range operations(t, doc) {
		id, _ := op.Op["operationId"].(string)
		switch prev, dup := ids[id]; {
		case id == "":
			t.Errorf("%s has no operationId", op.route)
		case dup:
			t.Errorf("%s: operationId %q is already used by %s", op.route, id, prev)
		default:
			ids[id] = op.route
		}

		responses := mapAt(op.Op, "responses")
		success := false
		for _, status := range sortedKeys(responses) {
			if strings.HasPrefix(status, "2") {
				success = true
			}
			checkResponse(t, doc, op.route, status, resolve(doc, responses[status]))
		}
		if !success {
			t.Errorf("%s documents no 2xx response", op.route)
		}
		if requiresSession(t, doc, op) && responses["401"] == nil {
			t.Errorf("%s requires the session cookie but documents no 401 response", op.route)
		}
		checkPathParameters(t, doc, op)
	}
}

// checkResponse holds an error response to the one error body, and a 429 to
// its Retry-After header.
func checkResponse(t *testing.T, doc map[string]any, r route, status string, resp map[string]any) {
	t.Helper()
	if resp == nil {
		t.Errorf("%s response %s is not a Response mapping (or its $ref does not resolve)", r, status)
		return
	}
	if desc, _ := resp["description"].(string); desc == "" {
		t.Errorf("%s response %s has no description", r, status)
	}
	if status[0] != '4' && status[0] != '5' {
		return
	}
	schema := mapAt(resp, "content", "application/json", "schema")
	if ref, _ := schema["$ref"].(string); ref != "#/components/schemas/Error" {
		t.Errorf("%s response %s: application/json schema must be $ref #/components/schemas/Error, got %v", r, status, schema)
	}
	if status == "429" && resolve(doc, mapAt(resp, "headers")["Retry-After"]) == nil {
		t.Errorf("%s response 429 does not document the Retry-After header", r)
	}
}

// checkPathParameters requires a required path parameter for every {name}
// of the path, and nothing else in: path.
func checkPathParameters(t *testing.T, doc map[string]any, op operation) {
	t.Helper()
	declared := map[string]bool{}
	for _, list := range []any{op.Item["parameters"], op.Op["parameters"]} {
		params, _ := list.([]any)
		for _, p := range params {
			param := resolve(doc, p)
			if param["in"] != "path" {
				continue
			}
			name, _ := param["name"].(string)
			declared[name] = true
			if param["required"] != true {
				t.Errorf("%s: path parameter %q must be required: true", op.route, name)
			}
		}
	}
	for _, m := range wildcard.FindAllStringSubmatch(op.Path, -1) {
		if !declared[m[1]] {
			t.Errorf("%s: path parameter {%s} is not declared in parameters", op.route, m[1])
		}
		delete(declared, m[1])
	}
	for name := range declared {
		t.Errorf("%s: declares path parameter %q that the path does not have", op.route, name)
	}
}

// resolve follows a $ref (local JSON pointers only), or returns v itself.
func resolve(doc map[string]any, v any) map[string]any {
	for range 10 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		if v, ok = pointer(doc, ref); !ok {
			return nil
		}
	}
	return nil
}

// pointer resolves a local reference "#/a/b~1c" in doc.
func pointer(doc map[string]any, ref string) (any, bool) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	var v any = doc
	for tok := range strings.SplitSeq(rest, "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestOpenAPIRefsResolve(t *testing.T) {
	doc := loadDocument(t)
	count := 0
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"]; ok {
				count++
				s, _ := ref.(string)
				switch target, ok := pointer(doc, s); {
				case !strings.HasPrefix(s, "#/components/"):
					t.Errorf("%s: $ref %v must point into #/components/", where, ref)
				case !ok || target == nil:
					t.Errorf("%s: $ref %q does not resolve to a defined component", where, s)
				}
			}
			for _, k := range sortedKeys(v) {
				walk(where+"/"+k, v[k])
			}
		case []any:
			for i, e := range v {
				walk(where+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("#", doc)
	if count == 0 {
		t.Error("api/openapi.yaml has no $ref at all: the walk is broken")
	}
}

// cookieScheme returns the name of the security scheme that is the session
// cookie (auth.CookieName, apiKey in cookie).
func cookieScheme(t *testing.T, doc map[string]any) string {
	t.Helper()
	schemes := mapAt(doc, "components", "securitySchemes")
	for _, name := range sortedKeys(schemes) {
		s := mapAt(schemes, name)
		if s["type"] == "apiKey" && s["in"] == "cookie" && s["name"] == auth.CookieName {
			return name
		}
	}
	t.Fatalf("components.securitySchemes has no apiKey scheme in cookie %q", auth.CookieName)
	return ""
}

// requiresSession reports whether op's effective security (its own, else
// the document's) demands the session cookie in every alternative. An empty
// list or an empty alternative ({}) means public.
func requiresSession(t *testing.T, doc map[string]any, op operation) bool {
	t.Helper()
	security, declared := op.Op["security"]
	if !declared {
		security = doc["security"]
	}
	alternatives, _ := security.([]any)
	if len(alternatives) == 0 {
		return false
	}
	name := cookieScheme(t, doc)
	for _, alt := range alternatives {
		_, cookie := mapAt(alt)[name]
		_, token := mapAt(alt)[tokenScheme]
		if !cookie && !token {
			return false
		}
	}
	return true
}

// tokenScheme is the security scheme of personal API tokens.
const tokenScheme = "apiToken"

// TestOpenAPITokenRoutes holds the document to auth.TokenRoutes, the one
// table of routes an API token may call: the apiToken alternative appears on
// exactly those operations, and every entry of the table is a route.
func TestOpenAPITokenRoutes(t *testing.T) {
	doc := loadDocument(t)
	if s := mapAt(doc, "components", "securitySchemes", tokenScheme); s["type"] != "http" || s["scheme"] != "bearer" {
		t.Fatalf("components.securitySchemes.%s = %v, want an http bearer scheme", tokenScheme, s)
	}
	seen := map[string]bool{}
	for _, op := range operations(t, doc) {
		pattern := op.route.Method + " " + op.route.Path
		alternatives, _ := op.Op["security"].([]any)
		declared := false
		for _, alt := range alternatives {
			if _, ok := mapAt(alt)[tokenScheme]; ok {
				declared = true
			}
		}
		_, listed := auth.TokenRoutes[pattern]
		seen[pattern] = true
		if declared != listed {
			t.Errorf("%s: apiToken security declared %v, in auth.TokenRoutes %v", pattern, declared, listed)
		}
	}
	for pattern := range auth.TokenRoutes {
		if !seen[pattern] {
			t.Errorf("auth.TokenRoutes lists %q, which is no documented route", pattern)
		}
	}
}

// TestOpenAPISecurityMatchesRouter asks the router itself which routes need
// a session: a request without a cookie gets 401 UNAUTHENTICATED from a
// protected route before any database work, and something else from a
// public one (POST /api/auth/register, login, logout and GET /api/health
// today). The document must declare the cookie requirement on exactly the
// protected ones.
func TestOpenAPISecurityMatchesRouter(t *testing.T) {
	doc := loadDocument(t)
	a := testApp(t)
	mux := httpx.Mux(functions.All(a), nil)
	documented := map[route]operation{}
	for _, op := range operations(t, doc) {
		documented[op.route] = op
	}

	for r := range registered(t, a) {
		op, ok := documented[r]
		if !ok {
			continue // TestOpenAPIDocumentsEveryRoute reports it
		}
		path := wildcard.ReplaceAllString(r.Path, "00000000-0000-0000-0000-000000000000")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req := httptest.NewRequestWithContext(ctx, r.Method, path, nil)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		cancel()

		var body struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		protected := rec.Code == http.StatusUnauthorized && body.Error.Code == string(apperr.Unauthenticated)
		switch declared := requiresSession(t, doc, op); {
		case protected && !declared:
			t.Errorf("%s answers 401 UNAUTHENTICATED without a session, but the document does not declare the %s security requirement", r, cookieScheme(t, doc))
		case !protected && declared:
			answer := strconv.Itoa(rec.Code)
			if body.Error.Code != "" {
				answer += " " + body.Error.Code
			}
			t.Errorf("%s is public (without a session it answered %s), but the document declares the %s security requirement; use security: []",
				r, answer, cookieScheme(t, doc))
		}
	}
}

// TestOpenAPIErrorCodes holds the Error schema's code enum and its
// x-error-table (the document's error table: each code's status and when it
// is sent) to the codes a response body can carry: every apperr code as
// httpx writes it (404s and gateway errors carry none), plus the 500's
// INTERNAL. A code added to shared/apperr fails here until documented.
func TestOpenAPIErrorCodes(t *testing.T) {
	doc := loadDocument(t)
	enum, _ := mapAt(doc, "components", "schemas", "Error", "properties", "error", "properties", "code")["enum"].([]any)
	documented := map[string]bool{}
	for _, c := range enum {
		documented[fmt.Sprint(c)] = true
	}

	codes := apperrCodes(t)
	errs := make([]error, 0, len(codes)+1)
	for _, c := range codes {
		errs = append(errs, &apperr.Error{Code: c, Message: "m"})
	}
	errs = append(errs, errors.New("an internal failure"))

	prev := slog.Default()
	slog.SetDefault(slog.New(slog.DiscardHandler)) // httpx logs the internal failure
	t.Cleanup(func() { slog.SetDefault(prev) })
	inBodies := map[string]bool{}
	table := mapAt(doc, "components", "schemas", "Error", "properties", "error", "properties", "code", "x-error-table")
	for _, err := range errs {
		rec := httptest.NewRecorder()
		httpx.Error(rec, httptest.NewRequest(http.MethodGet, "/", nil), err)
		var body struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if jerr := json.Unmarshal(rec.Body.Bytes(), &body); jerr != nil {
			t.Fatalf("httpx.Error(%v) wrote %q: %v", err, rec.Body.String(), jerr)
		}
		if body.Error.Code != "" {
			inBodies[body.Error.Code] = true
			row := mapAt(table, body.Error.Code)
			if status, _ := row["status"].(int); status != rec.Code {
				t.Errorf("x-error-table: %s is sent with status %d, the table says %v", body.Error.Code, rec.Code, row["status"])
			}
			if when, _ := row["when"].(string); when == "" {
				t.Errorf("x-error-table: %s has no `when`", body.Error.Code)
			}
		}
	}
	for _, c := range sortedKeys(table) {
		if !inBodies[c] {
			t.Errorf("x-error-table lists %s, which no response body carries", c)
		}
	}

	for _, c := range sortedKeys(inBodies) {
		if !documented[c] {
			t.Errorf("error code %s can appear in a response body but is not in the Error schema's code enum", c)
		}
	}
	for _, c := range sortedKeys(documented) {
		if !inBodies[c] {
			t.Errorf("the Error schema's code enum lists %s, which no response body carries (not an apperr code, or written without a code)", c)
		}
	}
}

// apperrCodes reads every constant of type apperr.Code from the package's
// source, so a new code cannot go undocumented.
func apperrCodes(t *testing.T) []apperr.Code {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "shared", "apperr", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("find shared/apperr sources: %v", err)
	}
	fset := token.NewFileSet()
	var codes []apperr.Code
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				if typ, ok := vs.Type.(*ast.Ident); !ok || typ.Name != "Code" {
					continue
				}
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("%s: apperr.Code constant is not a string literal", fset.Position(v.Pos()))
					}
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatalf("%s: %v", fset.Position(v.Pos()), err)
					}
					codes = append(codes, apperr.Code(s))
				}
			}
		}
	}
	if len(codes) == 0 {
		t.Fatal("found no apperr.Code constants: the source walk is broken")
	}
	return codes
}

// TestOpenAPIBackupDocumented holds the backup routes' descriptions to the
// archive's entries (every Entry constant of shared/backup named in both)
// and the restore's answer to the Go struct it is encoded from.
func TestOpenAPIBackupDocumented(t *testing.T) {
	doc := loadDocument(t)
	entries := entryNames(t)
	for _, path := range []string{"/api/backup/archive", "/api/backup/restore"} {
		item := mapAt(doc, "paths", path)
		var desc string
		for _, m := range []string{"get", "post"} {
			if d, ok := mapAt(item, m)["description"].(string); ok {
				desc += d
			}
		}
		desc = strings.Join(strings.Fields(desc), " ")
		for _, e := range entries {
			if !strings.Contains(desc, "`"+e+"`") {
				t.Errorf("%s: the description does not name the archive entry `%s`", path, e)
			}
		}
	}

	restored := mapAt(doc, "components", "schemas", "RestoredEnvelope", "properties", "restored")
	documented := sortedKeys(mapAt(restored, "properties"))
	var required []string
	for _, r := range restored["required"].([]any) {
		required = append(required, fmt.Sprint(r))
	}
	slices.Sort(required)
	var fields []string
	typ := reflect.TypeFor[backup.Restored]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		fields = append(fields, name)
	}
	slices.Sort(fields)
	if !slices.Equal(documented, fields) || !slices.Equal(required, fields) {
		t.Errorf("RestoredEnvelope.restored documents %v (required %v); the answer carries %v", documented, required, fields)
	}
}

// entryNames reads the file names of shared/backup's Entry constants.
func entryNames(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "shared", "backup", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("find shared/backup sources: %v", err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Entry") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						names = append(names, v)
					}
				}
			}
		}
	}
	if len(names) < 9 {
		t.Fatalf("found %d Entry constants in shared/backup: the source walk is broken", len(names))
	}
	return names
}
