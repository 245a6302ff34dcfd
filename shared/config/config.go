// Package config reads the environment once, at start, into typed values.
// Every problem is a startup error that names its variable, so a bad
// deployment stops before it serves anything. An unset optional variable
// turns its feature off without complaint.
package config

import (
	"os"
	"time"

	"github.com/shopspring/decimal"
)

// Config is the whole deployment configuration of the api.
type Config struct {
	Port     int    // PORT, default 3100; 0 asks the OS for a free port (tests)
	LogLevel string // LOG_LEVEL: debug, info (default), warn or error
	// TrustedProxies is TRUSTED_PROXIES: the peers besides loopback whose
	// X-Real-IP / X-Forwarded-For the api believes (addresses, CIDR ranges,
	// host names), comma-separated; checked at load.
	TrustedProxies string
	// AppVersion is APP_VERSION, trimmed. Unset means buildinfo.Version, or
	// "unknown" in local builds; a blank value gives "", which the health
	// endpoint omits.
	AppVersion string
	DB         DB
	Accounts   Accounts
	Metrics    Metrics
	CSVImport  CSVImport
	Billing    Billing
	Plans      Plans
	Assistant  Assistant
	Market     Market
	Email      Email
	Analytics  Analytics
	Store      Store
	Storage    ObjectStorage
	Encryption Encryption
	CORS       CORS
	Web        Web
	BrokerSync BrokerSync
}

// DB is the PostgreSQL connection.
type DB struct {
	URL       string // DATABASE_URL; compose builds it, other runs may leave it unset
	DirectURL string // DIRECT_DATABASE_URL: non-pooled, for migrations and the CLI
	// Password is DB_PASSWORD. It is not required here because compose
	// enforces it and non-compose runs carry the password in DATABASE_URL.
	Password          string
	TransactionPooler bool // DB_TRANSACTION_POOLER: true disables prepared statements
	PoolSize          int  // DB_POOL_SIZE, default 10, 1..1000
}

// MigrationURL returns the URL migrations and the CLI must use: behind a
// transaction-mode pooler they need the direct connection.
func (d DB) MigrationURL() string {
	if d.DirectURL != "" {
		return d.DirectURL
	}
	return d.URL
}

// Accounts holds sign-up settings.
type Accounts struct {
	DisableRegistration bool   // DISABLE_REGISTRATION
	SeedAdminEmail      string // SEED_ADMIN_EMAIL, trimmed and lowercased like stored emails
}

// Metrics is the operational metrics listener, off by default.
type Metrics struct {
	Enabled bool   // METRICS_ENABLED
	Port    int    // METRICS_PORT, default 9464; 0 asks the OS for a free port (tests)
	Host    string // METRICS_HOST, default 0.0.0.0
}

// CSVImport holds the import limits.
type CSVImport struct {
	// MaxFileBytes is CSV_IMPORT_MAX_FILE_BYTES (default 10 MiB). Keep it at or
	// below the web proxy's MAX_UPLOAD_SIZE (20m), or large imports get the
	// proxy's 413 instead of ours.
	MaxFileBytes    int64
	MaxRequestBytes int64         // CSV_IMPORT_MAX_REQUEST_BYTES, default 65536
	MaxRows         int           // CSV_IMPORT_MAX_ROWS, default 10000
	StagingTTL      time.Duration // CSV_IMPORT_STAGING_TTL_MINUTES, default 30
	MaxStagedBytes  int64         // CSV_IMPORT_MAX_STAGED_BYTES, default 25165824
	ClaimTimeout    time.Duration // CSV_IMPORT_CLAIM_TIMEOUT_SECONDS, default 600
}

