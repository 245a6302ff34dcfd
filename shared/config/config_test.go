package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/buildinfo"
)

// vars is a fake environment.
type vars map[string]string

func (v vars) lookup(k string) (string, bool) { s, ok := v[k]; return s, ok }

// with returns a copy of v with more variables set.
func (v vars) with(more vars) vars {
	out := vars{}
	for k, s := range v {
		out[k] = s
	}
	for k, s := range more {
		out[k] = s
	}
	return out
}

// load runs LoadFrom and checks what holds for every error: one line, and a
// zero Config beside it.
func load(t *testing.T, v vars) (Config, error) {
	t.Helper()
	c, err := LoadFrom(v.lookup)
	if err != nil {
		if strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("error is not one line: %q", err)
		}
		if !reflect.DeepEqual(c, Config{}) {
			t.Errorf("Config beside an error is not zero: %+v", c)
		}
	}
	return c, err
}

// mustLoad loads v and fails the test on error.
func mustLoad(t *testing.T, v vars) Config {
	t.Helper()
	c, err := load(t, v)
	if err != nil {
		t.Fatalf("LoadFrom: unexpected error: %v", err)
	}
	return c
}

// wantErr loads v and requires an error containing every part of want.
func wantErr(t *testing.T, v vars, want ...string) string {
	t.Helper()
	_, err := load(t, v)
	if err == nil {
		t.Fatalf("LoadFrom: no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	return err.Error()
}

// Test keys: bytes 0..31, and 32 bytes of 0xff whose base64 uses '/'.
var (
	key1      = seq(32)
	key1Std   = base64.StdEncoding.EncodeToString(key1)
	key1Raw   = base64.RawStdEncoding.EncodeToString(key1)
	key2      = bytes.Repeat([]byte{0xff}, 32)
	key2Std   = base64.StdEncoding.EncodeToString(key2)
	key1Print = fingerprint(key1)
)

func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func fingerprint(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

var emailTrio = vars{
	"SMTP_HOST":    "smtp.example.com",
	"EMAIL_FROM":   "noreply@example.com",
	"WEB_BASE_URL": "https://journal.example.com",
}

func TestDefaults(t *testing.T) {
	c := mustLoad(t, vars{})
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"PORT", c.Port, 3100},
		{"LOG_LEVEL", c.LogLevel, "info"},
		{"APP_VERSION", c.AppVersion, "unknown"},
		{"DATABASE_URL", c.DB.URL, ""},
		{"DIRECT_DATABASE_URL", c.DB.DirectURL, ""},
		{"DB_PASSWORD", c.DB.Password, ""},
		{"DB_TRANSACTION_POOLER", c.DB.TransactionPooler, false},
		{"DB_POOL_SIZE", c.DB.PoolSize, 10},
		{"DISABLE_REGISTRATION", c.Accounts.DisableRegistration, false},
		{"SEED_ADMIN_EMAIL", c.Accounts.SeedAdminEmail, ""},
		{"METRICS_ENABLED", c.Metrics.Enabled, false},
		{"METRICS_PORT", c.Metrics.Port, 9464},
		{"METRICS_HOST", c.Metrics.Host, "0.0.0.0"},
		{"CSV_IMPORT_MAX_FILE_BYTES", c.CSVImport.MaxFileBytes, int64(10 << 20)},
		{"CSV_IMPORT_MAX_REQUEST_BYTES", c.CSVImport.MaxRequestBytes, int64(65536)},
		{"CSV_IMPORT_MAX_ROWS", c.CSVImport.MaxRows, 10000},
		{"CSV_IMPORT_STAGING_TTL_MINUTES", c.CSVImport.StagingTTL, 30 * time.Minute},
		{"CSV_IMPORT_MAX_STAGED_BYTES", c.CSVImport.MaxStagedBytes, int64(25165824)},
		{"CSV_IMPORT_CLAIM_TIMEOUT_SECONDS", c.CSVImport.ClaimTimeout, 600 * time.Second},
		{"PAYMENT_SECRET_KEY", c.Billing.SecretKey, ""},
		{"PAYMENT_WEBHOOK_SECRET", c.Billing.WebhookSecret, ""},
		{"PAYMENT_PUBLISHABLE_KEY", c.Billing.PublishableKey, ""},
		{"PAYMENT_PRO_PRICE_ID", c.Billing.ProPriceID, ""},
		{"PAYMENT_API_BASE_URL", c.Billing.APIBaseURL, ""},
		{"CREDIT_PACKS", c.Billing.CreditPacks, ""},
		{"MIN_RESERVATION_CREDITS", c.Billing.MinReservationCredits, int64(1)},
		{"RESERVATION_TTL_MS", c.Billing.ReservationTTL, 600000 * time.Millisecond},
		{"PRICING_MARKUP", c.Billing.PricingMarkup.String(), "1.2"},
		{"STOCK_QUOTE_API_KEY", c.Market.QuoteAPIKey, ""},
		{"STOCK_QUOTE_BASE_URL", c.Market.QuoteBaseURL, ""},
		{"SEC_USER_AGENT", c.Market.SECUserAgent, "TradeJournal self-hosted admin@example.invalid"},
		{"SEC_TICKERS_URL", c.Market.SECTickersURL, "https://www.sec.gov/files/company_tickers_exchange.json"},
		{"SMTP_HOST", c.Email.SMTPHost, ""},
		{"EMAIL_FROM", c.Email.From, ""},
		{"WEB_BASE_URL", c.Email.WebBaseURL, ""},
		{"SMTP_PORT", c.Email.SMTPPort, 587},
		{"SMTP_TLS_MODE", c.Email.TLSMode, "starttls"},
		{"SMTP_USER", c.Email.SMTPUser, ""},
		{"SMTP_PASS", c.Email.SMTPPass, ""},
		{"EMAIL_FROM_NAME", c.Email.FromName, ""},
		{"ANALYTICS_API_KEY", c.Analytics.APIKey, ""},
		{"ANALYTICS_HOST", c.Analytics.Host, "https://us.i.posthog.com"},
		{"ANALYTICS_ENVIRONMENT", c.Analytics.Environment, ""},
		{"ANALYTICS_PUBLIC_KEY", c.Analytics.PublicKey, ""},
		{"ANALYTICS_PUBLIC_FEEDBACK_SURVEY", c.Analytics.PublicFeedbackSurvey, ""},
		{"STORE_URL", c.Store.URL, ""},
		{"OBJECT_STORAGE_ENDPOINT", c.Storage.Endpoint, ""},
		{"OBJECT_STORAGE_BUCKET", c.Storage.Bucket, ""},
		{"OBJECT_STORAGE_ACCESS_KEY_ID", c.Storage.AccessKeyID, ""},
		{"OBJECT_STORAGE_SECRET_ACCESS_KEY", c.Storage.SecretAccessKey, ""},
		{"OBJECT_STORAGE_REGION", c.Storage.Region, ""},
		{"OBJECT_STORAGE_FORCE_PATH_STYLE", c.Storage.ForcePathStyle, true},
		{"ENCRYPTION_KEY", c.Encryption.Key, []byte(nil)},
		{"ENCRYPTION_KEY_PREVIOUS", c.Encryption.PreviousKey, []byte(nil)},
		{"ENCRYPTION_KEY_FINGERPRINT", c.Encryption.Fingerprint, ""},
		{"CORS_ALLOWED_ORIGINS", c.CORS.AllowedOrigins, []string(nil)},
		{"NEWSLETTER_URL", c.Web.NewsletterURL, ""},
		{"FREE_MAX_* (no limit)", c.Plans, Plans{}},
		{"features off", []bool{c.Billing.Configured(), c.Billing.WebhookEnabled(), c.Billing.ProPlanEnabled(),
			c.Email.Enabled(), c.Storage.Enabled(), c.Storage.Partial(), c.CORS.SplitOrigin()}, make([]bool, 7)},
		{"no secrets", c.Secrets(), []string(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !reflect.DeepEqual(tt.got, tt.want) {
				t.Errorf("got %#v, want %#v", tt.got, tt.want)
			}
		})
	}
}

// TestVariables pins the set of variables read, so a new one is a
// deliberate change, and shows nothing else of the environment is read.
func TestVariables(t *testing.T) {
	var read []string
	_, err := LoadFrom(func(k string) (string, bool) { read = append(read, k); return "", false })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ALPACA_API_BASE_URL", "ANALYTICS_API_KEY", "ANALYTICS_ENVIRONMENT", "ANALYTICS_HOST", "ANALYTICS_PUBLIC_FEEDBACK_SURVEY",
		"ANALYTICS_PUBLIC_KEY", "APP_VERSION", "ASSISTANT_ANTHROPIC_API_KEY", "ASSISTANT_ANTHROPIC_BASE_URL", "ASSISTANT_API_KEY", "ASSISTANT_BASE_URL",
		"ASSISTANT_INPUT_PRICE_PER_MTOK", "ASSISTANT_MODEL", "ASSISTANT_MODELS", "ASSISTANT_OUTPUT_PRICE_PER_MTOK", "ASSISTANT_OWN_KEYS", "CORS_ALLOWED_ORIGINS", "CREDIT_PACKS",
		"CSV_IMPORT_CLAIM_TIMEOUT_SECONDS", "CSV_IMPORT_MAX_FILE_BYTES", "CSV_IMPORT_MAX_REQUEST_BYTES",
		"CSV_IMPORT_MAX_ROWS", "CSV_IMPORT_MAX_STAGED_BYTES", "CSV_IMPORT_STAGING_TTL_MINUTES",
		"DATABASE_URL", "DB_PASSWORD", "DB_POOL_SIZE", "DB_TRANSACTION_POOLER", "DIRECT_DATABASE_URL",
		"DISABLE_REGISTRATION", "EMAIL_FROM", "EMAIL_FROM_NAME", "ENCRYPTION_KEY", "ENCRYPTION_KEY_FINGERPRINT",
		"ENCRYPTION_KEY_PREVIOUS", "FREE_MAX_ACCOUNTS", "FREE_MAX_IMPORTS_PER_DAY", "FREE_MAX_POSITIONS", "FREE_MAX_STORAGE_BYTES",
		"IBKR_FLEX_BASE_URL", "KRAKEN_API_BASE_URL", "LOG_LEVEL", "METRICS_ENABLED", "METRICS_HOST", "METRICS_PORT",
		"MIN_RESERVATION_CREDITS", "NEWSLETTER_URL", "OBJECT_STORAGE_ACCESS_KEY_ID", "OBJECT_STORAGE_BUCKET",
		"OBJECT_STORAGE_ENDPOINT", "OBJECT_STORAGE_FORCE_PATH_STYLE", "OBJECT_STORAGE_REGION",
		"OBJECT_STORAGE_SECRET_ACCESS_KEY", "PAYMENT_API_BASE_URL", "PAYMENT_PRO_PRICE_ID",
		"PAYMENT_PUBLISHABLE_KEY", "PAYMENT_SECRET_KEY", "PAYMENT_WEBHOOK_SECRET", "PORT", "PRICING_MARKUP",
		"RESERVATION_TTL_MS", "SEC_TICKERS_URL", "SEC_USER_AGENT", "SEED_ADMIN_EMAIL", "SMTP_HOST", "SMTP_PASS",
		"SMTP_PORT", "SMTP_TLS_MODE", "SMTP_USER", "STOCK_QUOTE_API_KEY", "STOCK_QUOTE_BASE_URL", "STORE_URL", "TRUSTED_PROXIES",
		"WEB_BASE_URL",
		"BARS_PROVIDERS", "ALPACA_DATA_KEY_ID", "ALPACA_DATA_SECRET_KEY", "ALPACA_DATA_BASE_URL", "ALPACA_DATA_FEED",
		"TWELVE_DATA_API_KEY", "TWELVE_DATA_BASE_URL", "BINANCE_BASE_URL", "TRADIER_API_KEY", "TRADIER_BASE_URL",
	}
	slices.Sort(want)
	slices.Sort(read)
	if !slices.Equal(read, want) {
		t.Errorf("variables read:\n%q\nwant:\n%q", read, want)
	}
}

