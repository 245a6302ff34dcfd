package deploy_test

import (
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/testbin"

	"github.com/jackc/pgx/v5"
)

// hadolint is not installable here, so these tests check the rules that
// matter for infra/api.Dockerfile themselves, and then build the binary the
// way the Dockerfile does and run it as the image would.

const apiDockerfile = "infra/api.Dockerfile"

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case
	args string
}

func parseDockerfile(t *testing.T, text string) []instruction {
	t.Helper()
	var out []instruction
	var cur strings.Builder
	start := 0
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() > 0 && strings.HasPrefix(trimmed, "#") {
			continue // a comment inside a continued instruction
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s ends inside a continued instruction", apiDockerfile)
	}
	return out
}

// stage is one FROM and what follows it.
type stage struct {
	image, alias string
	body         []instruction
}

func stages(ins []instruction) []stage {
	var out []stage
	for _, in := range ins {
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			var img, alias string
			for i := 0; i < len(f); i++ {
				switch {
				case strings.HasPrefix(f[i], "--"):
				case strings.EqualFold(f[i], "AS") && i+1 < len(f):
					alias = f[i+1]
					i++
				case img == "":
					img = f[i]
				}
			}
			out = append(out, stage{image: img, alias: alias})
			continue
		}
		if len(out) > 0 {
			out[len(out)-1].body = append(out[len(out)-1].body, in)
		}
	}
	return out
}

func TestAPIDockerfileRules(t *testing.T) {
	ins := parseDockerfile(t, string(readFile(t, apiDockerfile)))
	st := stages(ins)
	if len(st) < 2 {
		t.Fatalf("%d stage(s): the image must be multi-stage (build, then a minimal runtime)", len(st))
	}
	aliases := map[string]bool{}
	for i, s := range st {
		t.Run(fmt.Sprintf("Stage%d", i), func(t *testing.T) {
			if aliases[s.image] {
				return // FROM an earlier stage
			}
			name, tag, hasTag := strings.Cut(s.image, ":")
			switch {
			case strings.Contains(s.image, "@sha256:"):
			case !hasTag || tag == "" || tag == "latest" || strings.Contains(tag, "$"):
				t.Errorf("FROM %s: pin the base image by a version tag (or digest), never latest or a variable", s.image)
			case name == "":
				t.Errorf("FROM %s: no image name", s.image)
			}
		})
		if s.alias != "" {
			aliases[s.alias] = true
		}
	}

	final := st[len(st)-1]
	if !regexp.MustCompile(`^(gcr\.io/distroless/static(-debian[0-9]+)?:[a-z0-9.-]+|scratch)$`).MatchString(final.image) {
		t.Errorf("final stage FROM %s: want distroless static (CA certificates, tzdata, a non-root user) or scratch", final.image)
	}
	var user string
	var entrypoint instruction
	for _, in := range final.body {
		switch in.cmd {
		case "USER":
			user = in.args
		case "ENTRYPOINT":
			entrypoint = in
		case "RUN":
			t.Errorf("line %d: RUN in the runtime stage (it has no shell): %s", in.line, in.args)
		}
	}
	if u, _, _ := strings.Cut(user, ":"); u == "" || u == "root" || u == "0" {
		t.Errorf("final stage USER %q: the api must run as a non-root user", user)
	}
	var argv []string
	if err := json.Unmarshal([]byte(entrypoint.args), &argv); err != nil || len(argv) == 0 {
		t.Errorf("ENTRYPOINT %q: use the exec form [\"/path/to/binary\"] (no shell in the image; signals reach the binary)", entrypoint.args)
	}

	for _, in := range ins {
		switch in.cmd {
		case "ADD":
			t.Errorf("line %d: ADD %s: use COPY (ADD fetches URLs and unpacks archives)", in.line, in.args)
		case "COPY":
			if m := regexp.MustCompile(`--from=(\S+)`).FindStringSubmatch(in.args); m != nil && !aliases[m[1]] {
				t.Errorf("line %d: COPY --from=%s names no earlier stage", in.line, m[1])
			}
		case "RUN":
			if regexp.MustCompile(`\b(curl|wget)\b.*https?://`).MatchString(in.args) {
				t.Errorf("line %d: RUN downloads from the network outside the module proxy: %s", in.line, in.args)
			}
		case "ENV", "ARG":
			if regexp.MustCompile(`(?i)(password|secret|token|_key)\s*=`).MatchString(in.args) {
				t.Errorf("line %d: %s bakes a secret into the image: %s", in.line, in.cmd, in.args)
			}
		}
	}

	build := goBuildCommand(t, ins)
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X tradejournal/shared/buildinfo.Version=${APP_VERSION}", "./cmd/local"} {
		if !strings.Contains(build, want) {
			t.Errorf("the go build step lacks %q: %s", want, build)
		}
	}
	hasArg := false
	for _, in := range st[0].body {
		hasArg = hasArg || (in.cmd == "ARG" && strings.HasPrefix(in.args, "APP_VERSION"))
	}
	if !hasArg {
		t.Error("the build stage declares no ARG APP_VERSION")
	}

	// The builder's Go is the one go.mod asks for.
	goMod := string(readFile(t, "go.mod"))
	want := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(goMod)
	if want == nil || !strings.HasPrefix(st[0].image, "golang:"+want[1]) {
		t.Errorf("build stage FROM %s, want golang:%s.x as go.mod says", st[0].image, want[1])
	}
}

