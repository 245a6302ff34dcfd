package config

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/mail"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/shopspring/decimal"

	"tradejournal/shared/buildinfo"
	"tradejournal/shared/httpx"
)

// raw has one field per variable. It is flat, with unique field names, so
// that a parse error (which carries only the field name) maps back to exactly
// one variable. Bools and integers go through the strict parsers of
// parsers(); an empty value counts as unset and takes the default.
type raw struct {
	Port     int    `env:"PORT" envDefault:"3100"`
	LogLevel string `env:"LOG_LEVEL" envDefault:"info"`
	// TrustedProxies is TRUSTED_PROXIES (shared/httpx.ParseProxies).
	TrustedProxies string `env:"TRUSTED_PROXIES"`
	AppVersion     string `env:"APP_VERSION"`

	DatabaseURL         string `env:"DATABASE_URL"`
	DirectDatabaseURL   string `env:"DIRECT_DATABASE_URL"`
	DBPassword          string `env:"DB_PASSWORD"`
	DBTransactionPooler bool   `env:"DB_TRANSACTION_POOLER" envDefault:"false"`
	DBPoolSize          int    `env:"DB_POOL_SIZE" envDefault:"10"`

	DisableRegistration bool   `env:"DISABLE_REGISTRATION" envDefault:"false"`
	SeedAdminEmail      string `env:"SEED_ADMIN_EMAIL"`

	MetricsEnabled bool   `env:"METRICS_ENABLED" envDefault:"false"`
	MetricsPort    int    `env:"METRICS_PORT" envDefault:"9464"`
	MetricsHost    string `env:"METRICS_HOST" envDefault:"0.0.0.0"`

	CSVMaxFileBytes        int64 `env:"CSV_IMPORT_MAX_FILE_BYTES" envDefault:"10485760"`
	CSVMaxRequestBytes     int64 `env:"CSV_IMPORT_MAX_REQUEST_BYTES" envDefault:"65536"`
	CSVMaxRows             int   `env:"CSV_IMPORT_MAX_ROWS" envDefault:"10000"`
	CSVStagingTTLMinutes   int64 `env:"CSV_IMPORT_STAGING_TTL_MINUTES" envDefault:"30"`
	CSVMaxStagedBytes      int64 `env:"CSV_IMPORT_MAX_STAGED_BYTES" envDefault:"25165824"`
	CSVClaimTimeoutSeconds int64 `env:"CSV_IMPORT_CLAIM_TIMEOUT_SECONDS" envDefault:"600"`

	PaymentSecretKey      string `env:"PAYMENT_SECRET_KEY"`
	PaymentWebhookSecret  string `env:"PAYMENT_WEBHOOK_SECRET"`
	PaymentPublishableKey string `env:"PAYMENT_PUBLISHABLE_KEY"`
	PaymentProPriceID     string `env:"PAYMENT_PRO_PRICE_ID"`
	PaymentAPIBaseURL     string `env:"PAYMENT_API_BASE_URL"`
	CreditPacks           string `env:"CREDIT_PACKS"`
	MinReservationCredits int64  `env:"MIN_RESERVATION_CREDITS" envDefault:"1"`
	ReservationTTLMillis  int64  `env:"RESERVATION_TTL_MS" envDefault:"600000"`
	PricingMarkup         string `env:"PRICING_MARKUP" envDefault:"1.2"`

	FreeMaxAccounts      int64 `env:"FREE_MAX_ACCOUNTS"`
	FreeMaxPositions     int64 `env:"FREE_MAX_POSITIONS"`
	FreeMaxStorageBytes  int64 `env:"FREE_MAX_STORAGE_BYTES"`
	FreeMaxImportsPerDay int64 `env:"FREE_MAX_IMPORTS_PER_DAY"`

	AssistantBaseURL     string `env:"ASSISTANT_BASE_URL" envDefault:"https://api.openai.com/v1"`
	AssistantAPIKey      string `env:"ASSISTANT_API_KEY"`
	AssistantModel       string `env:"ASSISTANT_MODEL"`
	AssistantInputPrice  string `env:"ASSISTANT_INPUT_PRICE_PER_MTOK"`
	AssistantOutputPrice string `env:"ASSISTANT_OUTPUT_PRICE_PER_MTOK"`
	AssistantModels      string `env:"ASSISTANT_MODELS"`
	AssistantOwnKeys     bool   `env:"ASSISTANT_OWN_KEYS"`
	AnthropicBaseURL     string `env:"ASSISTANT_ANTHROPIC_BASE_URL" envDefault:"https://api.anthropic.com/v1"`
	AnthropicAPIKey      string `env:"ASSISTANT_ANTHROPIC_API_KEY"`

	StockQuoteAPIKey  string `env:"STOCK_QUOTE_API_KEY"`
	StockQuoteBaseURL string `env:"STOCK_QUOTE_BASE_URL"`
	SECUserAgent      string `env:"SEC_USER_AGENT" envDefault:"TradeJournal self-hosted admin@example.invalid"`
	SECTickersURL     string `env:"SEC_TICKERS_URL" envDefault:"https://www.sec.gov/files/company_tickers_exchange.json"`

	BarsProviders       string `env:"BARS_PROVIDERS"`
	AlpacaDataKeyID     string `env:"ALPACA_DATA_KEY_ID"`
	AlpacaDataSecretKey string `env:"ALPACA_DATA_SECRET_KEY"`
	AlpacaDataBaseURL   string `env:"ALPACA_DATA_BASE_URL" envDefault:"https://data.alpaca.markets"`
	AlpacaDataFeed      string `env:"ALPACA_DATA_FEED" envDefault:"iex"`
	TwelveDataAPIKey    string `env:"TWELVE_DATA_API_KEY"`
	TwelveDataBaseURL   string `env:"TWELVE_DATA_BASE_URL" envDefault:"https://api.twelvedata.com"`
	BinanceBaseURL      string `env:"BINANCE_BASE_URL" envDefault:"https://api.binance.com"`
	TradierAPIKey       string `env:"TRADIER_API_KEY"`
	TradierBaseURL      string `env:"TRADIER_BASE_URL" envDefault:"https://api.tradier.com/v1"`

	SMTPHost      string `env:"SMTP_HOST"`
	EmailFrom     string `env:"EMAIL_FROM"`
	WebBaseURL    string `env:"WEB_BASE_URL"`
	SMTPPort      int    `env:"SMTP_PORT" envDefault:"587"`
	SMTPTLSMode   string `env:"SMTP_TLS_MODE" envDefault:"starttls"`
	SMTPUser      string `env:"SMTP_USER"`
	SMTPPass      string `env:"SMTP_PASS"`
	EmailFromName string `env:"EMAIL_FROM_NAME"`

	AnalyticsAPIKey         string `env:"ANALYTICS_API_KEY"`
	AnalyticsHost           string `env:"ANALYTICS_HOST" envDefault:"https://us.i.posthog.com"`
	AnalyticsEnvironment    string `env:"ANALYTICS_ENVIRONMENT"`
	AnalyticsPublicKey      string `env:"ANALYTICS_PUBLIC_KEY"`
	AnalyticsFeedbackSurvey string `env:"ANALYTICS_PUBLIC_FEEDBACK_SURVEY"`

	StoreURL string `env:"STORE_URL"`

	StorageEndpoint        string `env:"OBJECT_STORAGE_ENDPOINT"`
	StorageBucket          string `env:"OBJECT_STORAGE_BUCKET"`
	StorageAccessKeyID     string `env:"OBJECT_STORAGE_ACCESS_KEY_ID"`
	StorageSecretAccessKey string `env:"OBJECT_STORAGE_SECRET_ACCESS_KEY"`
	StorageRegion          string `env:"OBJECT_STORAGE_REGION"`
	StorageForcePathStyle  bool   `env:"OBJECT_STORAGE_FORCE_PATH_STYLE" envDefault:"true"`

	EncryptionKey         string `env:"ENCRYPTION_KEY"`
	EncryptionKeyPrevious string `env:"ENCRYPTION_KEY_PREVIOUS"`
	EncryptionFingerprint string `env:"ENCRYPTION_KEY_FINGERPRINT"`

	IBKRFlexBaseURL  string `env:"IBKR_FLEX_BASE_URL" envDefault:"https://ndcdyn.interactivebrokers.com/AccountManagement/FlexWebService"`
	AlpacaAPIBaseURL string `env:"ALPACA_API_BASE_URL" envDefault:"https://api.alpaca.markets"`
	KrakenAPIBaseURL string `env:"KRAKEN_API_BASE_URL" envDefault:"https://api.kraken.com"`

	CORSAllowedOrigins string `env:"CORS_ALLOWED_ORIGINS"`
	NewsletterURL      string `env:"NEWSLETTER_URL"`
}