func TestBooleans(t *testing.T) {
	bools := []struct {
		key string
		get func(Config) bool
		def bool
	}{
		{"DB_TRANSACTION_POOLER", func(c Config) bool { return c.DB.TransactionPooler }, false},
		{"DISABLE_REGISTRATION", func(c Config) bool { return c.Accounts.DisableRegistration }, false},
		{"METRICS_ENABLED", func(c Config) bool { return c.Metrics.Enabled }, false},
		{"OBJECT_STORAGE_FORCE_PATH_STYLE", func(c Config) bool { return c.Storage.ForcePathStyle }, true},
	}
	values := []struct {
		name, value string
		want        bool
		ok          bool
	}{
		{"true", "true", true, true},
		{"false", "false", false, true},
		{"empty is unset", "", false, true}, // want replaced by the default below
		{"yes", "yes", false, false},
		{"no", "no", false, false},
		{"1", "1", false, false},
		{"0", "0", false, false},
		{"TRUE", "TRUE", false, false},
		{"True", "True", false, false},
		{"FALSE", "FALSE", false, false},
		{"leading space", " true", false, false},
		{"trailing space", "false ", false, false},
		{"on", "on", false, false},
		{"t", "t", false, false},
	}
	for _, b := range bools {
		for _, v := range values {
			t.Run(b.key+"/"+v.name, func(t *testing.T) {
				env := vars{b.key: v.value}
				if !v.ok {
					msg := wantErr(t, env)
					want := b.key + ` must be exactly "true" or "false", got "` + v.value + `"`
					if msg != want {
						t.Errorf("error = %q, want %q", msg, want)
					}
					return
				}
				want := v.want
				if v.value == "" {
					want = b.def
				}
				if got := b.get(mustLoad(t, env)); got != want {
					t.Errorf("%s=%q: got %v, want %v", b.key, v.value, got, want)
				}
			})
		}
	}
}

func TestIntegers(t *testing.T) {
	ints := []struct {
		key   string
		get   func(Config) any
		def   any
		valid string
		want  any
	}{
		{"PORT", func(c Config) any { return c.Port }, 3100, "8080", 8080},
		{"DB_POOL_SIZE", func(c Config) any { return c.DB.PoolSize }, 10, "25", 25},
		{"METRICS_PORT", func(c Config) any { return c.Metrics.Port }, 9464, "9100", 9100},
		{"SMTP_PORT", func(c Config) any { return c.Email.SMTPPort }, 587, "465", 465},
		{"CSV_IMPORT_MAX_FILE_BYTES", func(c Config) any { return c.CSVImport.MaxFileBytes }, int64(10485760), "1048576", int64(1048576)},
		{"CSV_IMPORT_MAX_REQUEST_BYTES", func(c Config) any { return c.CSVImport.MaxRequestBytes }, int64(65536), "1024", int64(1024)},
		{"CSV_IMPORT_MAX_ROWS", func(c Config) any { return c.CSVImport.MaxRows }, 10000, "500", 500},
		{"CSV_IMPORT_STAGING_TTL_MINUTES", func(c Config) any { return c.CSVImport.StagingTTL }, 30 * time.Minute, "45", 45 * time.Minute},
		{"CSV_IMPORT_MAX_STAGED_BYTES", func(c Config) any { return c.CSVImport.MaxStagedBytes }, int64(25165824), "1000", int64(1000)},
		{"CSV_IMPORT_CLAIM_TIMEOUT_SECONDS", func(c Config) any { return c.CSVImport.ClaimTimeout }, 600 * time.Second, "900", 900 * time.Second},
		{"MIN_RESERVATION_CREDITS", func(c Config) any { return c.Billing.MinReservationCredits }, int64(1), "5", int64(5)},
		{"RESERVATION_TTL_MS", func(c Config) any { return c.Billing.ReservationTTL }, 600000 * time.Millisecond, "900000", 900 * time.Second},
		{"FREE_MAX_ACCOUNTS", func(c Config) any { return c.Plans.Accounts }, int64(0), "3", int64(3)},
		{"FREE_MAX_POSITIONS", func(c Config) any { return c.Plans.Positions }, int64(0), "500", int64(500)},
		{"FREE_MAX_STORAGE_BYTES", func(c Config) any { return c.Plans.StorageBytes }, int64(0), "20000000", int64(20000000)},
		{"FREE_MAX_IMPORTS_PER_DAY", func(c Config) any { return c.Plans.ImportsPerDay }, int64(0), "5", int64(5)},
	}
	bad := []struct{ name, value, msg string }{
		{"letters", "abc", "must be a whole number"},
		{"decimal", "1.5", "must be a whole number"},
		{"leading space", " 10", "must be a whole number"},
		{"trailing space", "10 ", "must be a whole number"},
		{"unit suffix", "10s", "must be a whole number"},
		{"hex", "0x10", "must be a whole number"},
		{"overflow", "99999999999999999999", "is out of range"},
	}
	for _, in := range ints {
		t.Run(in.key+"/empty is unset", func(t *testing.T) {
			if got := in.get(mustLoad(t, vars{in.key: ""})); got != in.def {
				t.Errorf("got %v, want default %v", got, in.def)
			}
		})
		t.Run(in.key+"/valid", func(t *testing.T) {
			if got := in.get(mustLoad(t, vars{in.key: in.valid})); got != in.want {
				t.Errorf("got %v, want %v", got, in.want)
			}
		})
		for _, b := range bad {
			t.Run(in.key+"/"+b.name, func(t *testing.T) {
				msg := wantErr(t, vars{in.key: b.value})
				if want := in.key + " " + b.msg + `, got "` + b.value + `"`; msg != want {
					t.Errorf("error = %q, want %q", msg, want)
				}
			})
		}
	}
}