// goBuildCommand is the RUN instruction that builds the binary.
func goBuildCommand(t *testing.T, ins []instruction) string {
	t.Helper()
	for _, in := range ins {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			return in.args
		}
	}
	t.Fatal("no RUN ... go build in the Dockerfile")
	return ""
}

func TestDockerignore(t *testing.T) {
	lines := strings.Fields(string(readFile(t, ".dockerignore")))
	for _, want := range []string{".env", ".data", ".git", "bin"} {
		found := false
		for _, l := range lines {
			found = found || strings.TrimPrefix(strings.TrimSuffix(l, "/"), "/") == want
		}
		if !found {
			t.Errorf(".dockerignore does not exclude %s from the build context", want)
		}
	}
}

// TestAPIImageBinary builds the api the way infra/api.Dockerfile does (its
// ldflags and package, a release version as APP_VERSION) and runs it as the
// image runs it, with no arguments and the compose stack's fixed settings:
// it must be static (distroless/static has no C library), apply the
// migrations before serving, and report the stamped version.
func TestAPIImageBinary(t *testing.T) {
	const version = "v0.14.0-deadbee"
	build := goBuildCommand(t, parseDockerfile(t, string(readFile(t, apiDockerfile))))
	m := regexp.MustCompile(`-ldflags "([^"]+)"`).FindStringSubmatch(build)
	if m == nil {
		t.Fatalf("no -ldflags \"...\" in %s", build)
	}
	ldflags := strings.ReplaceAll(m[1], "${APP_VERSION}", version)
	bin := filepath.Join(t.TempDir(), "tradejournal")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/local")
	cmd.Dir = root(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary is dynamically linked (%v): distroless/static cannot run it", p.Type)
		}
	}
	f.Close()

	dbURL := emptyDatabase(t)
	for _, tc := range []struct {
		name        string
		appVersion  *string
		wantVersion string
	}{
		{"Stamped", nil, version},
		{"ErasedByABlankValue", new(""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			env := []string{"PORT=" + strconv.Itoa(port), "DATABASE_URL=" + dbURL, "DIRECT_DATABASE_URL=", "DB_TRANSACTION_POOLER=false", "LOG_LEVEL=warn",
				"SEC_TICKERS_URL=http://127.0.0.1:1/unreachable"}
			if tc.appVersion != nil {
				env = append(env, "APP_VERSION="+*tc.appVersion)
			}
			p := exec.Command(bin)
			p.Env = env
			logs := &testbin.SyncBuffer{}
			p.Stdout, p.Stderr = logs, logs
			if err := p.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Process.Kill(); _ = p.Wait() })

			body := waitHealthy(t, port, logs)
			if got, _ := body["version"].(string); got != tc.wantVersion {
				t.Errorf("health version %q, want %q (body %v)", got, tc.wantVersion, body)
			}
			if body["database"] != "up" {
				t.Errorf("health %v, want the database up", body)
			}
			conn, err := pgx.Connect(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			var applied int
			if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM schema_migrations`).Scan(&applied); err != nil || applied == 0 {
				t.Errorf("schema_migrations holds %d rows (%v): the start did not migrate", applied, err)
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func waitHealthy(t *testing.T, port int, logs *testbin.SyncBuffer) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	url := fmt.Sprintf("http://127.0.0.1:%d/api/health", port)
	for time.Now().Before(deadline) {
		res, err := http.Get(url)
		if err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			var body map[string]any
			if res.StatusCode == http.StatusOK && json.Unmarshal(b, &body) == nil {
				return body
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the api did not answer on :%d within 30 s; its output:\n%s", port, logs.String())
	return nil
}