// Fixed values the checks below refer to.
const (
	appVersionVar     = "APP_VERSION"
	unknownVersion    = "unknown"
	turnBudgetMillis  = 480000 // per-turn wall-clock budget; a reservation must outlive it
	encryptionKeySize = 32
)

// problems collects startup errors, at most one per variable, so a value
// that failed to parse is not reported again by a later range check.
type problems struct {
	msgs []string
	bad  map[string]bool
}

// add records a problem with key unless key already has one. The message is
// key followed by the formatted text.
func (p *problems) add(key, format string, args ...any) {
	if p.bad[key] {
		return
	}
	if p.bad == nil {
		p.bad = map[string]bool{}
	}
	p.bad[key] = true
	p.msgs = append(p.msgs, oneLine(key+" "+fmt.Sprintf(format, args...)))
}

func (p *problems) err() error {
	if len(p.msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(p.msgs, "; "))
}

// oneLine keeps a log line whole whatever a wrapped error contains; values
// are already quoted with %q, which escapes line breaks.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// parse reads the variables into raw. It hands env only the variables raw
// declares, looked up one by one, so nothing else of the environment is read.
func parse(lookup func(string) (string, bool), p *problems) (r raw, appVersionSet bool) {
	params, err := env.GetFieldParamsWithOptions(&r, env.Options{Environment: map[string]string{}})
	if err != nil {
		// Only a malformed tag in raw gets here: a programming error.
		p.add("config", "has an invalid declaration: %v", err)
		return r, false
	}
	environ := make(map[string]string, len(params)) // never nil: nil would make env read os.Environ
	for _, fp := range params {
		if v, ok := lookup(fp.Key); ok {
			environ[fp.Key] = v
		}
	}
	_, appVersionSet = environ[appVersionVar]

	err = env.ParseWithOptions(&r, env.Options{Environment: environ, FuncMap: parsers()})
	if err == nil {
		return r, appVersionSet
	}
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		agg.Errors = []error{err}
	}
	rt := reflect.TypeFor[raw]()
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			if f, ok := rt.FieldByName(pe.Name); ok {
				key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
				p.add(key, "%v", pe.Err)
				continue
			}
		}
		p.add("config", "%v", e)
	}
	return r, appVersionSet
}