func TestRanges(t *testing.T) {
	tests := []struct {
		key, value string
		err        string // "" for accepted
	}{
		{"PORT", "0", ""},
		{"PORT", "65535", ""},
		{"PORT", "65536", "PORT must be between 0 and 65535, got 65536"},
		{"PORT", "-1", "PORT must be between 0 and 65535, got -1"},
		{"METRICS_PORT", "0", ""},
		{"METRICS_PORT", "70000", "METRICS_PORT must be between 0 and 65535, got 70000"},
		{"SMTP_PORT", "0", "SMTP_PORT must be between 1 and 65535, got 0"},
		{"SMTP_PORT", "1", ""},
		{"DB_POOL_SIZE", "0", "DB_POOL_SIZE must be between 1 and 1000, got 0"},
		{"DB_POOL_SIZE", "1", ""},
		{"DB_POOL_SIZE", "1000", ""},
		{"DB_POOL_SIZE", "1001", "DB_POOL_SIZE must be between 1 and 1000, got 1001"},
		{"CSV_IMPORT_MAX_FILE_BYTES", "0", "CSV_IMPORT_MAX_FILE_BYTES must be at least 1, got 0"},
		{"CSV_IMPORT_MAX_REQUEST_BYTES", "-5", "CSV_IMPORT_MAX_REQUEST_BYTES must be at least 1, got -5"},
		{"CSV_IMPORT_MAX_ROWS", "0", "CSV_IMPORT_MAX_ROWS must be at least 1, got 0"},
		{"CSV_IMPORT_MAX_STAGED_BYTES", "0", "CSV_IMPORT_MAX_STAGED_BYTES must be at least 1, got 0"},
		{"CSV_IMPORT_STAGING_TTL_MINUTES", "0", "CSV_IMPORT_STAGING_TTL_MINUTES must be at least 1, got 0"},
		{"CSV_IMPORT_STAGING_TTL_MINUTES", "9223372036854775807", "CSV_IMPORT_STAGING_TTL_MINUTES is out of range, got 9223372036854775807"},
		{"CSV_IMPORT_CLAIM_TIMEOUT_SECONDS", "0", "CSV_IMPORT_CLAIM_TIMEOUT_SECONDS must be at least 1, got 0"},
		{"MIN_RESERVATION_CREDITS", "0", ""},
		{"MIN_RESERVATION_CREDITS", "-1", "MIN_RESERVATION_CREDITS must be at least 0, got -1"},
		{"FREE_MAX_ACCOUNTS", "0", ""},
		{"FREE_MAX_POSITIONS", "-1", "FREE_MAX_POSITIONS must be at least 0, got -1"},
		{"FREE_MAX_STORAGE_BYTES", "1e9", "FREE_MAX_STORAGE_BYTES must be a whole number, got \"1e9\""},
		{"RESERVATION_TTL_MS", "480000", "RESERVATION_TTL_MS must be greater than 480000, got 480000"},
		{"RESERVATION_TTL_MS", "1000", "RESERVATION_TTL_MS must be greater than 480000, got 1000"},
		{"RESERVATION_TTL_MS", "480001", ""},
		{"TRUSTED_PROXIES", "web, 10.0.0.0/8, 172.18.0.5, ::1", ""},
		{"TRUSTED_PROXIES", "10.0.0.0/33", `TRUSTED_PROXIES entry "10.0.0.0/33" is not a CIDR range`},
		{"TRUSTED_PROXIES", "my proxy", `TRUSTED_PROXIES entry "my proxy" is not an address, a CIDR range or a host name`},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			env := vars{tt.key: tt.value}
			if tt.err == "" {
				mustLoad(t, env)
				return
			}
			if msg := wantErr(t, env); msg != tt.err {
				t.Errorf("error = %q, want %q", msg, tt.err)
			}
		})
	}
}

// ruleCase is one configuration: either an error whose message contains all
// of err, or a Config that check accepts.
type ruleCase struct {
	name  string
	env   vars
	err   []string
	check func(t *testing.T, c Config)
}

func runRules(t *testing.T, tests []ruleCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.err) > 0 {
				wantErr(t, tt.env, tt.err...)
				return
			}
			c := mustLoad(t, tt.env)
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func equal[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func TestLogLevel(t *testing.T) {
	var tests []ruleCase
	for _, l := range []string{"debug", "info", "warn", "error"} {
		tests = append(tests, ruleCase{name: l, env: vars{"LOG_LEVEL": l}, check: func(t *testing.T, c Config) {
			equal(t, "LogLevel", c.LogLevel, l)
		}})
	}
	tests = append(tests,
		ruleCase{name: "empty is the default", env: vars{"LOG_LEVEL": ""}, check: func(t *testing.T, c Config) {
			equal(t, "LogLevel", c.LogLevel, "info")
		}},
		ruleCase{name: "upper case", env: vars{"LOG_LEVEL": "INFO"}, err: []string{`LOG_LEVEL must be one of debug, info, warn, error, got "INFO"`}},
		ruleCase{name: "unknown", env: vars{"LOG_LEVEL": "verbose"}, err: []string{`LOG_LEVEL must be one of`, `"verbose"`}},
		ruleCase{name: "warning spelled out", env: vars{"LOG_LEVEL": "warning"}, err: []string{"LOG_LEVEL"}},
	)
	runRules(t, tests)
}

func TestPricingMarkup(t *testing.T) {
	var tests []ruleCase
	for _, ok := range []struct{ in, want string }{
		{"1.2", "1.2"}, {"1.50", "1.5"}, {"2", "2"}, {"0.01", "0.01"}, {"1", "1"}, {"", "1.2"},
	} {
		tests = append(tests, ruleCase{name: "accepts " + ok.in, env: vars{"PRICING_MARKUP": ok.in}, check: func(t *testing.T, c Config) {
			equal(t, "PricingMarkup", c.Billing.PricingMarkup.String(), ok.want)
		}})
	}
	for _, bad := range []string{"1e2", "1.2E0", "abc", "0", "0.0", "-1", "+1.2", " 1.2", "1.", ".5", "1,2", "NaN", "1.2.3"} {
		tests = append(tests, ruleCase{name: "refuses " + bad, env: vars{"PRICING_MARKUP": bad},
			err: []string{"PRICING_MARKUP must be a plain decimal greater than 0"}})
	}
	runRules(t, tests)
}

func TestAppVersion(t *testing.T) {
	saved := buildinfo.Version
	t.Cleanup(func() { buildinfo.Version = saved })
	tests := []struct {
		name    string
		stamped string
		env     vars
		want    string
	}{
		{"unset, local build", "", vars{}, "unknown"},
		{"unset, stamped build", "v0.14.0-abc123", vars{}, "v0.14.0-abc123"},
		{"empty erases", "v0.14.0-abc123", vars{"APP_VERSION": ""}, ""},
		{"whitespace erases", "v0.14.0-abc123", vars{"APP_VERSION": "  \t"}, ""},
		{"set wins over stamp", "v0.14.0-abc123", vars{"APP_VERSION": "v0.15.0-def456"}, "v0.15.0-def456"},
		{"set is trimmed", "", vars{"APP_VERSION": " v0.14.0-abc \n"}, "v0.14.0-abc"},
		{"set to unknown", "", vars{"APP_VERSION": "unknown"}, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buildinfo.Version = tt.stamped
			equal(t, "AppVersion", mustLoad(t, tt.env).AppVersion, tt.want)
		})
	}
}

