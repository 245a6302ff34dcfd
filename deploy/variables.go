package deploy

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"tradejournal/shared/config"
)

// NotOnFunctionPlatform are the api's variables template.yaml deliberately
// does not set, with the reason. Every other variable the api reads must be
// set there (deploy/template_test.go), so a new variable cannot be forgotten.
var NotOnFunctionPlatform = map[string]string{
	"PORT":                 "no listener: API Gateway invokes the functions",
	"METRICS_ENABLED":      "no metrics listener on Lambda (no long-lived process to scrape); the adapter turns metrics off",
	"METRICS_PORT":         "no metrics listener on Lambda",
	"METRICS_HOST":         "no metrics listener on Lambda",
	"DB_PASSWORD":          "compose only; the secret's DATABASE_URL carries the password",
	"APP_VERSION":          "stamped into each bootstrap at build time (BUILD_VERSION=... sam build)",
	"NEWSLETTER_URL":       "read by the web container only",
	"PAYMENT_API_BASE_URL": "test seam",
	"STOCK_QUOTE_BASE_URL": "test seam",
	"SEC_TICKERS_URL":      "test seam",
	"IBKR_FLEX_BASE_URL":   "the brokers' public addresses serve every deployment; a test seam",
	"ALPACA_API_BASE_URL":  "the brokers' public addresses serve every deployment; a test seam",
	"KRAKEN_API_BASE_URL":  "the brokers' public addresses serve every deployment; a test seam",
	"ALPACA_DATA_BASE_URL": "the providers' public addresses serve every deployment; a test seam",
	"TWELVE_DATA_BASE_URL": "the providers' public addresses serve every deployment; a test seam",
	"BINANCE_BASE_URL":     "the providers' public addresses serve every deployment; a test seam",
	"TRUSTED_PROXIES":      "API Gateway hands each function the caller's source address; no proxy sits in front",
}

// PlatformSources says, for each variable template.yaml sets on every
// function, where its value comes from: a parameter, a key of the secret,
// or a fixed value.
func PlatformSources(tpl map[string]any) map[string]string {
	env := dig(tpl, "Globals", "Function", "Environment", "Variables")
	vars, _ := env.(map[string]any)
	conds, _ := tpl["Conditions"].(map[string]any)
	out := make(map[string]string, len(vars))
	for name, v := range vars {
		out[name] = source(v, conds)
	}
	return out
}

var secretRef = regexp.MustCompile(`^\{\{resolve:secretsmanager:\$\{SecretId\}:SecretString:([A-Z0-9_]+)\}\}$`)

// SecretKey returns the JSON key of the secret a value resolves, if the
// value is a Secrets Manager dynamic reference to the template's SecretId.
func SecretKey(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	s, ok := m["Fn::Sub"].(string)
	if !ok {
		return "", false
	}
	match := secretRef.FindStringSubmatch(s)
	if match == nil {
		return "", false
	}
	return match[1], true
}

// Conditional splits {"Fn::If": [cond, value, {"Ref": "AWS::NoValue"}]}:
// a value set only when cond holds.
func Conditional(v any) (cond string, value any, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) != 1 {
		return "", nil, false
	}
	args, isList := m["Fn::If"].([]any)
	if !isList || len(args) != 3 {
		return "", nil, false
	}
	c, isStr := args[0].(string)
	if ref, _ := args[2].(map[string]any); !isStr || ref == nil || ref["Ref"] != "AWS::NoValue" {
		return "", nil, false
	}
	return c, args[1], true
}

// ParamRef returns the parameter a value refers to.
func ParamRef(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	p, ok := m["Ref"].(string)
	return p, ok && !strings.HasPrefix(p, "AWS::")
}

func source(v any, conds map[string]any) string {
	if c, inner, ok := Conditional(v); ok {
		return source(inner, conds) + ", when " + describeCondition(c, conds)
	}
	if k, ok := SecretKey(v); ok {
		return "key `" + k + "` of the `SecretId` secret"
	}
	if p, ok := ParamRef(v); ok {
		return "parameter `" + p + "`"
	}
	if s, ok := v.(string); ok {
		return "fixed: `" + s + "`"
	}
	return "an expression in template.yaml"
}

// describeCondition renders the template's simple conditions in words:
// {"Fn::Equals": [{"Ref": P}, v]} and its negation.
func describeCondition(name string, conds map[string]any) string {
	def, _ := conds[name].(map[string]any)
	negate := false
	if not, ok := def["Fn::Not"].([]any); ok && len(not) == 1 {
		def, _ = not[0].(map[string]any)
		negate = true
	}
	if eq, ok := def["Fn::Equals"].([]any); ok && len(eq) == 2 {
		if p, ok := ParamRef(eq[0]); ok {
			val := fmt.Sprint(eq[1])
			switch {
			case negate && val == "":
				return "`" + p + "` is set"
			case negate:
				return "`" + p + "` is not `" + val + "`"
			default:
				return "`" + p + "` is `" + val + "`"
			}
		}
	}
	return "condition `" + name + "`"
}