// parsers replaces env's lenient bool parser (which takes "1", "TRUE", ...)
// and gives integer errors a message that reads after the variable name.
func parsers() map[reflect.Type]env.ParserFunc {
	return map[reflect.Type]env.ParserFunc{
		reflect.TypeFor[bool](): func(s string) (any, error) {
			switch s {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
			return nil, fmt.Errorf("must be exactly \"true\" or \"false\", got %q", s)
		},
		reflect.TypeFor[int](): func(s string) (any, error) {
			n, err := strconv.ParseInt(s, 10, strconv.IntSize)
			if err != nil {
				return nil, intError(s, err)
			}
			return int(n), nil
		},
		reflect.TypeFor[int64](): func(s string) (any, error) {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, intError(s, err)
			}
			return n, nil
		},
	}
}

func intError(s string, err error) error {
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("is out of range, got %q", s)
	}
	return fmt.Errorf("must be a whole number, got %q", s)
}

// build checks raw and turns it into a Config. Checks on a variable that
// failed to parse are skipped by problems.add.
func build(r raw, appVersionSet bool, p *problems) Config {
	c := Config{
		Port:       r.Port,
		LogLevel:   r.LogLevel,
		AppVersion: resolveVersion(r.AppVersion, appVersionSet, buildinfo.Version),
		DB: DB{
			URL:               r.DatabaseURL,
			DirectURL:         r.DirectDatabaseURL,
			Password:          r.DBPassword,
			TransactionPooler: r.DBTransactionPooler,
			PoolSize:          r.DBPoolSize,
		},
		Accounts: Accounts{
			DisableRegistration: r.DisableRegistration,
			SeedAdminEmail:      strings.ToLower(strings.TrimSpace(r.SeedAdminEmail)),
		},
		Metrics: Metrics{Enabled: r.MetricsEnabled, Port: r.MetricsPort, Host: r.MetricsHost},
		CSVImport: CSVImport{
			MaxFileBytes:    r.CSVMaxFileBytes,
			MaxRequestBytes: r.CSVMaxRequestBytes,
			MaxRows:         r.CSVMaxRows,
			MaxStagedBytes:  r.CSVMaxStagedBytes,
		},
		Billing: Billing{
			SecretKey:             r.PaymentSecretKey,
			WebhookSecret:         r.PaymentWebhookSecret,
			PublishableKey:        r.PaymentPublishableKey,
			ProPriceID:            r.PaymentProPriceID,
			APIBaseURL:            r.PaymentAPIBaseURL,
			CreditPacks:           r.CreditPacks,
			MinReservationCredits: r.MinReservationCredits,
		},
		Plans: Plans{
			Accounts:      r.FreeMaxAccounts,
			Positions:     r.FreeMaxPositions,
			StorageBytes:  r.FreeMaxStorageBytes,
			ImportsPerDay: r.FreeMaxImportsPerDay,
		},
		Market: Market{
			QuoteAPIKey:   r.StockQuoteAPIKey,
			QuoteBaseURL:  r.StockQuoteBaseURL,
			SECUserAgent:  r.SECUserAgent,
			SECTickersURL: r.SECTickersURL,
			Bars: Bars{
				AlpacaKeyID: r.AlpacaDataKeyID, AlpacaSecretKey: r.AlpacaDataSecretKey, AlpacaURL: r.AlpacaDataBaseURL, AlpacaFeed: r.AlpacaDataFeed,
				TwelveDataKey: r.TwelveDataAPIKey, TwelveDataURL: r.TwelveDataBaseURL, BinanceURL: r.BinanceBaseURL,
			},
			TradierKey: strings.TrimSpace(r.TradierAPIKey),
			TradierURL: strings.TrimSuffix(strings.TrimSpace(r.TradierBaseURL), "/"),
		},
		Email: Email{
			SMTPHost: strings.TrimSpace(r.SMTPHost),
			From:     strings.TrimSpace(r.EmailFrom),
			SMTPPort: r.SMTPPort,
			TLSMode:  r.SMTPTLSMode,
			SMTPUser: r.SMTPUser,
			SMTPPass: r.SMTPPass,
			FromName: r.EmailFromName,
		},
		Analytics: Analytics{
			APIKey:               r.AnalyticsAPIKey,
			Host:                 r.AnalyticsHost,
			Environment:          r.AnalyticsEnvironment,
			PublicKey:            r.AnalyticsPublicKey,
			PublicFeedbackSurvey: r.AnalyticsFeedbackSurvey,
		},
		Store: Store{URL: r.StoreURL},
		Storage: ObjectStorage{
			Endpoint:        r.StorageEndpoint,
			Bucket:          r.StorageBucket,
			AccessKeyID:     r.StorageAccessKeyID,
			SecretAccessKey: r.StorageSecretAccessKey,
			Region:          r.StorageRegion,
			ForcePathStyle:  r.StorageForcePathStyle,
		},
		Web:        Web{NewsletterURL: r.NewsletterURL},
		BrokerSync: BrokerSync{IBKRFlexURL: r.IBKRFlexBaseURL, AlpacaURL: r.AlpacaAPIBaseURL, KrakenURL: r.KrakenAPIBaseURL},
	}

	// 0 is allowed for the listener ports: tests ask the OS for a free one.
	checkRange(p, "PORT", int64(r.Port), 0, 65535)
	checkRange(p, "METRICS_PORT", int64(r.MetricsPort), 0, 65535)
	checkRange(p, "SMTP_PORT", int64(r.SMTPPort), 1, 65535)
	checkRange(p, "DB_POOL_SIZE", int64(r.DBPoolSize), 1, 1000)
	checkRange(p, "CSV_IMPORT_MAX_FILE_BYTES", r.CSVMaxFileBytes, 1, math.MaxInt64)
	checkRange(p, "CSV_IMPORT_MAX_REQUEST_BYTES", r.CSVMaxRequestBytes, 1, math.MaxInt64)
	checkRange(p, "CSV_IMPORT_MAX_ROWS", int64(r.CSVMaxRows), 1, math.MaxInt64)
	checkRange(p, "CSV_IMPORT_MAX_STAGED_BYTES", r.CSVMaxStagedBytes, 1, math.MaxInt64)
	checkRange(p, "MIN_RESERVATION_CREDITS", r.MinReservationCredits, 0, math.MaxInt64)
	checkRange(p, "FREE_MAX_ACCOUNTS", r.FreeMaxAccounts, 0, math.MaxInt64)
	checkRange(p, "FREE_MAX_POSITIONS", r.FreeMaxPositions, 0, math.MaxInt64)
	checkRange(p, "FREE_MAX_STORAGE_BYTES", r.FreeMaxStorageBytes, 0, math.MaxInt64)
	checkRange(p, "FREE_MAX_IMPORTS_PER_DAY", r.FreeMaxImportsPerDay, 0, math.MaxInt64)
	c.CSVImport.StagingTTL = duration(p, "CSV_IMPORT_STAGING_TTL_MINUTES", r.CSVStagingTTLMinutes, time.Minute, 1)
	c.CSVImport.ClaimTimeout = duration(p, "CSV_IMPORT_CLAIM_TIMEOUT_SECONDS", r.CSVClaimTimeoutSeconds, time.Second, 1)
	c.Billing.ReservationTTL = duration(p, "RESERVATION_TTL_MS", r.ReservationTTLMillis, time.Millisecond, turnBudgetMillis+1)

	switch r.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		p.add("LOG_LEVEL", "must be one of debug, info, warn, error, got %q", r.LogLevel)
	}

	if c.Accounts.SeedAdminEmail != "" && !bareAddress(c.Accounts.SeedAdminEmail) {
		p.add("SEED_ADMIN_EMAIL", "must be an email address, got %q", c.Accounts.SeedAdminEmail)
	}

	c.Billing.PricingMarkup = markup(p, r.PricingMarkup)
	if r.CreditPacks != "" && !json.Valid([]byte(r.CreditPacks)) {
		p.add("CREDIT_PACKS", "must be valid JSON")
	}

	checkHTTPURL(p, "PAYMENT_API_BASE_URL", r.PaymentAPIBaseURL)
	checkHTTPURL(p, "STOCK_QUOTE_BASE_URL", r.StockQuoteBaseURL)
	checkHTTPURL(p, "SEC_TICKERS_URL", r.SECTickersURL)
	checkHTTPURL(p, "ANALYTICS_HOST", r.AnalyticsHost)
	checkHTTPURL(p, "OBJECT_STORAGE_ENDPOINT", r.StorageEndpoint)
	checkHTTPURL(p, "NEWSLETTER_URL", r.NewsletterURL)
	checkHTTPURL(p, "IBKR_FLEX_BASE_URL", r.IBKRFlexBaseURL)
	checkHTTPURL(p, "ALPACA_API_BASE_URL", r.AlpacaAPIBaseURL)
	checkHTTPURL(p, "KRAKEN_API_BASE_URL", r.KrakenAPIBaseURL)
	checkHTTPURL(p, "ALPACA_DATA_BASE_URL", r.AlpacaDataBaseURL)
	checkHTTPURL(p, "TWELVE_DATA_BASE_URL", r.TwelveDataBaseURL)
	checkHTTPURL(p, "BINANCE_BASE_URL", r.BinanceBaseURL)
	checkHTTPURL(p, "TRADIER_BASE_URL", r.TradierBaseURL)
	c.Market.Bars.Providers = barsProviders(p, r)

	c.Assistant = assistant(p, r)
	c.Email.WebBaseURL = checkEmail(p, r, c.Email)
	c.Encryption = encryption(p, r)
	c.CORS.AllowedOrigins = corsOrigins(p, r.CORSAllowedOrigins)
	if _, err := httpx.ParseProxies(r.TrustedProxies); err != nil {
		p.add("TRUSTED_PROXIES", "%v", err)
	}
	c.TrustedProxies = r.TrustedProxies
	return c
}