func TestEmail(t *testing.T) {
	trio := emailTrio
	runRules(t, []ruleCase{
		{name: "trio enables email", env: trio, check: func(t *testing.T, c Config) {
			equal(t, "Enabled", c.Email.Enabled(), true)
			equal(t, "SMTPHost", c.Email.SMTPHost, "smtp.example.com")
			equal(t, "From", c.Email.From, "noreply@example.com")
			equal(t, "WebBaseURL", c.Email.WebBaseURL, "https://journal.example.com")
		}},
		{name: "nothing set leaves email off", env: vars{}, check: func(t *testing.T, c Config) {
			equal(t, "Enabled", c.Email.Enabled(), false)
		}},
		{name: "only SMTP_HOST", env: vars{"SMTP_HOST": "smtp.example.com"},
			err: []string{"email is partially configured: SMTP_HOST is set but EMAIL_FROM and WEB_BASE_URL are not"}},
		{name: "only EMAIL_FROM", env: vars{"EMAIL_FROM": "a@example.com"},
			err: []string{"EMAIL_FROM is set but SMTP_HOST and WEB_BASE_URL are not"}},
		{name: "only WEB_BASE_URL", env: vars{"WEB_BASE_URL": "https://journal.example.com"},
			err: []string{"WEB_BASE_URL is set but SMTP_HOST and EMAIL_FROM are not"}},
		{name: "missing WEB_BASE_URL", env: vars{"SMTP_HOST": "h", "EMAIL_FROM": "a@example.com"},
			err: []string{"SMTP_HOST and EMAIL_FROM are set but WEB_BASE_URL is not"}},
		{name: "missing SMTP_HOST", env: trio.with(vars{"SMTP_HOST": ""}),
			err: []string{"EMAIL_FROM and WEB_BASE_URL are set but SMTP_HOST is not"}},
		{name: "whitespace SMTP_HOST counts as unset", env: trio.with(vars{"SMTP_HOST": "  "}),
			err: []string{"but SMTP_HOST is not"}},
		{name: "user and password", env: trio.with(vars{"SMTP_USER": "u", "SMTP_PASS": "p"}), check: func(t *testing.T, c Config) {
			equal(t, "SMTPUser", c.Email.SMTPUser, "u")
			equal(t, "SMTPPass", c.Email.SMTPPass, "p")
		}},
		{name: "SMTP_USER without SMTP_PASS", env: trio.with(vars{"SMTP_USER": "u"}),
			err: []string{"SMTP_USER is set but SMTP_PASS is not"}},
		{name: "SMTP_PASS without SMTP_USER", env: trio.with(vars{"SMTP_PASS": "p"}),
			err: []string{"SMTP_PASS is set but SMTP_USER is not"}},
		{name: "SMTP_USER without SMTP_PASS, email off", env: vars{"SMTP_USER": "u"},
			err: []string{"SMTP_USER is set but SMTP_PASS is not"}},
		{name: "tls implicit", env: trio.with(vars{"SMTP_TLS_MODE": "implicit"}), check: func(t *testing.T, c Config) {
			equal(t, "TLSMode", c.Email.TLSMode, "implicit")
		}},
		{name: "tls none", env: trio.with(vars{"SMTP_TLS_MODE": "none"}), check: func(t *testing.T, c Config) {
			equal(t, "TLSMode", c.Email.TLSMode, "none")
		}},
		{name: "tls starttls", env: trio.with(vars{"SMTP_TLS_MODE": "starttls"}), check: func(t *testing.T, c Config) {
			equal(t, "TLSMode", c.Email.TLSMode, "starttls")
		}},
		{name: "tls empty is the default", env: trio.with(vars{"SMTP_TLS_MODE": ""}), check: func(t *testing.T, c Config) {
			equal(t, "TLSMode", c.Email.TLSMode, "starttls")
		}},
		{name: "tls upper case", env: trio.with(vars{"SMTP_TLS_MODE": "STARTTLS"}),
			err: []string{`SMTP_TLS_MODE must be one of implicit, starttls, none, got "STARTTLS"`}},
		{name: "tls ssl", env: vars{"SMTP_TLS_MODE": "ssl"}, err: []string{`SMTP_TLS_MODE`, `"ssl"`}},
		{name: "from name", env: trio.with(vars{"EMAIL_FROM_NAME": "Trade Journal"}), check: func(t *testing.T, c Config) {
			equal(t, "FromName", c.Email.FromName, "Trade Journal")
		}},
		{name: "from name with LF", env: trio.with(vars{"EMAIL_FROM_NAME": "Journal\nBcc: x@evil.test"}),
			err: []string{"EMAIL_FROM_NAME must not contain a line break"}},
		{name: "from name with CR", env: trio.with(vars{"EMAIL_FROM_NAME": "Journal\rX"}),
			err: []string{"EMAIL_FROM_NAME must not contain a line break"}},
		{name: "from with display name", env: trio.with(vars{"EMAIL_FROM": "Journal <noreply@example.com>"}),
			err: []string{"EMAIL_FROM must be a bare email address"}},
		{name: "from not an address", env: trio.with(vars{"EMAIL_FROM": "noreply"}),
			err: []string{`EMAIL_FROM must be a bare email address`, `"noreply"`}},
		{name: "from is trimmed", env: trio.with(vars{"EMAIL_FROM": " noreply@example.com "}), check: func(t *testing.T, c Config) {
			equal(t, "From", c.Email.From, "noreply@example.com")
		}},
	})
}

func TestWebBaseURL(t *testing.T) {
	base := func(s string) vars { return emailTrio.with(vars{"WEB_BASE_URL": s}) }
	accepts := func(in, want string) ruleCase {
		return ruleCase{name: "accepts " + in, env: base(in), check: func(t *testing.T, c Config) {
			equal(t, "WebBaseURL", c.Email.WebBaseURL, want)
		}}
	}
	refuses := func(in, why string) ruleCase {
		return ruleCase{name: "refuses " + in, env: base(in), err: []string{"WEB_BASE_URL " + why}}
	}
	runRules(t, []ruleCase{
		accepts("https://journal.example.com", "https://journal.example.com"),
		accepts("https://journal.example.com/", "https://journal.example.com"),
		accepts("http://localhost:8080", "http://localhost:8080"),
		accepts("http://192.168.1.10:3000/", "http://192.168.1.10:3000"),
		accepts("HTTPS://Journal.Example.COM", "https://journal.example.com"),
		accepts("https://journal.example.com:443", "https://journal.example.com"),
		accepts("http://[::1]:8080", "http://[::1]:8080"),
		refuses("https://journal.example.com/app", "must be an origin only"),
		refuses("https://journal.example.com//", "must be an origin only"),
		refuses("https://journal.example.com?x=1", "must be an origin only"),
		refuses("https://journal.example.com/#top", "must be an origin only"),
		refuses("ftp://journal.example.com", "must start with http:// or https://"),
		refuses("journal.example.com", "must start with http:// or https://"),
		refuses("https://", "must name a host"),
		refuses("https://journal.example.com:99999", "has an invalid port"),
		refuses("https://user:pw@journal.example.com", "must not contain credentials"),
	})
}

