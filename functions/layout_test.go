package functions_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestLayout holds the house rule on imports (ARCHITECTURE.md, and the
// before-stop hook's script): a route group imports no other route group,
// only shared/; shared/ imports neither functions/ nor cmd/. Code two
// groups need lives in shared/. Test files are not held to it (they mount
// the whole API through functions.All).
func TestLayout(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}",
		"tradejournal/functions/...", "tradejournal/shared/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	if len(imports) < 20 {
		t.Fatalf("go list named only %d packages:\n%s", len(imports), out)
	}
	for _, v := range layoutViolations("tradejournal", imports) {
		t.Errorf("%s: move the piece both need into shared/", v)
	}
}

// layoutViolations returns "P imports I" for every import of imports that
// breaks the rule, for packages of module mod.
func layoutViolations(mod string, imports map[string][]string) []string {
	var out []string
	for pkg, imps := range imports {
		me := strings.Split(pkg, "/")
		if me[0] != mod || len(me) < 2 {
			continue
		}
		for _, imp := range imps {
			th := strings.Split(imp, "/")
			if th[0] != mod || len(th) < 2 {
				continue
			}
			switch {
			case me[1] == "shared" && (th[1] == "functions" || th[1] == "cmd"):
			case me[1] == "functions" && len(me) > 2 && th[1] == "functions" && (len(th) < 3 || th[2] != me[2]):
			default:
				continue
			}
			out = append(out, pkg+" imports "+imp)
		}
	}
	return out
}

func TestLayoutViolations(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		bad      bool
	}{
		{"tradejournal/functions/positions", "tradejournal/shared/journal", false},
		{"tradejournal/functions/positions/lambda", "tradejournal/functions/positions", false},
		{"tradejournal/functions", "tradejournal/functions/positions", false}, // the list of groups
		{"tradejournal/functions/positions", "github.com/jackc/pgx/v5", false},
		{"tradejournal/cmd/local", "tradejournal/functions", false},
		{"tradejournal/functions/scheduled", "tradejournal/functions/csvimport", true},
		{"tradejournal/functions/scheduled/lambda", "tradejournal/functions/positions", true},
		{"tradejournal/functions/positions", "tradejournal/functions", true},
		{"tradejournal/shared/apitest", "tradejournal/functions", true},
		{"tradejournal/shared/jobs", "tradejournal/functions/csvimport", true},
		{"tradejournal/shared/db", "tradejournal/cmd/local", true},
	} {
		got := layoutViolations("tradejournal", map[string][]string{tc.pkg: {tc.imp}})
		var want []string
		if tc.bad {
			want = []string{tc.pkg + " imports " + tc.imp}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s -> %s: %v, want %v", tc.pkg, tc.imp, got, want)
		}
	}
}