// resolveVersion picks the reported build version. Unset means the version
// stamped into the binary ("unknown" for local builds); a blank value erases
// it, so an environment file can hide the version from the health endpoint.
func resolveVersion(v string, set bool, stamped string) string {
	if !set {
		if stamped == "" {
			return unknownVersion
		}
		return stamped
	}
	return strings.TrimSpace(v)
}

func checkRange(p *problems, key string, n, lo, hi int64) {
	switch {
	case n < lo && hi == math.MaxInt64:
		p.add(key, "must be at least %d, got %d", lo, n)
	case n < lo || n > hi:
		p.add(key, "must be between %d and %d, got %d", lo, hi, n)
	}
}

// duration converts a count of unit into a Duration of at least lo units,
// refusing counts that would overflow.
func duration(p *problems, key string, n int64, unit time.Duration, lo int64) time.Duration {
	if n < lo {
		if lo == 1 {
			p.add(key, "must be at least 1, got %d", n)
		} else {
			p.add(key, "must be greater than %d, got %d", lo-1, n)
		}
		return 0
	}
	if n > math.MaxInt64/int64(unit) {
		p.add(key, "is out of range, got %d", n)
		return 0
	}
	return time.Duration(n) * unit
}

// plainDecimal is digits with an optional fraction: no sign, no exponent,
// which decimal.NewFromString would otherwise accept.
var plainDecimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