// Billing is the payment processor and credit settings. Empty strings mean unset.
type Billing struct {
	SecretKey      string // PAYMENT_SECRET_KEY
	WebhookSecret  string // PAYMENT_WEBHOOK_SECRET
	PublishableKey string // PAYMENT_PUBLISHABLE_KEY, reserved
	ProPriceID     string // PAYMENT_PRO_PRICE_ID
	// APIBaseURL is PAYMENT_API_BASE_URL, a test seam pointing the processor
	// client at stripe-mock; empty means the processor's public address.
	APIBaseURL            string
	CreditPacks           string          // CREDIT_PACKS: raw JSON, checked for syntax only; the billing package owns its shape
	MinReservationCredits int64           // MIN_RESERVATION_CREDITS, default 1, >= 0
	ReservationTTL        time.Duration   // RESERVATION_TTL_MS, default 600000; must outlast the 480000 ms turn budget
	PricingMarkup         decimal.Decimal // PRICING_MARKUP, default 1.2
}

// Configured reports whether purchases are possible.
func (b Billing) Configured() bool { return b.SecretKey != "" }

// WebhookEnabled reports whether the webhook path can verify signatures.
func (b Billing) WebhookEnabled() bool { return b.Configured() && b.WebhookSecret != "" }

// ProPlanEnabled reports whether the Pro plan can be sold.
func (b Billing) ProPlanEnabled() bool { return b.WebhookEnabled() && b.ProPriceID != "" }

// Plans are the free plan's limits; Pro (an active subscription) lifts
// them all. Each is off at 0 (its variable unset), so a self-hosted
// journal is unlimited unless its operator sets one.
type Plans struct {
	Accounts      int64 // FREE_MAX_ACCOUNTS: accounts not archived
	Positions     int64 // FREE_MAX_POSITIONS: positions in total
	StorageBytes  int64 // FREE_MAX_STORAGE_BYTES: the bytes of the user's position images
	ImportsPerDay int64 // FREE_MAX_IMPORTS_PER_DAY: CSV imports committed in the last 24 hours
}

// Assistant is the trade-review assistant's model providers: the
// operator's models (ASSISTANT_MODELS, or the one model of ASSISTANT_MODEL),
// each with its price, reached with the operator's key of its provider kind;
// and, with OwnKeys, the models a user reaches with their own key. It is on
// when there is a model of the operator or when users may bring their keys.
type Assistant struct {
	// BaseURL is ASSISTANT_BASE_URL, the API root of the OpenAI-compatible
	// provider the chat-completions path is joined to; the default is the
	// provider's public address, and a test points it at a local server.
	// No trailing slash.
	BaseURL string
	APIKey  string // ASSISTANT_API_KEY: the OpenAI-compatible key; a secret, never logged or returned
	Model   string // ASSISTANT_MODEL: the one model of a single-model setting
	// InputPrice and OutputPrice are ASSISTANT_INPUT_PRICE_PER_MTOK and
	// ASSISTANT_OUTPUT_PRICE_PER_MTOK: what the provider charges per million
	// prompt and completion tokens, in micro-USD, which are credits before
	// the markup. They price the ASSISTANT_MODEL model.
	InputPrice  int64
	OutputPrice int64
	// AnthropicBaseURL is ASSISTANT_ANTHROPIC_BASE_URL (the Messages API
	// root, "/messages" is joined to it); AnthropicAPIKey is
	// ASSISTANT_ANTHROPIC_API_KEY, the operator's key for anthropic models.
	AnthropicBaseURL string
	AnthropicAPIKey  string
	// Models are the operator's models, in the order the picker shows them
	// (the first is the default).
	Models []AssistantModel
	// OwnKeys is ASSISTANT_OWN_KEYS: users may store their own provider keys
	// (sealed with ENCRYPTION_KEY) and use them without credits.
	OwnKeys bool
	// TurnBudget is the per-turn wall-clock budget (spec part 8: 480000 ms).
	// It is not a variable; tests shorten it.
	TurnBudget time.Duration
}