// readers lists who reads v.
func readers(v config.Variable) string {
	var r []string
	if v.API {
		r = append(r, "api")
	}
	if v.Web {
		r = append(r, "web")
	}
	if v.Compose {
		r = append(r, "compose")
	}
	return strings.Join(r, ", ")
}

func defaultText(v config.Variable) string {
	switch {
	case v.Required:
		return "required"
	case v.DefaultNote != "":
		return v.DefaultNote
	case v.Default == "":
		return "unset"
	default:
		return "`" + v.Default + "`"
	}
}

// groups returns the variables grouped, in first-appearance order.
func groups(vars []config.Variable) (order []string, by map[string][]config.Variable) {
	by = map[string][]config.Variable{}
	for _, v := range vars {
		if _, seen := by[v.Group]; !seen {
			order = append(order, v.Group)
		}
		by[v.Group] = append(by[v.Group], v)
	}
	return order, by
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// ConfigurationDoc is docs/configuration.md.
func ConfigurationDoc(vars []config.Variable, platform map[string]string) []byte {
	var b bytes.Buffer
	b.WriteString(`# Configuration

<!-- Generated by go run ./cmd/deploygen from shared/config (config.Variables) and template.yaml.
     deploy/generated_test.go fails when this file and the code disagree: do not edit by hand. -->

Every setting is an environment variable, read once at start. Booleans accept exactly ` + "`true`" + ` or
` + "`false`" + `; any other value, like any invalid setting, stops the start with one line naming the
variable (never echoing a secret). An unset (or empty) optional variable turns its feature off
silently: no error, no outbound call.

- **compose**: put them in ` + "`.env`" + ` next to ` + "`docker-compose.yml`" + ` (start from ` + "`.env.example`" + `, which lists
  every variable below with its default). Compose hands each service only what it reads.
- **function platform**: ` + "`template.yaml`" + ` sets them from stack parameters and from keys of one Secrets
  Manager secret; see [the table at the end](#on-the-function-platform).
- **Read by**: ` + "`api`" + ` is the Go api (` + "`cmd/local`" + `, the compose api container, every Lambda function);
  ` + "`web`" + ` is the web container's start script; ` + "`compose`" + ` is ` + "`docker-compose.yml`" + ` itself.

`)
	order, by := groups(vars)
	for _, g := range order {
		fmt.Fprintf(&b, "## %s\n\n", g)
		b.WriteString("| Variable | Default | Read by | Meaning |\n|---|---|---|---|\n")
		for _, v := range by[g] {
			secret := ""
			if v.Secret {
				secret = " Secret."
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s%s |\n", v.Name, cell(defaultText(v)), readers(v), cell(v.Doc), secret)
		}
		b.WriteString("\n")
	}
	b.WriteString(`## On the function platform

How ` + "`template.yaml`" + ` sets each variable the api reads. Secrets come only from keys of the Secrets Manager
secret named by the ` + "`SecretId`" + ` parameter, resolved by CloudFormation at deploy time; an optional key
is read only when its feature is turned on, so the secret needs only the keys you use. An empty
parameter means the default above.

| Variable | Set through |
|---|---|
`)
	for _, v := range vars {
		if !v.API {
			continue
		}
		src, ok := platform[v.Name]
		if !ok {
			if why, ok := NotOnFunctionPlatform[v.Name]; ok {
				src = "not set (" + why + ")"
			} else {
				src = "not set"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", v.Name, cell(src))
	}
	return b.Bytes()
}

// EnvExample is .env.example: every variable, grouped, a commented line
// with its default, and secrets only as empty placeholders.
func EnvExample(vars []config.Variable) []byte {
	var b bytes.Buffer
	b.WriteString(`# Trade Journal: settings of the docker-compose stack. Copy this file to .env and edit it:
#   cp .env.example .env
# Generated by go run ./cmd/deploygen from shared/config; docs/configuration.md explains every
# variable. A commented line shows the default: remove the # to change it. Only DB_PASSWORD is
# required. Never commit .env: it holds your secrets.
`)
	order, by := groups(vars)
	for _, g := range order {
		fmt.Fprintf(&b, "\n# ==== %s %s\n", g, strings.Repeat("=", max(3, 90-len(g))))
		for _, v := range by[g] {
			text := v.Doc
			if v.Required {
				text += " Required."
			} else if v.DefaultNote != "" {
				text += " Default: " + v.DefaultNote + "."
			}
			if v.Secret {
				text += " Secret."
			}
			if v.Example != "" {
				text += " Example: " + v.Example + "."
			}
			b.WriteString("\n")
			for _, line := range wrap(strings.ReplaceAll(text, "`", ""), 96) {
				b.WriteString("# " + line + "\n")
			}
			switch {
			case v.Required:
				fmt.Fprintf(&b, "%s=\n", v.Name)
			default:
				fmt.Fprintf(&b, "#%s=%s\n", v.Name, v.Default)
			}
		}
	}
	return b.Bytes()
}

// wrap breaks text into lines of at most width characters at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// SecretVariables returns the names of the variables marked secret.
func SecretVariables(vars []config.Variable) []string {
	var out []string
	for _, v := range vars {
		if v.Secret {
			out = append(out, v.Name)
		}
	}
	slices.Sort(out)
	return out
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}