func markup(p *problems, s string) decimal.Decimal {
	d, err := decimal.NewFromString(s)
	if !plainDecimal.MatchString(s) || err != nil || !d.IsPositive() {
		p.add("PRICING_MARKUP", "must be a plain decimal greater than 0 such as 1.2, got %q", s)
		return decimal.Decimal{}
	}
	return d
}

// assistant checks the model providers' settings. Key and model turn the
// single-model setting on together; one without the other is a mistake worth
// stopping for, and a model must know what a token costs, or it would charge
// nothing. ASSISTANT_MODELS replaces ASSISTANT_MODEL with a list.
func assistant(p *problems, r raw) Assistant {
	a := Assistant{
		BaseURL:          strings.TrimSuffix(strings.TrimSpace(r.AssistantBaseURL), "/"),
		APIKey:           strings.TrimSpace(r.AssistantAPIKey),
		Model:            strings.TrimSpace(r.AssistantModel),
		AnthropicBaseURL: strings.TrimSuffix(strings.TrimSpace(r.AnthropicBaseURL), "/"),
		AnthropicAPIKey:  strings.TrimSpace(r.AnthropicAPIKey),
		OwnKeys:          r.AssistantOwnKeys,
		TurnBudget:       turnBudgetMillis * time.Millisecond,
	}
	checkHTTPURL(p, "ASSISTANT_BASE_URL", a.BaseURL)
	checkHTTPURL(p, "ASSISTANT_ANTHROPIC_BASE_URL", a.AnthropicBaseURL)
	list := strings.TrimSpace(r.AssistantModels)
	switch {
	case list != "" && a.Model != "":
		p.add("ASSISTANT_MODELS", "and ASSISTANT_MODEL are both set (list every model in ASSISTANT_MODELS, or set only ASSISTANT_MODEL)")
	case list != "":
		a.Models = assistantModels(p, list, a)
	case a.APIKey != "" && a.Model == "":
		p.add("ASSISTANT_API_KEY", "is set but ASSISTANT_MODEL is not (set both to turn the assistant on, or neither)")
	case a.APIKey == "" && a.Model != "":
		p.add("ASSISTANT_MODEL", "is set but ASSISTANT_API_KEY is not (set both to turn the assistant on, or neither)")
	}
	single := a.Model != "" && a.APIKey != ""
	a.InputPrice = tokenPrice(p, "ASSISTANT_INPUT_PRICE_PER_MTOK", r.AssistantInputPrice, single)
	a.OutputPrice = tokenPrice(p, "ASSISTANT_OUTPUT_PRICE_PER_MTOK", r.AssistantOutputPrice, single)
	if single {
		a.Models = []AssistantModel{{ID: a.Model, Provider: "openai", BaseURL: a.BaseURL, InputPrice: a.InputPrice, OutputPrice: a.OutputPrice}}
	}
	return a
}

