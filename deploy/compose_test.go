package deploy_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// These tests hold docker-compose.yml to the deployment rules without a
// Docker engine: they read the file as compose does (YAML, then
// interpolation of ${...} from the environment and .env).

const composeFile = "docker-compose.yml"

// fixedAPIEnv are the api variables compose sets itself instead of passing
// them through: the values below after interpolation with DB_PASSWORD=pw.
var fixedAPIEnv = map[string]string{
	"PORT":                  "3100",
	"DATABASE_URL":          "postgres://tradejournal:pw@db:5432/tradejournal?sslmode=disable",
	"DIRECT_DATABASE_URL":   "",
	"DB_TRANSACTION_POOLER": "false",
	"TRUSTED_PROXIES":       "web",
}

// notPassedToAPI are api variables compose never hands the api.
var notPassedToAPI = []string{
	"DB_PASSWORD", // inside DATABASE_URL already; the api needs no copy
}

func composeServices(t *testing.T, c map[string]any) map[string]map[string]any {
	t.Helper()
	raw := mapAt(c, "services")
	out := map[string]map[string]any{}
	for name, s := range raw {
		m, ok := s.(map[string]any)
		if !ok {
			t.Fatalf("service %s is not a mapping", name)
		}
		out[name] = m
	}
	return out
}

// environment returns a service's environment in map form, nil values being
// pass-through.
func environment(t *testing.T, svc map[string]any, name string) map[string]any {
	t.Helper()
	env, ok := svc["environment"].(map[string]any)
	if !ok {
		t.Fatalf("service %s: environment must be a mapping (VAR: value, or VAR: with no value to pass it through)", name)
	}
	return env
}

