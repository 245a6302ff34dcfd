package deploy_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tradejournal/deploy"
	"tradejournal/shared/jobs"
)

// These tests hold template.yaml (AWS SAM) to the router and to the
// deployment rules: one function per route group with exactly its routes,
// a build target for every function, secrets only as Secrets Manager
// references, and every variable the api reads either set or deliberately
// left out.

const serverlessFunction = "AWS::Serverless::Function"

// functionsOf returns the template's functions by logical id.
func functionsOf(t *testing.T, tpl map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for id, r := range mapAt(tpl, "Resources") {
		res, _ := r.(map[string]any)
		if res["Type"] == serverlessFunction {
			out[id] = res
		}
	}
	if len(out) == 0 {
		t.Fatal("template.yaml declares no functions")
	}
	return out
}

// lambdaDirs lists functions/<dir>/lambda/main.go.
func lambdaDirs(t *testing.T) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root(t), "functions", "*", "lambda", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, m := range matches {
		dirs = append(dirs, filepath.Base(filepath.Dir(filepath.Dir(m))))
	}
	slices.Sort(dirs)
	return dirs
}

func TestTemplateShape(t *testing.T) {
	tpl := template(t)
	if tpl["Transform"] != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform %v, want AWS::Serverless-2016-10-31", tpl["Transform"])
	}
	g := mapAt(tpl, "Globals", "Function")
	want := map[string]any{"Runtime": "provided.al2023", "Handler": "bootstrap", "CodeUri": "."}
	for k, v := range want {
		if g[k] != v {
			t.Errorf("Globals.Function.%s = %v, want %v", k, g[k], v)
		}
	}
	if a := fmt.Sprint(g["Architectures"]); a != "[arm64]" {
		t.Errorf("Globals.Function.Architectures = %v, want [arm64]", a)
	}
	for id, fn := range functionsOf(t, tpl) {
		if mapAt(fn, "Metadata")["BuildMethod"] != "makefile" {
			t.Errorf("%s: Metadata.BuildMethod must be makefile", id)
		}
		props := mapAt(fn, "Properties")
		for _, k := range []string{"Runtime", "Architectures", "Handler", "CodeUri"} {
			if v, set := props[k]; set && fmt.Sprint(v) != fmt.Sprint(g[k]) {
				t.Errorf("%s: %s %v overrides the global %v", id, k, v, g[k])
			}
		}
		if timeout, ok := props["Timeout"].(int); ok && len(mapAt(props, "Events")) > 0 && hasHTTPEvents(props) && timeout > 29 {
			t.Errorf("%s: Timeout %d; API Gateway gives up after 30 s", id, timeout)
		}
	}

	api := mapAt(tpl, "Resources", "HttpApi")
	if api["Type"] != "AWS::Serverless::HttpApi" {
		t.Fatalf("Resources.HttpApi is %v, want AWS::Serverless::HttpApi", api["Type"])
	}
	props := mapAt(api, "Properties")
	if props["Auth"] != nil {
		t.Error("HttpApi declares Auth: API Gateway authorises nothing here (the app checks its session cookie, and the payment webhook must stay open)")
	}
	if props["CorsConfiguration"] != nil {
		t.Error("HttpApi declares CorsConfiguration, which would override the application's own CORS answers")
	}
}

func hasHTTPEvents(props map[string]any) bool {
	for _, e := range mapAt(props, "Events") {
		if ev, _ := e.(map[string]any); ev["Type"] == "HttpApi" {
			return true
		}
	}
	return false
}