func TestEncryption(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "unset", env: vars{}, check: func(t *testing.T, c Config) {
			equal(t, "Key is nil", c.Encryption.Key == nil, true)
		}},
		{name: "padded base64", env: vars{"ENCRYPTION_KEY": key1Std}, check: func(t *testing.T, c Config) {
			equal(t, "Key", string(c.Encryption.Key), string(key1))
		}},
		{name: "unpadded base64", env: vars{"ENCRYPTION_KEY": key1Raw}, check: func(t *testing.T, c Config) {
			equal(t, "Key", string(c.Encryption.Key), string(key1))
		}},
		{name: "surrounding whitespace", env: vars{"ENCRYPTION_KEY": " " + key1Std + "\n"}, check: func(t *testing.T, c Config) {
			equal(t, "Key", string(c.Encryption.Key), string(key1))
		}},
		{name: "key with slashes", env: vars{"ENCRYPTION_KEY": key2Std}, check: func(t *testing.T, c Config) {
			equal(t, "Key", string(c.Encryption.Key), string(key2))
		}},
		{name: "url-safe alphabet", env: vars{"ENCRYPTION_KEY": strings.ReplaceAll(key2Std, "/", "_")},
			err: []string{"ENCRYPTION_KEY must be standard base64 of exactly 32 bytes", "not valid base64"}},
		{name: "not base64", env: vars{"ENCRYPTION_KEY": "this is not base64!"},
			err: []string{"ENCRYPTION_KEY must be standard base64", "not valid base64"}},
		{name: "16 bytes", env: vars{"ENCRYPTION_KEY": base64.StdEncoding.EncodeToString(seq(16))},
			err: []string{"ENCRYPTION_KEY must be standard base64 of exactly 32 bytes", "decodes to 16 bytes"}},
		{name: "33 bytes", env: vars{"ENCRYPTION_KEY": base64.StdEncoding.EncodeToString(seq(33))},
			err: []string{"decodes to 33 bytes"}},
		{name: "hex instead of base64", env: vars{"ENCRYPTION_KEY": hex.EncodeToString(key1)},
			err: []string{"ENCRYPTION_KEY must be standard base64"}},
		{name: "previous key", env: vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_PREVIOUS": key2Std}, check: func(t *testing.T, c Config) {
			equal(t, "PreviousKey", string(c.Encryption.PreviousKey), string(key2))
		}},
		{name: "previous key invalid", env: vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_PREVIOUS": "short"},
			err: []string{"ENCRYPTION_KEY_PREVIOUS must be standard base64"}},
		{name: "previous key without key", env: vars{"ENCRYPTION_KEY_PREVIOUS": key2Std},
			err: []string{"ENCRYPTION_KEY_PREVIOUS is set but ENCRYPTION_KEY is not"}},
		{name: "fingerprint matches", env: vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_FINGERPRINT": key1Print}, check: func(t *testing.T, c Config) {
			equal(t, "Fingerprint", c.Encryption.Fingerprint, key1Print)
		}},
		{name: "fingerprint upper case", env: vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_FINGERPRINT": strings.ToUpper(key1Print)}, check: func(t *testing.T, c Config) {
			equal(t, "Fingerprint", c.Encryption.Fingerprint, key1Print)
		}},
		{name: "fingerprint empty is unset", env: vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_FINGERPRINT": ""}},
		{name: "fingerprint of another key", env: vars{"ENCRYPTION_KEY": key2Std, "ENCRYPTION_KEY_FINGERPRINT": key1Print},
			err: []string{"ENCRYPTION_KEY_FINGERPRINT does not match ENCRYPTION_KEY"}},
		{name: "fingerprint of the base64 text", env: vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_FINGERPRINT": fingerprint([]byte(key1Std))},
			err: []string{"ENCRYPTION_KEY_FINGERPRINT does not match"}},
		{name: "fingerprint without key", env: vars{"ENCRYPTION_KEY_FINGERPRINT": key1Print},
			err: []string{"ENCRYPTION_KEY_FINGERPRINT is set but ENCRYPTION_KEY is not"}},
		{name: "fingerprint with blank key", env: vars{"ENCRYPTION_KEY": "  ", "ENCRYPTION_KEY_FINGERPRINT": key1Print},
			err: []string{"ENCRYPTION_KEY_FINGERPRINT is set but ENCRYPTION_KEY is not"}},
	})
}

func TestCORS(t *testing.T) {
	origins := func(want ...string) func(*testing.T, Config) {
		return func(t *testing.T, c Config) {
			if !slices.Equal(c.CORS.AllowedOrigins, want) {
				t.Errorf("AllowedOrigins = %q, want %q", c.CORS.AllowedOrigins, want)
			}
			equal(t, "SplitOrigin", c.CORS.SplitOrigin(), len(want) > 0)
		}
	}
	cors := func(s string) vars { return vars{"CORS_ALLOWED_ORIGINS": s} }
	runRules(t, []ruleCase{
		{name: "unset", env: vars{}, check: origins()},
		{name: "empty", env: cors(""), check: origins()},
		{name: "only separators", env: cors(" , ,"), check: origins()},
		{name: "one", env: cors("https://app.example.com"), check: origins("https://app.example.com")},
		{name: "two trimmed, empties dropped", env: cors(" https://a.example.com ,, https://b.example.com:8443 ,"),
			check: origins("https://a.example.com", "https://b.example.com:8443")},
		{name: "normalised like the Origin header", env: cors("HTTPS://App.Example.com:443/"), check: origins("https://app.example.com")},
		{name: "http on localhost", env: cors("http://localhost:5173"), check: origins("http://localhost:5173")},
		{name: "http on 127.0.0.1", env: cors("http://127.0.0.1:8080"), check: origins("http://127.0.0.1:8080")},
		{name: "http on ::1", env: cors("http://[::1]:8080"), check: origins("http://[::1]:8080")},
		{name: "star", env: cors("*"), err: []string{`CORS_ALLOWED_ORIGINS must list exact origins: "*" is not allowed`}},
		{name: "star among others", env: cors("https://a.example.com, *"), err: []string{`CORS_ALLOWED_ORIGINS must list exact origins`}},
		{name: "path", env: cors("https://a.example.com/app"), err: []string{`CORS_ALLOWED_ORIGINS entry must be an origin only`, `"https://a.example.com/app"`}},
		{name: "no scheme", env: cors("a.example.com"), err: []string{`CORS_ALLOWED_ORIGINS entry must start with http:// or https://`}},
		{name: "null", env: cors("null"), err: []string{`CORS_ALLOWED_ORIGINS entry`}},
		{name: "plain http on a public host", env: cors("http://a.example.com"), err: []string{`CORS_ALLOWED_ORIGINS entry must use https`}},
		{name: "bad second entry", env: cors("https://a.example.com,https://b.example.com?x"), err: []string{`CORS_ALLOWED_ORIGINS entry must be an origin only`}},
	})
}