func TestComposeServices(t *testing.T) {
	c := yamlFile(t, composeFile)
	svcs := composeServices(t, c)
	if got := slices.Sorted(maps.Keys(svcs)); !slices.Equal(got, []string{"api", "db", "redis", "web"}) {
		t.Fatalf("services %v, want api, db, redis, web", got)
	}

	t.Run("OnlyWebPublishesAPort", func(t *testing.T) {
		for name, s := range svcs {
			if s["network_mode"] != nil {
				t.Errorf("%s: network_mode %v would bypass the port rules", name, s["network_mode"])
			}
			ports, has := s["ports"]
			if name != "web" {
				if has {
					t.Errorf("%s publishes %v; only web may publish a port", name, ports)
				}
				continue
			}
			list, _ := ports.([]any)
			if len(list) != 1 || list[0] != "${WEB_PORT:-8080}:80" {
				t.Errorf("web publishes %v, want exactly [\"${WEB_PORT:-8080}:80\"]", ports)
			}
		}
	})

	t.Run("MetricsPortNeverPublished", func(t *testing.T) {
		for name, s := range svcs {
			for _, key := range []string{"ports", "expose"} {
				for _, p := range asList(s[key]) {
					text := fmt.Sprint(p)
					if strings.Contains(text, "METRICS_PORT") || strings.Contains(text, "9464") {
						t.Errorf("%s: %s %q exposes the metrics listener", name, key, text)
					}
				}
			}
		}
	})

	t.Run("Database", func(t *testing.T) {
		db := svcs["db"]
		image, _ := db["image"].(string)
		if !regexp.MustCompile(`^postgres:[0-9][0-9A-Za-z.-]*$`).MatchString(image) {
			t.Errorf("db image %q: want the official postgres image pinned by a version tag", image)
		}
		vols := asList(db["volumes"])
		named := mapAt(c, "volumes")
		found := false
		for _, v := range vols {
			src, dst, _ := strings.Cut(fmt.Sprint(v), ":")
			if dst == "/var/lib/postgresql/data" {
				found = true
				if _, ok := named[src]; !ok || strings.ContainsAny(src, "./") {
					t.Errorf("db data %q is not a named volume declared under volumes:", src)
				}
			}
		}
		if !found {
			t.Errorf("db has no volume at /var/lib/postgresql/data: %v", vols)
		}
		hc := mapAt(db, "healthcheck")
		if test := fmt.Sprint(hc["test"]); !strings.Contains(test, "pg_isready") {
			t.Errorf("db healthcheck %v, want pg_isready", hc["test"])
		}
	})

	t.Run("API", func(t *testing.T) {
		api := svcs["api"]
		b := mapAt(api, "build")
		if b["context"] != "." || b["dockerfile"] != "infra/api.Dockerfile" {
			t.Errorf("api build %v, want context . and infra/api.Dockerfile", b)
		}
		if got := mapAt(b, "args")["APP_VERSION"]; got != "${APP_VERSION:-}" {
			t.Errorf("api build arg APP_VERSION = %v, want ${APP_VERSION:-}", got)
		}
		dep := mapAt(api, "depends_on", "db")
		if dep["condition"] != "service_healthy" {
			t.Errorf("api depends_on db %v, want condition service_healthy", dep)
		}
	})

	t.Run("Web", func(t *testing.T) {
		b := mapAt(svcs["web"], "build")
		if b["context"] != "./web" || b["dockerfile"] != "Dockerfile" {
			t.Errorf("web build %v, want context ./web, dockerfile Dockerfile (web/Dockerfile)", b)
		}
		if got := mapAt(b, "args")["APP_VERSION"]; got != "${APP_VERSION:-}" {
			t.Errorf("web build arg APP_VERSION = %v, want ${APP_VERSION:-}", got)
		}
	})

	t.Run("RedisUnderAProfile", func(t *testing.T) {
		r := svcs["redis"]
		if p := asList(r["profiles"]); len(p) != 1 || p[0] != "redis" {
			t.Errorf("redis profiles %v, want [redis]", r["profiles"])
		}
		for name, s := range svcs {
			if name != "redis" && s["profiles"] != nil {
				t.Errorf("%s is under a profile; only redis is optional", name)
			}
		}
	})

	t.Run("NoEnvFile", func(t *testing.T) {
		// env_file would hand every service all of .env: the database
		// password and the payment keys would reach the web container.
		for name, s := range svcs {
			if s["env_file"] != nil {
				t.Errorf("%s: env_file passes every variable; list the ones it reads under environment", name)
			}
		}
	})
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestComposeEnvironment holds each service's environment to the variables
// it reads (config.Variables): the api gets every variable shared/config
// declares, the web container the public ones it reads, and no secret
// reaches the web container.
func TestComposeEnvironment(t *testing.T) {
	svcs := composeServices(t, yamlFile(t, composeFile))
	vars := variables()
	apiEnv := environment(t, svcs["api"], "api")
	webEnv := environment(t, svcs["web"], "web")

	var wantAPI, wantWeb []string
	for name, v := range vars {
		if v.API && !slices.Contains(notPassedToAPI, name) {
			wantAPI = append(wantAPI, name)
		}
		if v.Web {
			wantWeb = append(wantWeb, name)
		}
	}
	slices.Sort(wantAPI)
	slices.Sort(wantWeb)
	diff := func(service string, got map[string]any, want []string) {
		keys := slices.Sorted(maps.Keys(got))
		for _, k := range want {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: %s is read there but not in its environment (add \"%s:\" to pass it through from .env)", service, k, k)
			}
		}
		for _, k := range keys {
			if !slices.Contains(want, k) {
				t.Errorf("%s: environment has %s, which it does not read (or shared/config's Variables does not say so)", service, k)
			}
		}
	}
	diff("api", apiEnv, wantAPI)
	diff("web", webEnv, wantWeb)

	for k, v := range apiEnv {
		if _, fixed := fixedAPIEnv[k]; !fixed && v != nil {
			t.Errorf("api: %s = %v; pass it through with no value so .env decides (and unset keeps the default)", k, v)
		}
	}
	for k, v := range webEnv {
		if v != nil {
			t.Errorf("web: %s = %v; pass it through with no value", k, v)
		}
		if vars[k].Secret {
			t.Errorf("web: %s is a secret and must not reach the web container", k)
		}
	}
	for _, k := range []string{"METRICS_ENABLED", "APP_VERSION"} {
		if _, ok := apiEnv[k]; !ok {
			t.Errorf("api does not get %s", k)
		}
		if _, ok := webEnv[k]; !ok {
			t.Errorf("web does not get %s", k)
		}
	}
	if _, ok := apiEnv["STORE_URL"]; !ok {
		t.Error("api does not get STORE_URL (the redis profile's store)")
	}
}