// TestTemplateMatchesRouter: every route of every group has exactly one
// event, on exactly that group's function, and no event names a route that
// does not exist.
func TestTemplateMatchesRouter(t *testing.T) {
	tpl := template(t)
	fns := functionsOf(t, tpl)
	groups := routeGroups(t)

	type route struct{ method, path string }
	owner := map[route]string{} // route -> the function that must carry it
	groupOf := map[string]string{}
	for _, g := range groups {
		id := deploy.LogicalID(g.Name)
		groupOf[id] = g.Name
		fn, ok := fns[id]
		if !ok {
			t.Errorf("route group %s has no function %s in template.yaml (run go run ./cmd/deploygen)", g.Name, id)
		}
		url := mapAt(fn, "Properties", "FunctionUrlConfig")
		if g.Streaming {
			// Served through its own streaming Function URL, not the HTTP API.
			if url["InvokeMode"] != "RESPONSE_STREAM" || url["AuthType"] != "NONE" {
				t.Errorf("%s streams: FunctionUrlConfig %v, want AuthType NONE and InvokeMode RESPONSE_STREAM", id, url)
			}
			if timeout, _ := mapAt(fn, "Properties")["Timeout"].(int); timeout <= 480 {
				t.Errorf("%s streams: Timeout %d must outlast the 480 s turn budget", id, timeout)
			}
			if hasHTTPEvents(mapAt(fn, "Properties")) {
				t.Errorf("%s streams: HTTP API events would buffer its answers", id)
			}
			continue
		}
		if url != nil {
			t.Errorf("%s has a Function URL but its group does not stream", id)
		}
		for _, rt := range g.Routes {
			m, p, err := deploy.APIRoute(rt.Pattern)
			if err != nil {
				t.Errorf("group %s: route %q: %v", g.Name, rt.Pattern, err)
				continue
			}
			owner[route{m, p}] = id
		}
	}

	seen := map[route][]string{}
	defaults := []string{}
	for id, fn := range fns {
		for name, e := range mapAt(fn, "Properties", "Events") {
			ev, _ := e.(map[string]any)
			if ev["Type"] != "HttpApi" {
				continue
			}
			if _, isGroup := groupOf[id]; !isGroup {
				t.Errorf("%s.%s: an HTTP event on a function that serves no route group", id, name)
			}
			p := mapAt(ev, "Properties")
			if ref := mapAt(p, "ApiId"); ref["Ref"] != "HttpApi" {
				t.Errorf("%s.%s: ApiId %v, want !Ref HttpApi", id, name, p["ApiId"])
			}
			if p["Auth"] != nil {
				t.Errorf("%s.%s: Auth %v; no route is authorised by API Gateway", id, name, p["Auth"])
			}
			method, _ := p["Method"].(string)
			path, _ := p["Path"].(string)
			if method == "" && path == "" {
				defaults = append(defaults, id)
				continue
			}
			r := route{strings.ToUpper(method), path}
			seen[r] = append(seen[r], id)
			want, exists := owner[r]
			switch {
			case !exists:
				t.Errorf("%s.%s: %s %s is not a route of any group", id, name, r.method, r.path)
			case want != id:
				t.Errorf("%s.%s: %s %s belongs to %s", id, name, r.method, r.path, want)
			}
		}
	}
	for r, id := range owner {
		switch n := len(seen[r]); {
		case n == 0:
			t.Errorf("%s %s (group %s) has no event on %s", r.method, r.path, groupOf[id], id)
		case n > 1:
			t.Errorf("%s %s has %d events: %v", r.method, r.path, n, seen[r])
		}
	}
	if want := deploy.LogicalID(deploy.DefaultRouteGroup); !slices.Equal(defaults, []string{want}) {
		t.Errorf("$default route on %v, want exactly one, on %s", defaults, want)
	}
	if webhook := (route{"POST", "/api/billing/webhook"}); owner[webhook] != "" && len(seen[webhook]) != 1 {
		t.Errorf("the payment webhook has %d events, want one open route", len(seen[webhook]))
	}
}

// TestTemplateFunctionsHaveBuildTargets: every function is a
// functions/<dir>/lambda main, every such main is deployed, and the
// Makefile has the target SAM's makefile build method calls.
func TestTemplateFunctionsHaveBuildTargets(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed")
	}
	fns := functionsOf(t, template(t))
	dirs := lambdaDirs(t)
	var deployed []string
	for id := range fns {
		dir := strings.ToLower(strings.TrimSuffix(id, "Function"))
		if !strings.HasSuffix(id, "Function") || !slices.Contains(dirs, dir) {
			t.Errorf("%s: no functions/%s/lambda/main.go (a function's logical id is its directory, capitalised, + Function)", id, dir)
			continue
		}
		deployed = append(deployed, dir)
		cmd := exec.Command("make", "--no-print-directory", "-n", "build-"+id, "ARTIFACTS_DIR=/nonexistent/artifacts")
		cmd.Dir = root(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("make build-%s (what sam build runs): %v\n%s", id, err, out)
			continue
		}
		if !strings.Contains(string(out), "/nonexistent/artifacts/bootstrap") || !strings.Contains(string(out), "lambda.norpc") {
			t.Errorf("make build-%s does not build a lambda.norpc bootstrap into ARTIFACTS_DIR:\n%s", id, out)
		}
	}
	slices.Sort(deployed)
	if !slices.Equal(deployed, dirs) {
		t.Errorf("template.yaml deploys %v; the lambda mains are %v", deployed, dirs)
	}
}