func TestBillingAndSwitches(t *testing.T) {
	keys := vars{"PAYMENT_SECRET_KEY": "sk_test_1", "PAYMENT_WEBHOOK_SECRET": "whsec_1"}
	flags := func(configured, webhook, pro bool) func(*testing.T, Config) {
		return func(t *testing.T, c Config) {
			equal(t, "Configured", c.Billing.Configured(), configured)
			equal(t, "WebhookEnabled", c.Billing.WebhookEnabled(), webhook)
			equal(t, "ProPlanEnabled", c.Billing.ProPlanEnabled(), pro)
		}
	}
	runRules(t, []ruleCase{
		{name: "billing off", env: vars{}, check: flags(false, false, false)},
		{name: "secret key only", env: vars{"PAYMENT_SECRET_KEY": "sk"}, check: flags(true, false, false)},
		{name: "webhook secret only", env: vars{"PAYMENT_WEBHOOK_SECRET": "wh"}, check: flags(false, false, false)},
		{name: "both keys", env: keys, check: flags(true, true, false)},
		{name: "pro price", env: keys.with(vars{"PAYMENT_PRO_PRICE_ID": "price_1"}), check: flags(true, true, true)},
		{name: "empty pro price reads as unset", env: keys.with(vars{"PAYMENT_PRO_PRICE_ID": ""}), check: flags(true, true, false)},
		{name: "pro price without webhook", env: vars{"PAYMENT_SECRET_KEY": "sk", "PAYMENT_PRO_PRICE_ID": "price_1"}, check: flags(true, false, false)},
		{name: "credit packs JSON", env: vars{"CREDIT_PACKS": `[{"id":"small","credits":100}]`}, check: func(t *testing.T, c Config) {
			equal(t, "CreditPacks", c.Billing.CreditPacks, `[{"id":"small","credits":100}]`)
		}},
		{name: "credit packs not JSON", env: vars{"CREDIT_PACKS": `[{"id":`}, err: []string{"CREDIT_PACKS must be valid JSON"}},
		{name: "payment API base URL", env: vars{"PAYMENT_API_BASE_URL": "http://localhost:12111"}, check: func(t *testing.T, c Config) {
			equal(t, "APIBaseURL", c.Billing.APIBaseURL, "http://localhost:12111")
		}},
		{name: "payment API base URL without scheme", env: vars{"PAYMENT_API_BASE_URL": "localhost:12111"},
			err: []string{"PAYMENT_API_BASE_URL must be an absolute http or https URL"}},
		{name: "quote base URL", env: vars{"STOCK_QUOTE_BASE_URL": "http://127.0.0.1:9999/api"}, check: func(t *testing.T, c Config) {
			equal(t, "QuoteBaseURL", c.Market.QuoteBaseURL, "http://127.0.0.1:9999/api")
		}},
		{name: "quote base URL relative", env: vars{"STOCK_QUOTE_BASE_URL": "/api"}, err: []string{"STOCK_QUOTE_BASE_URL must be an absolute"}},
		{name: "SEC tickers URL", env: vars{"SEC_TICKERS_URL": "http://127.0.0.1:9999/t.json"}, check: func(t *testing.T, c Config) {
			equal(t, "SECTickersURL", c.Market.SECTickersURL, "http://127.0.0.1:9999/t.json")
		}},
		{name: "SEC tickers URL bad", env: vars{"SEC_TICKERS_URL": "file:///etc/passwd"}, err: []string{"SEC_TICKERS_URL must be an absolute"}},
		{name: "SEC user agent", env: vars{"SEC_USER_AGENT": "Acme ops@acme.test"}, check: func(t *testing.T, c Config) {
			equal(t, "SECUserAgent", c.Market.SECUserAgent, "Acme ops@acme.test")
		}},
		{name: "analytics host empty reads as the default", env: vars{"ANALYTICS_HOST": ""}, check: func(t *testing.T, c Config) {
			equal(t, "Host", c.Analytics.Host, "https://us.i.posthog.com")
		}},
		{name: "analytics host set", env: vars{"ANALYTICS_HOST": "https://eu.i.posthog.com"}, check: func(t *testing.T, c Config) {
			equal(t, "Host", c.Analytics.Host, "https://eu.i.posthog.com")
		}},
		{name: "analytics host not a URL", env: vars{"ANALYTICS_HOST": "eu.i.posthog.com"}, err: []string{"ANALYTICS_HOST must be an absolute"}},
		{name: "newsletter URL", env: vars{"NEWSLETTER_URL": "https://news.example.com/join"}, check: func(t *testing.T, c Config) {
			equal(t, "NewsletterURL", c.Web.NewsletterURL, "https://news.example.com/join")
		}},
		{name: "newsletter URL bad", env: vars{"NEWSLETTER_URL": "javascript:alert(1)"}, err: []string{"NEWSLETTER_URL must be an absolute"}},
		{name: "seed admin email normalised", env: vars{"SEED_ADMIN_EMAIL": "  Admin@Example.COM "}, check: func(t *testing.T, c Config) {
			equal(t, "SeedAdminEmail", c.Accounts.SeedAdminEmail, "admin@example.com")
		}},
		{name: "seed admin email invalid", env: vars{"SEED_ADMIN_EMAIL": "admin"}, err: []string{`SEED_ADMIN_EMAIL must be an email address, got "admin"`}},
		{name: "metrics", env: vars{"METRICS_ENABLED": "true", "METRICS_HOST": "127.0.0.1", "METRICS_PORT": "9500"}, check: func(t *testing.T, c Config) {
			equal(t, "Enabled", c.Metrics.Enabled, true)
			equal(t, "Host", c.Metrics.Host, "127.0.0.1")
			equal(t, "Port", c.Metrics.Port, 9500)
		}},
	})
}

func TestDB(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "migrations use the direct URL", env: vars{"DATABASE_URL": "postgres://pool/db", "DIRECT_DATABASE_URL": "postgres://direct/db"}, check: func(t *testing.T, c Config) {
			equal(t, "URL", c.DB.URL, "postgres://pool/db")
			equal(t, "MigrationURL", c.DB.MigrationURL(), "postgres://direct/db")
		}},
		{name: "migrations fall back to DATABASE_URL", env: vars{"DATABASE_URL": "postgres://pool/db"}, check: func(t *testing.T, c Config) {
			equal(t, "MigrationURL", c.DB.MigrationURL(), "postgres://pool/db")
		}},
		{name: "nothing set", env: vars{}, check: func(t *testing.T, c Config) {
			equal(t, "MigrationURL", c.DB.MigrationURL(), "")
		}},
		{name: "pooler and password", env: vars{"DB_TRANSACTION_POOLER": "true", "DB_PASSWORD": "pw"}, check: func(t *testing.T, c Config) {
			equal(t, "TransactionPooler", c.DB.TransactionPooler, true)
			equal(t, "Password", c.DB.Password, "pw")
		}},
	})
}

func TestObjectStorage(t *testing.T) {
	all := vars{
		"OBJECT_STORAGE_ENDPOINT":          "http://127.0.0.1:9000",
		"OBJECT_STORAGE_BUCKET":            "images",
		"OBJECT_STORAGE_ACCESS_KEY_ID":     "AKID",
		"OBJECT_STORAGE_SECRET_ACCESS_KEY": "SECRET",
	}
	state := func(enabled, partial bool) func(*testing.T, Config) {
		return func(t *testing.T, c Config) {
			equal(t, "Enabled", c.Storage.Enabled(), enabled)
			equal(t, "Partial", c.Storage.Partial(), partial)
		}
	}
	tests := []ruleCase{
		{name: "none", env: vars{}, check: state(false, false)},
		{name: "all four", env: all, check: state(true, false)},
		{name: "region alone is not partial", env: vars{"OBJECT_STORAGE_REGION": "us-east-1"}, check: state(false, false)},
		{name: "missing named", env: vars{"OBJECT_STORAGE_BUCKET": "b", "OBJECT_STORAGE_SECRET_ACCESS_KEY": "s"}, check: func(t *testing.T, c Config) {
			equal(t, "Missing", strings.Join(c.Storage.Missing(), ","), "OBJECT_STORAGE_ENDPOINT,OBJECT_STORAGE_ACCESS_KEY_ID")
		}},
		{name: "endpoint not a URL", env: all.with(vars{"OBJECT_STORAGE_ENDPOINT": "minio:9000"}), err: []string{"OBJECT_STORAGE_ENDPOINT must be an absolute http or https URL"}},
		{name: "endpoint with credentials not echoed", env: all.with(vars{"OBJECT_STORAGE_ENDPOINT": "s3://k:topsecret@host"}), err: []string{"OBJECT_STORAGE_ENDPOINT", "value not shown"}},
		{name: "path style off", env: all.with(vars{"OBJECT_STORAGE_FORCE_PATH_STYLE": "false", "OBJECT_STORAGE_REGION": "eu"}), check: func(t *testing.T, c Config) {
			equal(t, "ForcePathStyle", c.Storage.ForcePathStyle, false)
			equal(t, "Region", c.Storage.Region, "eu")
		}},
	}
	for k := range all {
		tests = append(tests, ruleCase{name: "without " + k, env: all.with(vars{k: ""}), check: state(false, true)})
		tests = append(tests, ruleCase{name: "only " + k, env: vars{k: all[k]}, check: state(false, true)})
	}
	runRules(t, tests)
}

// TestProblemsJoined checks that all problems come back at once, on one
// line, each variable at most once.
func TestProblemsJoined(t *testing.T) {
	msg := wantErr(t, vars{
		"DISABLE_REGISTRATION": "yes",
		"DB_POOL_SIZE":         "abc",
		"SMTP_PORT":            "0",
		"SMTP_USER":            "u",
		"RESERVATION_TTL_MS":   "480000",
	})
	want := []string{
		`DB_POOL_SIZE must be a whole number, got "abc"`,
		`DISABLE_REGISTRATION must be exactly "true" or "false", got "yes"`,
		`SMTP_PORT must be between 1 and 65535, got 0`,
		`RESERVATION_TTL_MS must be greater than 480000, got 480000`,
		`SMTP_USER is set but SMTP_PASS is not (set both or neither)`,
	}
	got := strings.Split(msg, "; ")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%q\nwant:\n%q", got, want)
	}
}