// TestComposeInterpolation interpolates the file as compose does and checks
// the values the services get.
func TestComposeInterpolation(t *testing.T) {
	raw := string(readFile(t, composeFile))

	t.Run("DBPasswordRequired", func(t *testing.T) {
		for _, env := range []map[string]string{{}, {"DB_PASSWORD": ""}} {
			_, err := interpolate(raw, env)
			if err == nil || !strings.Contains(err.Error(), "DB_PASSWORD is required") {
				t.Errorf("with %v: err = %v, want the DB_PASSWORD is required message", env, err)
			}
		}
	})

	t.Run("DatabaseURLBuiltAndEnvironmentIgnored", func(t *testing.T) {
		out, err := interpolate(raw, map[string]string{
			"DB_PASSWORD":         "pw",
			"DATABASE_URL":        "postgres://someone@elsewhere/other",
			"DIRECT_DATABASE_URL": "postgres://someone@elsewhere/direct",
			"PORT":                "9999",
		})
		if err != nil {
			t.Fatal(err)
		}
		svcs := composeServices(t, parseYAML(t, out))
		env := environment(t, svcs["api"], "api")
		for k, want := range fixedAPIEnv {
			if env[k] != want {
				t.Errorf("api %s = %v, want %q", k, env[k], want)
			}
		}
		if got := mapAt(svcs["db"], "environment")["POSTGRES_PASSWORD"]; got != "pw" {
			t.Errorf("db POSTGRES_PASSWORD = %v, want the DB_PASSWORD", got)
		}
		if p := asList(svcs["web"]["ports"]); len(p) != 1 || p[0] != "8080:80" {
			t.Errorf("web ports %v with WEB_PORT unset, want 8080:80", p)
		}
	})

	t.Run("WebPort", func(t *testing.T) {
		out, err := interpolate(raw, map[string]string{"DB_PASSWORD": "pw", "WEB_PORT": "9000", "APP_VERSION": "v1.2.3-abc"})
		if err != nil {
			t.Fatal(err)
		}
		svcs := composeServices(t, parseYAML(t, out))
		if p := asList(svcs["web"]["ports"]); len(p) != 1 || p[0] != "9000:80" {
			t.Errorf("web ports %v, want 9000:80", p)
		}
		for _, s := range []string{"api", "web"} {
			if got := mapAt(svcs[s], "build", "args")["APP_VERSION"]; got != "v1.2.3-abc" {
				t.Errorf("%s build arg APP_VERSION = %v, want v1.2.3-abc", s, got)
			}
		}
	})
}

func parseYAML(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yamlUnmarshal([]byte(s), &m); err != nil {
		t.Fatalf("interpolated compose file: %v", err)
	}
	return m
}

var interpolation = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])((?:[^}])*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// interpolate substitutes ${VAR}, ${VAR:-default}, ${VAR-default},
// ${VAR:?error}, ${VAR?error}, $VAR and $$ as compose does, over the whole
// file (comments included, which compose skips; they hold none).
func interpolate(s string, env map[string]string) (string, error) {
	var firstErr error
	out := interpolation.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		sub := interpolation.FindStringSubmatch(m)
		name, op, arg := sub[1], sub[2], sub[3]
		if name == "" {
			name = sub[4]
		}
		val, set := env[name]
		switch op {
		case ":-":
			if val == "" {
				return arg
			}
		case "-":
			if !set {
				return arg
			}
		case ":?":
			if val == "" && firstErr == nil {
				firstErr = fmt.Errorf("required variable %s is missing a value: %s", name, arg)
			}
		case "?":
			if !set && firstErr == nil {
				firstErr = fmt.Errorf("required variable %s is missing a value: %s", name, arg)
			}
		}
		return val
	})
	return out, firstErr
}

// TestWebStartScriptReadsWhatComposePasses holds the web container's start
// script (web/docker/*.sh) to the variables marked Web in
// shared/config/doc.go, which compose passes: a variable the script reads
// but nobody passes would silently stay unset. The script's own test seams
// (NAME=${NAME:-default} at the top) are not settings.
func TestWebStartScriptReadsWhatComposePasses(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join(root(t), "web", "docker", "*.sh"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no web/docker/*.sh: %v", err)
	}
	ref := regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*)`)
	seam := regexp.MustCompile(`(?m)^([A-Z][A-Z0-9_]*)=\$\{([A-Z][A-Z0-9_]*)[:-]`)
	read := map[string]bool{}
	seams := map[string]bool{}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range seam.FindAllStringSubmatch(string(b), -1) {
			if m[1] == m[2] {
				seams[m[1]] = true
			}
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			read[m[1]] = true
		}
	}
	vars := variables()
	for name := range read {
		if seams[name] {
			continue
		}
		if v, ok := vars[name]; !ok || !v.Web {
			t.Errorf("the web start script reads %s, which shared/config/doc.go does not mark Web (so compose does not pass it)", name)
		}
	}
	for name, v := range vars {
		if v.Web && !read[name] {
			t.Errorf("%s is marked Web and passed to the web container, but its start script never reads it", name)
		}
	}
}