// AssistantModel is one model the operator offers.
type AssistantModel struct {
	ID       string `json:"id"`       // the model name sent to the provider
	Provider string `json:"provider"` // openai (chat completions) or anthropic (Messages API)
	// BaseURL is the API root; empty takes the provider kind's
	// (ASSISTANT_BASE_URL or ASSISTANT_ANTHROPIC_BASE_URL).
	BaseURL     string `json:"baseUrl"`
	InputPrice  int64  `json:"inputPricePerMtok"`  // micro-USD per million prompt tokens
	OutputPrice int64  `json:"outputPricePerMtok"` // micro-USD per million completion tokens
	Images      bool   `json:"images"`             // the model accepts image parts
}

// Enabled reports whether the assistant is on.
func (a Assistant) Enabled() bool { return len(a.Models) > 0 || a.OwnKeys }

// Market is the quote provider and the SEC ticker file.
type Market struct {
	QuoteAPIKey string // STOCK_QUOTE_API_KEY; unset turns quote lookup off
	// QuoteBaseURL is STOCK_QUOTE_BASE_URL, a test seam; empty leaves the
	// provider default to the market package.
	QuoteBaseURL  string
	SECUserAgent  string // SEC_USER_AGENT
	SECTickersURL string // SEC_TICKERS_URL
	Bars          Bars
	// TradierKey is TRADIER_API_KEY, the token of Tradier's market data
	// (options chains, the assistant's options_chain tool); unset turns
	// options chains off. TradierURL is TRADIER_BASE_URL, its API root.
	TradierKey string
	TradierURL string
}

// Bar provider names of BARS_PROVIDERS.
const (
	BarsFinnhub    = "finnhub"
	BarsAlpaca     = "alpaca"
	BarsTwelveData = "twelvedata"
	BarsBinance    = "binance"
)

// Bars is where price bars come from (shared/market, docs/market-data.md).
type Bars struct {
	// Providers maps an asset type to the provider of its bars
	// (BARS_PROVIDERS); an asset type not in it has uploaded bars only.
	Providers       map[string]string
	AlpacaKeyID     string // ALPACA_DATA_KEY_ID
	AlpacaSecretKey string // ALPACA_DATA_SECRET_KEY
	AlpacaURL       string // ALPACA_DATA_BASE_URL
	AlpacaFeed      string // ALPACA_DATA_FEED: iex (the free plan's) or sip
	TwelveDataKey   string // TWELVE_DATA_API_KEY
	TwelveDataURL   string // TWELVE_DATA_BASE_URL
	BinanceURL      string // BINANCE_BASE_URL
}

// Email is outgoing mail. It is on only when the SMTP_HOST, EMAIL_FROM and
// WEB_BASE_URL trio is set; a partial trio is a startup error.
type Email struct {
	SMTPHost   string // SMTP_HOST
	From       string // EMAIL_FROM: a bare address
	WebBaseURL string // WEB_BASE_URL: the web origin for links, no trailing slash
	SMTPPort   int    // SMTP_PORT, default 587
	TLSMode    string // SMTP_TLS_MODE: implicit, starttls (default) or none
	SMTPUser   string // SMTP_USER; both or neither with SMTP_PASS
	SMTPPass   string // SMTP_PASS
	FromName   string // EMAIL_FROM_NAME, no CR/LF so it cannot inject headers
}

// Enabled reports whether mail can be sent.
func (e Email) Enabled() bool {
	return e.SMTPHost != "" && e.From != "" && e.WebBaseURL != ""
}

// Analytics is product analytics.
type Analytics struct {
	APIKey               string // ANALYTICS_API_KEY, the backend key; unset turns backend events off
	Host                 string // ANALYTICS_HOST; unset or empty is the US ingestion host
	Environment          string // ANALYTICS_ENVIRONMENT
	PublicKey            string // ANALYTICS_PUBLIC_KEY, the frontend key
	PublicFeedbackSurvey string // ANALYTICS_PUBLIC_FEEDBACK_SURVEY
}