// assistantModels reads ASSISTANT_MODELS: a JSON array of
// {id, provider, baseUrl?, inputPricePerMtok, outputPricePerMtok, images?}.
// Each model's provider kind needs the operator's key of that kind.
func assistantModels(p *problems, list string, a Assistant) []AssistantModel {
	const key = "ASSISTANT_MODELS"
	var models []AssistantModel
	dec := json.NewDecoder(strings.NewReader(list))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&models); err != nil || dec.More() {
		p.add(key, "must be a JSON array of {\"id\", \"provider\", \"inputPricePerMtok\", \"outputPricePerMtok\", \"baseUrl\"?, \"images\"?}")
		return nil
	}
	if len(models) == 0 {
		p.add(key, "lists no model (leave it unset to turn the operator's models off)")
	}
	seen := map[string]bool{}
	for i := range models {
		m := &models[i]
		m.ID = strings.TrimSpace(m.ID)
		m.BaseURL = strings.TrimSuffix(strings.TrimSpace(m.BaseURL), "/")
		switch {
		case m.ID == "" || len(m.ID) > 200 || strings.HasPrefix(m.ID, "key:"):
			p.add(key, "model %d needs an id of 1 to 200 characters, not starting with \"key:\"", i+1)
		case seen[m.ID]:
			p.add(key, "lists the model %q twice", m.ID)
		case m.InputPrice < 0 || m.OutputPrice < 0:
			p.add(key, "model %q has a negative price", m.ID)
		}
		seen[m.ID] = true
		switch m.Provider {
		case "openai":
			if a.APIKey == "" {
				p.add(key, "model %q is an openai model but ASSISTANT_API_KEY is not set", m.ID)
			}
			if m.BaseURL == "" {
				m.BaseURL = a.BaseURL
			}
		case "anthropic":
			if a.AnthropicAPIKey == "" {
				p.add(key, "model %q is an anthropic model but ASSISTANT_ANTHROPIC_API_KEY is not set", m.ID)
			}
			if m.BaseURL == "" {
				m.BaseURL = a.AnthropicBaseURL
			}
		default:
			p.add(key, "model %q has provider %q; use openai or anthropic", m.ID, m.Provider)
		}
		checkHTTPURL(p, key, m.BaseURL)
	}
	return models
}