func TestTemplateEnvironment(t *testing.T) {
	tpl := template(t)
	vars := variables()
	params := mapAt(tpl, "Parameters")
	conds := mapAt(tpl, "Conditions")
	env := mapAt(tpl, "Globals", "Function", "Environment", "Variables")
	if len(env) == 0 {
		t.Fatal("Globals.Function.Environment.Variables is empty")
	}
	for id, fn := range functionsOf(t, tpl) {
		if e := mapAt(fn, "Properties", "Environment"); e != nil {
			t.Errorf("%s sets its own Environment; every function shares the global one", id)
		}
	}

	for name, val := range env {
		v, known := vars[name]
		if !known || !v.API {
			t.Errorf("%s is not a variable the api reads", name)
			continue
		}
		if why, ok := deploy.NotOnFunctionPlatform[name]; ok {
			t.Errorf("%s is set, but deploy.NotOnFunctionPlatform leaves it out: %s", name, why)
		}
		inner := val
		if c, x, ok := deploy.Conditional(val); ok {
			if _, ok := conds[c]; !ok {
				t.Errorf("%s: condition %s is not declared", name, c)
			}
			inner = x
		}
		key, isSecret := deploy.SecretKey(inner)
		param, isParam := deploy.ParamRef(inner)
		switch {
		case v.Secret && !isSecret:
			t.Errorf("%s is a secret: it must be a Secrets Manager dynamic reference ({{resolve:secretsmanager:${SecretId}:SecretString:%s}}), never a literal or a parameter; got %v", name, name, val)
		case v.Secret && key != name:
			t.Errorf("%s resolves the secret's key %s; use the variable's own name", name, key)
		case !v.Secret && isSecret:
			t.Errorf("%s is not a secret but is read from the secret", name)
		case !v.Secret && !isParam:
			t.Errorf("%s = %v: set it from a parameter", name, val)
		case isParam && params[param] == nil:
			t.Errorf("%s: parameter %s is not declared", name, param)
		}
	}
	for name, v := range vars {
		if !v.API {
			continue
		}
		_, set := env[name]
		_, out := deploy.NotOnFunctionPlatform[name]
		if !set && !out {
			t.Errorf("%s is read by the api but template.yaml neither sets it nor lists it in deploy.NotOnFunctionPlatform", name)
		}
	}
	for name := range deploy.NotOnFunctionPlatform {
		if !vars[name].API {
			t.Errorf("deploy.NotOnFunctionPlatform lists %s, which the api does not read", name)
		}
	}
	for _, name := range []string{"METRICS_ENABLED", "METRICS_PORT", "METRICS_HOST"} {
		if _, set := env[name]; set {
			t.Errorf("%s is set: there is no metrics listener on the function platform", name)
		}
	}
	if p := mapAt(params, "DbTransactionPooler"); p["Default"] != "true" {
		t.Errorf("DbTransactionPooler defaults to %v, want true (RDS Proxy)", p["Default"])
	}

	// No literal secret anywhere: parameters carry none, and no string in
	// the template looks like a credential.
	for name, p := range params {
		pm, _ := p.(map[string]any)
		if pm["NoEcho"] == true {
			t.Errorf("parameter %s is NoEcho: secrets come from the secret, not from parameters", name)
		}
	}
	credential := regexp.MustCompile(`\b(sk_live_|sk_test_|whsec_|rk_live_)|://[^:/\s]+:[^@\s$]+@|AKIA[0-9A-Z]{16}`)
	if m := credential.FindString(string(readFile(t, deploy.TemplateFile))); m != "" {
		t.Errorf("template.yaml holds what looks like a credential: %q", m)
	}
}

