package deploy_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tradejournal/deploy"
	"tradejournal/shared/config"
)

// TestGeneratedFilesAreCurrent: template.yaml's functions, the variable
// reference and .env.example are what cmd/deploygen writes from the code.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := deploy.Generate(root(t), routeGroups(t))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	for name, want := range files {
		got := readFile(t, name)
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the code generates: run `go run ./cmd/deploygen` and commit the result\n%s", name, firstDifference(got, want))
		}
	}
}

func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n  committed: %s\n  generated: %s", i+1, gl, wl)
		}
	}
	return ""
}

// TestVariablesDocumented: every variable the api declares has its
// documentation, and the documentation names no variable nobody reads.
func TestVariablesDocumented(t *testing.T) {
	groups := map[string]bool{}
	for _, v := range config.Variables() {
		if v.Doc == "" {
			t.Errorf("%s has no documentation in shared/config/doc.go", v.Name)
		}
		if !v.API && !v.Web && !v.Compose {
			t.Errorf("%s is documented in shared/config/doc.go but read by nobody (not declared in shared/config, not marked Web or Compose)", v.Name)
		}
		if v.Required && !v.Compose {
			t.Errorf("%s is Required, but only compose refuses to start without a variable", v.Name)
		}
		if v.Group == "" {
			t.Errorf("%s has no group", v.Name)
		}
		groups[v.Group] = true
	}
	if len(groups) < 5 {
		t.Errorf("only %d groups", len(groups))
	}
}

// TestSecretsMarked: the variables marked Secret are exactly those whose
// values config.Secrets treats as secret (what must never reach a response,
// a log line or /config.js), checked with every secret set.
func TestSecretsMarked(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	prev := bytes.Repeat([]byte{9}, 32)
	sum := sha256.Sum256(key)
	samples := map[string]string{
		"DB_PASSWORD":                      "s-db-password",
		"DATABASE_URL":                     "postgres://u:s-url-pass@db/x",
		"DIRECT_DATABASE_URL":              "postgres://u:s-direct-pass@db/x",
		"PAYMENT_SECRET_KEY":               "s-payment-key",
		"PAYMENT_WEBHOOK_SECRET":           "s-webhook",
		"SMTP_USER":                        "mailer",
		"SMTP_PASS":                        "s-smtp-pass",
		"SMTP_HOST":                        "smtp.example.com",
		"EMAIL_FROM":                       "noreply@example.com",
		"WEB_BASE_URL":                     "https://journal.example.com",
		"STORE_URL":                        "redis://:s-store-pass@redis:6379/0",
		"OBJECT_STORAGE_ACCESS_KEY_ID":     "s-access-key-id",
		"OBJECT_STORAGE_SECRET_ACCESS_KEY": "s-secret-access-key",
		"ANALYTICS_API_KEY":                "s-analytics",
		"STOCK_QUOTE_API_KEY":              "s-quote",
		"ALPACA_DATA_KEY_ID":               "s-alpaca-id",
		"ALPACA_DATA_SECRET_KEY":           "s-alpaca-secret",
		"TWELVE_DATA_API_KEY":              "s-twelve",
		"TRADIER_API_KEY":                  "s-tradier",
		"ASSISTANT_API_KEY":                "s-assistant-key",
		"ASSISTANT_ANTHROPIC_API_KEY":      "s-anthropic-key",
		"ASSISTANT_MODEL":                  "model-name",
		"ASSISTANT_INPUT_PRICE_PER_MTOK":   "150000",
		"ASSISTANT_OUTPUT_PRICE_PER_MTOK":  "600000",
		"ENCRYPTION_KEY":                   base64.StdEncoding.EncodeToString(key),
		"ENCRYPTION_KEY_PREVIOUS":          base64.StdEncoding.EncodeToString(prev),
		"ENCRYPTION_KEY_FINGERPRINT":       hex.EncodeToString(sum[:]),
	}
	cfg, err := config.LoadFrom(func(k string) (string, bool) { v, ok := samples[k]; return v, ok })
	if err != nil {
		t.Fatalf("sample configuration: %v", err)
	}
	secrets := cfg.Secrets()
	treated := map[string]bool{}
	for name, val := range samples {
		for _, s := range secrets {
			if s == val || strings.Contains(val, s) && len(s) > 4 {
				treated[name] = true
			}
		}
	}
	for _, v := range config.Variables() {
		if _, sampled := samples[v.Name]; !sampled {
			if v.Secret {
				t.Errorf("%s is marked Secret but has no sample here", v.Name)
			}
			continue
		}
		if v.Secret != treated[v.Name] {
			t.Errorf("%s: marked Secret=%v in shared/config/doc.go, but config.Secrets treats it as secret=%v", v.Name, v.Secret, treated[v.Name])
		}
	}
	if got, want := deploy.SecretVariables(config.Variables()), secretNames(samples, treated); !slices.Equal(got, want) {
		t.Errorf("secret variables %v, want %v", got, want)
	}
}

func secretNames(samples map[string]string, treated map[string]bool) []string {
	var out []string
	for name := range samples {
		if treated[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestEnvExample: .env.example holds every variable once, only DB_PASSWORD
// uncommented and empty, and no value for any secret.
func TestEnvExample(t *testing.T) {
	vars := variables()
	seen := map[string]int{}
	assignment := regexp.MustCompile(`^(#?)([A-Z][A-Z0-9_]*)=(.*)$`)
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, deploy.EnvExampleFile)))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := assignment.FindStringSubmatch(line)
		if m == nil {
			if line != "" && !strings.HasPrefix(line, "#") {
				t.Errorf("line %d is neither a comment nor NAME=value: %q", n, line)
			}
			continue
		}
		commented, name, value := m[1] == "#", m[2], m[3]
		v, known := vars[name]
		if !known {
			t.Errorf("line %d: %s is not a variable of the service", n, name)
			continue
		}
		seen[name]++
		if v.Secret && value != "" {
			t.Errorf("line %d: %s is a secret; the example must leave it empty", n, name)
		}
		if !commented && !v.Required {
			t.Errorf("line %d: %s is set; only required variables are uncommented", n, name)
		}
		if commented && v.Required {
			t.Errorf("line %d: %s is required and must appear uncommented", n, name)
		}
		if value != v.Default {
			t.Errorf("line %d: %s=%s, want its default %q", n, name, value, v.Default)
		}
	}
	for name := range vars {
		if seen[name] != 1 {
			t.Errorf("%s appears %d times in .env.example, want once", name, seen[name])
		}
	}
}