// tokenPrice reads a price per million tokens in micro-USD: a whole number,
// 0 or more, required when the assistant is on.
func tokenPrice(p *problems, key, s string, required bool) int64 {
	s = strings.TrimSpace(s)
	if s == "" {
		if required {
			p.add(key, "is required when the assistant is on (micro-USD per million tokens, such as 2500000 for $2.50)")
		}
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || !plainInteger.MatchString(s) {
		p.add(key, "must be a whole number of micro-USD per million tokens, 0 or more, got %q", s)
		return 0
	}
	return n
}

// plainInteger is digits only: no sign, which ParseInt would accept.
var plainInteger = regexp.MustCompile(`^[0-9]+$`)

// checkHTTPURL requires an absolute http(s) URL when s is set.
func checkHTTPURL(p *problems, key, s string) {
	if s == "" {
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(key, "must be an absolute http or https URL%s", echoURL(s))
	}
}

// echoURL quotes a URL for an error message unless it may carry credentials.
func echoURL(s string) string {
	if strings.Contains(s, "@") {
		return " (value not shown: it may contain credentials)"
	}
	return fmt.Sprintf(", got %q", s)
}

// bareAddress reports whether s is an email address with nothing around it
// (no display name, no angle brackets, no line breaks).
func bareAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

// checkEmail validates the email settings and returns the normalised
// WEB_BASE_URL.
func checkEmail(p *problems, r raw, e Email) (webBaseURL string) {
	rawBase := strings.TrimSpace(r.WebBaseURL)
	if rawBase != "" {
		o, err := parseOrigin(rawBase)
		if err != nil {
			p.add("WEB_BASE_URL", "%v%s", err, echoURL(rawBase))
		}
		webBaseURL = o
	}

	trio := []struct{ key, val string }{
		{"SMTP_HOST", e.SMTPHost}, {"EMAIL_FROM", e.From}, {"WEB_BASE_URL", rawBase},
	}
	var set, missing []string
	for _, t := range trio {
		if t.val == "" {
			missing = append(missing, t.key)
		} else {
			set = append(set, t.key)
		}
	}
	if len(set) > 0 && len(missing) > 0 {
		p.add("email", "is partially configured: %s %s set but %s %s not (set all three or none)",
			joinAnd(set), isAre(set), joinAnd(missing), isAre(missing))
	}

	if e.From != "" && !bareAddress(e.From) {
		p.add("EMAIL_FROM", "must be a bare email address such as noreply@example.com (the display name goes in EMAIL_FROM_NAME), got %q", e.From)
	}
	switch {
	case e.SMTPUser != "" && e.SMTPPass == "":
		p.add("SMTP_USER", "is set but SMTP_PASS is not (set both or neither)")
	case e.SMTPUser == "" && e.SMTPPass != "":
		p.add("SMTP_PASS", "is set but SMTP_USER is not (set both or neither)")
	}
	switch e.TLSMode {
	case "implicit", "starttls", "none":
	default:
		p.add("SMTP_TLS_MODE", "must be one of implicit, starttls, none, got %q", e.TLSMode)
	}
	if strings.ContainsAny(e.FromName, "\r\n") {
		p.add("EMAIL_FROM_NAME", "must not contain a line break (CR or LF)")
	}
	return webBaseURL
}

func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func isAre(s []string) string {
	if len(s) == 1 {
		return "is"
	}
	return "are"
}

// parseOrigin returns s as a browser serialises an origin: lowercase
// scheme and host, no default port, no trailing slash. The error says what
// keeps s from being an origin.
func parseOrigin(s string) (string, error) {
	s = strings.TrimSuffix(s, "/")
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", errors.New("must be an origin such as https://journal.example.com")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("must start with http:// or https://")
	case u.User != nil:
		return "", errors.New("must not contain credentials")
	case u.Hostname() == "":
		return "", errors.New("must name a host")
	case u.Opaque != "" || u.Path != "" || strings.ContainsAny(s, "?#"):
		return "", errors.New("must be an origin only (scheme://host[:port]), without a path, query or fragment")
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", errors.New("has an invalid port")
		}
	}
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
}

// corsOrigins parses the split-origin allow-list. Split-origin cookies are
// SameSite=None; Secure, which browsers send only over TLS, so plain http is
// accepted only for loopback hosts (local testing).
func corsOrigins(p *problems, list string) []string {
	const key = "CORS_ALLOWED_ORIGINS"
	var out []string
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item == "*" {
			p.add(key, "must list exact origins: \"*\" is not allowed with credentialed requests")
			return nil
		}
		o, err := parseOrigin(item)
		if err != nil {
			p.add(key, "entry %v%s", err, echoURL(item))
			return nil
		}
		if strings.HasPrefix(o, "http://") && !isLoopback(o) {
			p.add(key, "entry must use https (split-origin cookies are Secure, so http is accepted only for localhost), got %q", item)
			return nil
		}
		out = append(out, o)
	}
	return out
}