// Store is the optional shared key-value store for rate limits.
type Store struct {
	URL string // STORE_URL; unset keeps limits process-local
}

// ObjectStorage is the optional S3-compatible store for uploaded images.
type ObjectStorage struct {
	Endpoint        string // OBJECT_STORAGE_ENDPOINT
	Bucket          string // OBJECT_STORAGE_BUCKET
	AccessKeyID     string // OBJECT_STORAGE_ACCESS_KEY_ID
	SecretAccessKey string // OBJECT_STORAGE_SECRET_ACCESS_KEY
	Region          string // OBJECT_STORAGE_REGION, optional
	ForcePathStyle  bool   // OBJECT_STORAGE_FORCE_PATH_STYLE, default true
}

// Enabled reports whether all four required values are set.
func (o ObjectStorage) Enabled() bool { return o.setCount() == 4 }

// Partial reports a configuration that is started but incomplete; images
// then stay inline, and callers may warn about it.
func (o ObjectStorage) Partial() bool { n := o.setCount(); return n > 0 && n < 4 }

func (o ObjectStorage) setCount() int { return 4 - len(o.Missing()) }

// Missing names the required variables that are unset (names only, for the
// start-up line of a partial configuration).
func (o ObjectStorage) Missing() []string {
	var out []string
	for _, v := range []struct{ name, value string }{
		{"OBJECT_STORAGE_ENDPOINT", o.Endpoint}, {"OBJECT_STORAGE_BUCKET", o.Bucket},
		{"OBJECT_STORAGE_ACCESS_KEY_ID", o.AccessKeyID}, {"OBJECT_STORAGE_SECRET_ACCESS_KEY", o.SecretAccessKey},
	} {
		if v.value == "" {
			out = append(out, v.name)
		}
	}
	return out
}

// Encryption is the key for data encrypted at rest.
type Encryption struct {
	Key         []byte // ENCRYPTION_KEY: 32 bytes, given as standard base64
	PreviousKey []byte // ENCRYPTION_KEY_PREVIOUS: kept during rotation so old ciphertext still decrypts
	Fingerprint string // ENCRYPTION_KEY_FINGERPRINT: lowercase hex SHA-256 of Key, checked at load
}

// CORS is split-origin mode.
type CORS struct {
	// AllowedOrigins is CORS_ALLOWED_ORIGINS: exact origins, lowercased,
	// without default ports, as browsers send them in the Origin header.
	AllowedOrigins []string
}

// SplitOrigin reports whether CORS, SameSite=None cookies and anti-CSRF
// protection are on (they turn on together).
func (c CORS) SplitOrigin() bool { return len(c.AllowedOrigins) > 0 }

// Web holds variables the web container reads in its start script; the api
// reads them too so every variable is declared and checked in one place.
type Web struct {
	NewsletterURL string // NEWSLETTER_URL
}

// BrokerSync holds the brokers' API addresses (shared/brokersync): their
// public services by default; tests and self-hosters behind a proxy point
// them elsewhere.
type BrokerSync struct {
	IBKRFlexURL string // IBKR_FLEX_BASE_URL: the Flex Web Service (SendRequest, GetStatement under it)
	AlpacaURL   string // ALPACA_API_BASE_URL: the Trading API (paper: https://paper-api.alpaca.markets)
	KrakenURL   string // KRAKEN_API_BASE_URL: the REST API
}

// Load reads the process environment.
func Load() (Config, error) { return LoadFrom(os.LookupEnv) }

// LoadFrom reads the variables through lookup, so tests need not touch the
// process environment. On error the Config is zero and the error is one line
// naming every offending variable, without any secret value.
func LoadFrom(lookup func(string) (string, bool)) (Config, error) {
	var p problems
	r, appVersionSet := parse(lookup, &p)
	c := build(r, appVersionSet, &p)
	if err := p.err(); err != nil {
		return Config{}, err
	}
	return c, nil
}