// TestNoSecretInErrors sets secret variables to marked values, breaks them
// or their neighbours, and requires that no marked value reaches the error.
func TestNoSecretInErrors(t *testing.T) {
	const mark = "S3cr3tMark"
	tests := []struct {
		name string
		env  vars
		key  string // the variable the error must name
	}{
		{"invalid encryption key", vars{"ENCRYPTION_KEY": mark + "!!"}, "ENCRYPTION_KEY"},
		{"short encryption key", vars{"ENCRYPTION_KEY": base64.StdEncoding.EncodeToString([]byte(mark))}, "ENCRYPTION_KEY"},
		{"invalid previous key", vars{"ENCRYPTION_KEY": key1Std, "ENCRYPTION_KEY_PREVIOUS": mark}, "ENCRYPTION_KEY_PREVIOUS"},
		{"fingerprint mismatch", vars{"ENCRYPTION_KEY": key2Std, "ENCRYPTION_KEY_FINGERPRINT": key1Print}, "ENCRYPTION_KEY_FINGERPRINT"},
		{"SMTP_PASS alone", vars{"SMTP_PASS": mark}, "SMTP_PASS"},
		{"credentials in WEB_BASE_URL", emailTrio.with(vars{"WEB_BASE_URL": "https://u:" + mark + "@journal.example.com/x"}), "WEB_BASE_URL"},
		{"credentials in a CORS origin", vars{"CORS_ALLOWED_ORIGINS": "https://u:" + mark + "@a.example.com"}, "CORS_ALLOWED_ORIGINS"},
		{"credentials in a base URL", vars{"PAYMENT_API_BASE_URL": "ftp://u:" + mark + "@x"}, "PAYMENT_API_BASE_URL"},
		{"assistant key without a model", vars{"ASSISTANT_API_KEY": mark}, "ASSISTANT_API_KEY"},
		{"assistant key with a bad price", vars{"ASSISTANT_API_KEY": mark, "ASSISTANT_MODEL": "m",
			"ASSISTANT_INPUT_PRICE_PER_MTOK": "x", "ASSISTANT_OUTPUT_PRICE_PER_MTOK": "1"}, "ASSISTANT_INPUT_PRICE_PER_MTOK"},
		{"every secret set, one unrelated problem", vars{
			"DB_PASSWORD":                      mark + "db",
			"DATABASE_URL":                     "postgres://u:" + mark + "url@db/x",
			"DIRECT_DATABASE_URL":              "postgres://u:" + mark + "direct@db/x",
			"PAYMENT_SECRET_KEY":               mark + "sk",
			"PAYMENT_WEBHOOK_SECRET":           mark + "wh",
			"SMTP_USER":                        "u",
			"SMTP_PASS":                        mark + "smtp",
			"STORE_URL":                        "redis://:" + mark + "store@redis:6379",
			"OBJECT_STORAGE_ACCESS_KEY_ID":     mark + "akid",
			"OBJECT_STORAGE_SECRET_ACCESS_KEY": mark + "sak",
			"ANALYTICS_API_KEY":                mark + "an",
			"STOCK_QUOTE_API_KEY":              mark + "q",
			"ASSISTANT_API_KEY":                mark + "ai",
			"DB_POOL_SIZE":                     "abc",
		}, "DB_POOL_SIZE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := wantErr(t, tt.env, tt.key)
			secrets := []string{mark, key1Std, key1Raw, key2Std, string(key1), string(key2)}
			for _, s := range secrets {
				if strings.Contains(msg, s) {
					t.Errorf("error %q contains the secret %q", msg, s)
				}
			}
		})
	}
}

func TestSecrets(t *testing.T) {
	c := mustLoad(t, emailTrio.with(vars{
		"DB_PASSWORD":                      "dbpw",
		"DATABASE_URL":                     "postgres://app:p%40ss@db:5432/journal?sslmode=disable",
		"DIRECT_DATABASE_URL":              "host=db user=app password='dir ect' dbname=journal",
		"PAYMENT_SECRET_KEY":               "sk_test_x",
		"PAYMENT_WEBHOOK_SECRET":           "whsec_x",
		"PAYMENT_PUBLISHABLE_KEY":          "pk_test_public",
		"SMTP_USER":                        "mailer",
		"SMTP_PASS":                        "smtppw",
		"STORE_URL":                        "redis://:storepw@redis:6379/0",
		"OBJECT_STORAGE_ENDPOINT":          "http://minio:9000",
		"OBJECT_STORAGE_BUCKET":            "images",
		"OBJECT_STORAGE_ACCESS_KEY_ID":     "AKIDX",
		"OBJECT_STORAGE_SECRET_ACCESS_KEY": "sakx",
		"ANALYTICS_API_KEY":                "phc_backend",
		"ANALYTICS_PUBLIC_KEY":             "phc_public",
		"STOCK_QUOTE_API_KEY":              "quotekey",
		"ASSISTANT_API_KEY":                "sk-assistant",
		"ASSISTANT_MODEL":                  "model-public",
		"ASSISTANT_INPUT_PRICE_PER_MTOK":   "150000",
		"ASSISTANT_OUTPUT_PRICE_PER_MTOK":  "600000",
		"ENCRYPTION_KEY":                   key1Std,
		"ENCRYPTION_KEY_PREVIOUS":          key2Std,
	}))
	got := c.Secrets()
	for _, want := range []string{
		"dbpw", "p@ss", "p%40ss", "dir ect", "sk_test_x", "whsec_x", "smtppw",
		"redis://:storepw@redis:6379/0", "storepw", "AKIDX", "sakx", "phc_backend", "quotekey", "sk-assistant",
		key1Std, key1Raw, key2Std,
	} {
		t.Run("has "+want, func(t *testing.T) {
			if !slices.Contains(got, want) {
				t.Errorf("Secrets() = %q, missing %q", got, want)
			}
		})
	}
	for _, not := range []string{"", "pk_test_public", "mailer", "phc_public", "images", "app", "model-public"} {
		t.Run("lacks "+not, func(t *testing.T) {
			if slices.Contains(got, not) {
				t.Errorf("Secrets() = %q, should not contain %q", got, not)
			}
		})
	}
	t.Run("no duplicates", func(t *testing.T) {
		if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
			t.Errorf("Secrets() has duplicates: %q", got)
		}
	})
}

func TestDSNPasswords(t *testing.T) {
	tests := []struct {
		name, dsn string
		want      []string
	}{
		{"empty", "", nil},
		{"url without password", "postgres://app@db/x", nil},
		{"url", "postgres://app:pw@db/x", []string{"pw", "pw"}},
		{"postgresql scheme", "postgresql://app:pw@db/x", []string{"pw", "pw"}},
		{"escaped", "postgres://app:a%2Fb@db/x", []string{"a/b", "a%2Fb"}},
		{"query parameter", "postgres://db/x?password=qpw", []string{"qpw"}},
		{"keyword form", "host=db password=kpw user=app", []string{"kpw"}},
		{"keyword form, quoted", `host=db password='a b\'c'`, []string{"a b'c"}},
		{"keyword form, spaces around =", "password = spw host=db", []string{"spw"}},
		{"keyword form, no password", "host=db user=app", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := dsnPasswords(tt.dsn); !slices.Equal(got, tt.want) {
				t.Errorf("dsnPasswords(%q) = %q, want %q", tt.dsn, got, tt.want)
			}
		})
	}
}

// TestLoad reads the real process environment; every known variable is
// blanked first so the machine's own environment cannot interfere.
func TestLoad(t *testing.T) {
	var keys []string
	if _, err := LoadFrom(func(k string) (string, bool) { keys = append(keys, k); return "", false }); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		t.Setenv(k, "")
	}
	t.Setenv("PORT", "4321")
	t.Setenv("DISABLE_REGISTRATION", "true")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "Port", c.Port, 4321)
	equal(t, "DisableRegistration", c.Accounts.DisableRegistration, true)

	t.Setenv("DISABLE_REGISTRATION", "1")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "DISABLE_REGISTRATION") {
		t.Errorf("Load() error = %v, want one naming DISABLE_REGISTRATION", err)
	}
}