func isLoopback(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// encryption decodes the keys and checks the fingerprint. Key material never
// appears in a message.
func encryption(p *problems, r raw) Encryption {
	keyText := strings.TrimSpace(r.EncryptionKey)
	prevText := strings.TrimSpace(r.EncryptionKeyPrevious)
	e := Encryption{
		Key:         decodeKey(p, "ENCRYPTION_KEY", keyText),
		PreviousKey: decodeKey(p, "ENCRYPTION_KEY_PREVIOUS", prevText),
		Fingerprint: strings.ToLower(strings.TrimSpace(r.EncryptionFingerprint)),
	}
	if prevText != "" && keyText == "" {
		p.add("ENCRYPTION_KEY_PREVIOUS", "is set but ENCRYPTION_KEY is not (rotation needs the new key)")
	}
	switch {
	case e.Fingerprint == "":
	case keyText == "":
		p.add("ENCRYPTION_KEY_FINGERPRINT", "is set but ENCRYPTION_KEY is not")
	case e.Key != nil:
		sum := sha256.Sum256(e.Key)
		if hex.EncodeToString(sum[:]) != e.Fingerprint {
			p.add("ENCRYPTION_KEY_FINGERPRINT", "does not match ENCRYPTION_KEY (expected the hex SHA-256 of the decoded key bytes)")
		}
	}
	return e
}

// decodeKey accepts standard base64 with or without padding. Strict decoding
// makes the text canonical, so Secrets can re-encode it exactly.
func decodeKey(p *problems, key, s string) []byte {
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.Strict().DecodeString(s)
	}
	switch {
	case err != nil:
		p.add(key, "must be standard base64 of exactly %d bytes (for example from: openssl rand -base64 32), but the value is not valid base64", encryptionKeySize)
		return nil
	case len(b) != encryptionKeySize:
		p.add(key, "must be standard base64 of exactly %d bytes (for example from: openssl rand -base64 32), but the value decodes to %d bytes", encryptionKeySize, len(b))
		return nil
	}
	return b
}

// Bar providers by name, and the asset types BARS_PROVIDERS may name (an
// option's bars are its underlying's, so "option" names the provider of
// underlyings; unnamed, it is the stock provider).
var (
	barProviderNames = []string{BarsFinnhub, BarsAlpaca, BarsTwelveData, BarsBinance}
	barAssetTypes    = []string{"stock", "option", "future", "future_option", "forex", "crypto", "cfd"}
)

// barsProviders reads BARS_PROVIDERS ("stock=alpaca,crypto=binance"),
// each provider's credentials present. Unset, stocks (and options) use
// the quote provider (Finnhub) when STOCK_QUOTE_API_KEY is set, as before.
func barsProviders(p *problems, r raw) map[string]string {
	if r.AlpacaDataFeed != "iex" && r.AlpacaDataFeed != "sip" {
		p.add("ALPACA_DATA_FEED", "must be iex or sip, got %q", r.AlpacaDataFeed)
	}
	out := map[string]string{}
	if strings.TrimSpace(r.BarsProviders) == "" {
		if r.StockQuoteAPIKey != "" {
			out["stock"] = BarsFinnhub
		}
		return out
	}
	needs := map[string]struct {
		ok   bool
		vars string
	}{
		BarsFinnhub:    {r.StockQuoteAPIKey != "", "STOCK_QUOTE_API_KEY"},
		BarsAlpaca:     {r.AlpacaDataKeyID != "" && r.AlpacaDataSecretKey != "", "ALPACA_DATA_KEY_ID and ALPACA_DATA_SECRET_KEY"},
		BarsTwelveData: {r.TwelveDataAPIKey != "", "TWELVE_DATA_API_KEY"},
		BarsBinance:    {true, ""},
	}
	for _, pair := range strings.Split(r.BarsProviders, ",") {
		asset, provider, ok := strings.Cut(strings.TrimSpace(pair), "=")
		asset, provider = strings.TrimSpace(asset), strings.TrimSpace(provider)
		switch {
		case !ok || !slices.Contains(barAssetTypes, asset):
			p.add("BARS_PROVIDERS", "must be a list of asset=provider (assets: %s), got %q", strings.Join(barAssetTypes, ", "), pair)
			return out
		case !slices.Contains(barProviderNames, provider):
			p.add("BARS_PROVIDERS", "names an unknown provider %q for %s (providers: %s)", provider, asset, strings.Join(barProviderNames, ", "))
			return out
		case !needs[provider].ok:
			p.add("BARS_PROVIDERS", "names %s for %s, which needs %s", provider, asset, needs[provider].vars)
			return out
		case out[asset] != "":
			p.add("BARS_PROVIDERS", "names %s twice", asset)
			return out
		}
		out[asset] = provider
	}
	return out
}