// TestTemplateReferences: every Ref, GetAtt, Sub variable and condition
// names something the template declares.
func TestTemplateReferences(t *testing.T) {
	tpl := template(t)
	names := map[string]bool{}
	for k := range mapAt(tpl, "Parameters") {
		names[k] = true
	}
	for k, r := range mapAt(tpl, "Resources") {
		names[k] = true
		// SAM declares a function's Function URL as the resource <id>Url.
		if rm, _ := r.(map[string]any); mapAt(rm, "Properties", "FunctionUrlConfig") != nil {
			names[k+"Url"] = true
		}
	}
	conds := mapAt(tpl, "Conditions")
	subVar := regexp.MustCompile(`\$\{([^}!]+)\}`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				switch k {
				case "Ref":
					if s, _ := e.(string); !strings.HasPrefix(s, "AWS::") && !names[s] {
						t.Errorf("%s: Ref %v names nothing declared", path, e)
					}
				case "Fn::GetAtt":
					if l, _ := e.([]any); len(l) == 0 || !names[fmt.Sprint(l[0])] {
						t.Errorf("%s: GetAtt %v names no resource", path, e)
					}
				case "Fn::Sub":
					s, _ := e.(string)
					for _, m := range subVar.FindAllStringSubmatch(s, -1) {
						base, _, _ := strings.Cut(m[1], ".")
						if !strings.HasPrefix(base, "AWS::") && !names[base] {
							t.Errorf("%s: ${%s} names nothing declared", path, m[1])
						}
					}
				case "Fn::If":
					if l, _ := e.([]any); len(l) != 3 || conds[fmt.Sprint(l[0])] == nil {
						t.Errorf("%s: Fn::If %v names no declared condition", path, e)
					}
				}
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	for _, section := range []string{"Globals", "Resources", "Outputs", "Conditions"} {
		walk(section, tpl[section])
	}
}

// TestTemplateJobs: the scheduled function's events name real jobs and,
// together, run every job; the migration function has no trigger.
func TestTemplateJobs(t *testing.T) {
	fns := functionsOf(t, template(t))
	a, err := deploy.DummyApp()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var all []string
	for _, j := range jobs.List(a, nil) {
		all = append(all, j.Name)
	}

	sched, ok := fns["ScheduledFunction"]
	if !ok {
		t.Fatal("no ScheduledFunction")
	}
	covered := map[string]bool{}
	for name, e := range mapAt(sched, "Properties", "Events") {
		ev, _ := e.(map[string]any)
		if ev["Type"] != "Schedule" {
			t.Errorf("ScheduledFunction.%s is a %v event, want Schedule", name, ev["Type"])
			continue
		}
		p := mapAt(ev, "Properties")
		input, _ := p["Input"].(string)
		var in jobs.Event
		if err := json.Unmarshal([]byte(input), &in); err != nil {
			t.Errorf("ScheduledFunction.%s: Input %q: %v", name, input, err)
			continue
		}
		if len(in.Jobs) == 0 {
			in.Jobs = all
		}
		for _, j := range in.Jobs {
			if !slices.Contains(all, j) {
				t.Errorf("ScheduledFunction.%s runs %q, which is not a job (%v)", name, j, all)
			}
			covered[j] = true
		}
	}
	for _, j := range all {
		if !covered[j] {
			t.Errorf("job %s is never scheduled", j)
		}
	}

	mig, ok := fns["MigrateFunction"]
	if !ok {
		t.Fatal("no MigrateFunction")
	}
	if ev := mapAt(mig, "Properties", "Events"); len(ev) > 0 {
		t.Errorf("MigrateFunction has events %v: migrations run once per release, invoked by the deploy step", slices.Sorted(maps.Keys(ev)))
	}
}

// TestLambdaMainsUseTheAdapter: each route group's main starts its group
// through shared/lambdahost and nothing else.
func TestLambdaMainsUseTheAdapter(t *testing.T) {
	for _, g := range routeGroups(t) {
		src, err := os.ReadFile(filepath.Join(root(t), "functions", g.Name, "lambda", "main.go"))
		if err != nil {
			t.Errorf("group %s: %v (every group needs functions/%s/lambda/main.go)", g.Name, err, g.Name)
			continue
		}
		want := "lambdahost.Start(" + g.Name + ".Group)"
		if g.Streaming {
			want = "lambdahost.StartStreaming(" + g.Name + ".Group)"
		}
		if !strings.Contains(string(src), want) {
			t.Errorf("functions/%s/lambda/main.go does not call %s", g.Name, want)
		}
	}
}