func TestAssistant(t *testing.T) {
	on := vars{"ASSISTANT_API_KEY": "k", "ASSISTANT_MODEL": "m",
		"ASSISTANT_INPUT_PRICE_PER_MTOK": "150000", "ASSISTANT_OUTPUT_PRICE_PER_MTOK": "600000"}

	t.Run("OffByDefault", func(t *testing.T) {
		c := mustLoad(t, vars{})
		if c.Assistant.Enabled() {
			t.Fatal("assistant on with nothing set")
		}
		if c.Assistant.BaseURL != "https://api.openai.com/v1" || c.Assistant.TurnBudget != 480*time.Second {
			t.Fatalf("defaults %+v", c.Assistant)
		}
	})
	t.Run("EmptyBaseURLIsTheDefault", func(t *testing.T) {
		if c := mustLoad(t, on.with(vars{"ASSISTANT_BASE_URL": ""})); c.Assistant.BaseURL != "https://api.openai.com/v1" {
			t.Fatalf("base URL %q", c.Assistant.BaseURL)
		}
	})
	t.Run("On", func(t *testing.T) {
		c := mustLoad(t, on.with(vars{"ASSISTANT_BASE_URL": "http://127.0.0.1:3401/v1/"}))
		a := c.Assistant
		if !a.Enabled() || a.InputPrice != 150000 || a.OutputPrice != 600000 || a.BaseURL != "http://127.0.0.1:3401/v1" {
			t.Fatalf("got %+v", a)
		}
	})
	t.Run("SingleModelIsAOneModelList", func(t *testing.T) {
		a := mustLoad(t, on).Assistant
		want := []AssistantModel{{ID: "m", Provider: "openai", BaseURL: "https://api.openai.com/v1", InputPrice: 150000, OutputPrice: 600000}}
		if !reflect.DeepEqual(a.Models, want) {
			t.Fatalf("models %+v", a.Models)
		}
	})
	t.Run("Models", func(t *testing.T) {
		a := mustLoad(t, vars{"ASSISTANT_API_KEY": "k", "ASSISTANT_ANTHROPIC_API_KEY": "ak",
			"ASSISTANT_MODELS": `[{"id":"gpt","provider":"openai","inputPricePerMtok":1,"outputPricePerMtok":2,"images":true},
				{"id":"claude","provider":"anthropic","baseUrl":"http://127.0.0.1:9/v1/","inputPricePerMtok":3,"outputPricePerMtok":4}]`}).Assistant
		want := []AssistantModel{
			{ID: "gpt", Provider: "openai", BaseURL: "https://api.openai.com/v1", InputPrice: 1, OutputPrice: 2, Images: true},
			{ID: "claude", Provider: "anthropic", BaseURL: "http://127.0.0.1:9/v1", InputPrice: 3, OutputPrice: 4},
		}
		if !a.Enabled() || !reflect.DeepEqual(a.Models, want) {
			t.Fatalf("models %+v", a.Models)
		}
	})
	t.Run("OwnKeysAloneTurnItOn", func(t *testing.T) {
		if a := mustLoad(t, vars{"ASSISTANT_OWN_KEYS": "true"}).Assistant; !a.Enabled() || len(a.Models) != 0 {
			t.Fatalf("got %+v", a)
		}
	})
	t.Run("PricesIgnoredWhileOffStillChecked", func(t *testing.T) {
		wantErr(t, vars{"ASSISTANT_OUTPUT_PRICE_PER_MTOK": "1.5"}, "ASSISTANT_OUTPUT_PRICE_PER_MTOK must be a whole number")
		if c := mustLoad(t, vars{"ASSISTANT_INPUT_PRICE_PER_MTOK": "5"}); c.Assistant.Enabled() {
			t.Fatal("a price alone turned the assistant on")
		}
	})
	for _, tc := range []struct {
		name string
		env  vars
		want string
	}{
		{"KeyWithoutModel", vars{"ASSISTANT_API_KEY": "k"}, "ASSISTANT_API_KEY is set but ASSISTANT_MODEL is not"},
		{"ModelWithoutKey", vars{"ASSISTANT_MODEL": "m"}, "ASSISTANT_MODEL is set but ASSISTANT_API_KEY is not"},
		{"MissingInputPrice", on.with(vars{"ASSISTANT_INPUT_PRICE_PER_MTOK": ""}), "ASSISTANT_INPUT_PRICE_PER_MTOK is required"},
		{"MissingOutputPrice", on.with(vars{"ASSISTANT_OUTPUT_PRICE_PER_MTOK": ""}), "ASSISTANT_OUTPUT_PRICE_PER_MTOK is required"},
		{"NegativePrice", on.with(vars{"ASSISTANT_INPUT_PRICE_PER_MTOK": "-1"}), "ASSISTANT_INPUT_PRICE_PER_MTOK must be a whole number"},
		{"SignedPrice", on.with(vars{"ASSISTANT_INPUT_PRICE_PER_MTOK": "+1"}), "ASSISTANT_INPUT_PRICE_PER_MTOK must be a whole number"},
		{"DecimalPrice", on.with(vars{"ASSISTANT_OUTPUT_PRICE_PER_MTOK": "0.6"}), "ASSISTANT_OUTPUT_PRICE_PER_MTOK must be a whole number"},
		{"HugePrice", on.with(vars{"ASSISTANT_OUTPUT_PRICE_PER_MTOK": "99999999999999999999"}), "ASSISTANT_OUTPUT_PRICE_PER_MTOK must be a whole number"},
		{"BadBaseURL", on.with(vars{"ASSISTANT_BASE_URL": "api.example.com"}), "ASSISTANT_BASE_URL must be an absolute http or https URL"},
		{"ModelsAndModel", on.with(vars{"ASSISTANT_MODELS": `[{"id":"a","provider":"openai"}]`}), "ASSISTANT_MODELS and ASSISTANT_MODEL are both set"},
		{"ModelsNotJSON", vars{"ASSISTANT_MODELS": "gpt-4o"}, "ASSISTANT_MODELS must be a JSON array"},
		{"ModelsUnknownField", vars{"ASSISTANT_API_KEY": "k", "ASSISTANT_MODELS": `[{"id":"a","provider":"openai","price":1}]`}, "ASSISTANT_MODELS must be a JSON array"},
		{"ModelsEmpty", vars{"ASSISTANT_MODELS": `[]`}, "ASSISTANT_MODELS lists no model"},
		{"ModelsUnknownProvider", vars{"ASSISTANT_MODELS": `[{"id":"a","provider":"gemini"}]`}, `model "a" has provider "gemini"`},
		{"ModelsNoAnthropicKey", vars{"ASSISTANT_MODELS": `[{"id":"c","provider":"anthropic"}]`}, "ASSISTANT_ANTHROPIC_API_KEY is not set"},
		{"ModelsTwice", vars{"ASSISTANT_API_KEY": "k", "ASSISTANT_MODELS": `[{"id":"a","provider":"openai"},{"id":"a","provider":"openai"}]`}, `lists the model "a" twice`},
		{"ModelsNegativePrice", vars{"ASSISTANT_API_KEY": "k", "ASSISTANT_MODELS": `[{"id":"a","provider":"openai","inputPricePerMtok":-1}]`}, "negative price"},
		{"ModelsKeyPrefix", vars{"ASSISTANT_API_KEY": "k", "ASSISTANT_MODELS": `[{"id":"key:a","provider":"openai"}]`}, `not starting with "key:"`},
		{"OwnKeysNotBool", vars{"ASSISTANT_OWN_KEYS": "yes"}, "ASSISTANT_OWN_KEYS"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantErr(t, tc.env, tc.want) })
	}
}

// TestBarsProviders: BARS_PROVIDERS maps asset types to providers whose
// credentials are set; unset, stocks use Finnhub when its key is.
func TestBarsProviders(t *testing.T) {
	for _, tc := range []struct {
		env  vars
		want map[string]string
		err  string
	}{
		{env: vars{}, want: map[string]string{}},
		{env: vars{"STOCK_QUOTE_API_KEY": "k"}, want: map[string]string{"stock": BarsFinnhub}},
		{env: vars{"BARS_PROVIDERS": "stock=alpaca, crypto=binance", "ALPACA_DATA_KEY_ID": "i", "ALPACA_DATA_SECRET_KEY": "s"},
			want: map[string]string{"stock": BarsAlpaca, "crypto": BarsBinance}},
		{env: vars{"BARS_PROVIDERS": "stock=alpaca"}, err: "BARS_PROVIDERS names alpaca for stock, which needs ALPACA_DATA_KEY_ID and ALPACA_DATA_SECRET_KEY"},
		{env: vars{"BARS_PROVIDERS": "forex=twelvedata"}, err: "needs TWELVE_DATA_API_KEY"},
		{env: vars{"BARS_PROVIDERS": "bonds=binance"}, err: "BARS_PROVIDERS must be a list of asset=provider"},
		{env: vars{"BARS_PROVIDERS": "crypto=kraken"}, err: `unknown provider "kraken"`},
		{env: vars{"BARS_PROVIDERS": "crypto=binance,crypto=binance"}, err: "names crypto twice"},
		{env: vars{"ALPACA_DATA_FEED": "otc"}, err: "ALPACA_DATA_FEED must be iex or sip"},
	} {
		c, err := LoadFrom(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %v", tc.env, err)
			}
			continue
		}
		if err != nil || !maps.Equal(c.Market.Bars.Providers, tc.want) {
			t.Errorf("%v: %v %v", tc.env, c.Market.Bars.Providers, err)
		}
	}
}
