package config

import (
	"reflect"
	"strings"
)

// Variable describes one environment variable of the deployment: the api's
// own (declared in raw, whose envDefault tag is the default reported here)
// and the few only the web container or the compose file reads. The
// operator's documentation (docs/configuration.md), .env.example and the
// deployment tests are generated from or checked against this list, so it
// cannot drift from what the code reads.
type Variable struct {
	Name  string
	Group string // section of docs/configuration.md and .env.example
	// Default is the value used when the variable is unset or empty ("" when
	// unset turns the feature off). For the api's variables it is the
	// envDefault tag itself.
	Default string
	// DefaultNote, when set, is shown instead of Default: a default that is
	// not a literal value ("the version baked into the image").
	DefaultNote string
	Doc         string
	API         bool // read by the api (shared/config)
	Web         bool // read by the web container's start script
	Compose     bool // read by docker-compose.yml itself (interpolation)
	Secret      bool // a credential, or a URL that may carry one
	Required    bool // compose refuses to start without it
	Example     string
}

// Variables returns every variable in documentation order. An api variable
// that has no entry in the table below is still listed, at the end with an
// empty Doc, so a test can name it; an entry whose variable the api does not
// declare keeps API false.
func Variables() []Variable {
	declared := map[string]string{} // name -> envDefault
	var order []string
	rt := reflect.TypeFor[raw]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "" {
			continue
		}
		declared[name] = f.Tag.Get("envDefault")
		order = append(order, name)
	}
	out := make([]Variable, 0, len(variableDocs)+len(order))
	seen := map[string]bool{}
	for _, v := range variableDocs {
		if def, ok := declared[v.Name]; ok {
			v.API, v.Default = true, def
		}
		seen[v.Name] = true
		out = append(out, v)
	}
	for _, name := range order {
		if !seen[name] {
			out = append(out, Variable{Name: name, Group: "Undocumented", Default: declared[name], API: true})
		}
	}
	return out
}

// Groups of the documentation, in order.
const (
	groupServer     = "Server"
	groupDatabase   = "Database"
	groupAccounts   = "Accounts and sign-up"
	groupWeb        = "Web container"
	groupEncryption = "Encryption at rest"
	groupMetrics    = "Metrics"
	groupCSV        = "CSV import"
	groupBilling    = "Billing"
	groupPlans      = "Free plan limits"
	groupAssistant  = "Trade-review assistant"
	groupMarket     = "Market data"
	groupBrokerSync = "Broker sync"
	groupEmail      = "Email"
	groupStore      = "Shared rate-limit store"
	groupStorage    = "Object storage for uploaded images"
	groupAnalytics  = "Product analytics"
	groupCORS       = "Split-origin mode"
)

// variableDocs is the documentation of every variable. Defaults of the api's
// variables come from their envDefault tags, never from here.
var variableDocs = []Variable{
	{Name: "PORT", Group: groupServer, Doc: "Port of the api's HTTP listener. Compose fixes it at 3100 (the web container proxies there); the function platform has no listener."},
	{Name: "LOG_LEVEL", Group: groupServer, Doc: "debug, info, warn or error. Logs are JSON lines on stdout."},
	{Name: "TRUSTED_PROXIES", Group: groupServer, Example: "web, 10.0.0.0/8",
		Doc: "Comma-separated addresses, CIDR ranges or host names of the reverse proxies whose `X-Real-IP` / `X-Forwarded-For` the api believes for the client address (rate limits count per client address). Loopback is always trusted; any other peer's forwarding headers are ignored, so a host listening on all interfaces cannot be told another client's address. Host names are looked up at most every 30 s. Compose sets `web`, its web container."},
	{Name: "APP_VERSION", Group: groupServer, Web: true, DefaultNote: "the version baked into the image (`unknown` in local builds)",
		Doc: "Leave unset. A release passes it as a build argument, which stamps it into both images; `GET /api/health` and the `version` label of the build-info metrics report it. A blank value in the environment erases it from the health response."},

	{Name: "DB_PASSWORD", Group: groupDatabase, Compose: true, Secret: true, Required: true, Example: "output of: openssl rand -hex 32",
		Doc: "Password of the compose stack's database; compose builds DATABASE_URL from it and stops with an error when it is unset. It goes into a URL, so use a URL-safe value such as hex."},
	{Name: "DATABASE_URL", Group: groupDatabase, Secret: true,
		Doc: "PostgreSQL URL for runs outside compose (`make run` starts a private cluster and sets it). Compose ignores it and builds its own from DB_PASSWORD."},
	{Name: "DIRECT_DATABASE_URL", Group: groupDatabase, Secret: true,
		Doc: "Non-pooled URL used by migrations and the operator CLI. Needed only when DATABASE_URL points at a transaction-mode pooler (PgBouncer, RDS Proxy)."},
	{Name: "DB_TRANSACTION_POOLER", Group: groupDatabase,
		Doc: "true when DATABASE_URL goes through a transaction-mode pooler: prepared statements are then never used."},
	{Name: "DB_POOL_SIZE", Group: groupDatabase, Doc: "Maximum connections of one api process (1 to 1000)."},

	{Name: "DISABLE_REGISTRATION", Group: groupAccounts,
		Doc: "true closes sign-up (403 `REGISTRATION_DISABLED`); sign-in and password reset keep working."},
	{Name: "SEED_ADMIN_EMAIL", Group: groupAccounts,
		Doc: "Email of the first admin: at start, if the instance never had an admin, that registered user becomes one."},
	{Name: "NEWSLETTER_URL", Group: groupAccounts, Web: true,
		Doc: "Link shown on the closed-sign-up notice; the web container writes it into /config.js at start."},

	{Name: "WEB_PORT", Group: groupWeb, Compose: true, Default: "8080",
		Doc: "Host port the web container publishes: the only published port of the stack."},
	{Name: "API_BASE_URL", Group: groupWeb, Web: true,
		Doc: "Upstream the web container proxies `/api` to; blank means the compose api service (http://api:3100)."},
	{Name: "MAX_UPLOAD_SIZE", Group: groupWeb, Web: true, Default: "20m",
		Doc: "Request body limit of the web proxy (nginx size syntax). Keep it at least CSV_IMPORT_MAX_FILE_BYTES, or large imports get the proxy's 413."},
	{Name: "CSV_IMPORT_WEB_PROXY_TIMEOUT", Group: groupWeb, Web: true, Default: "300s",
		Doc: "Proxy read timeout for `/api/csv-import/` only."},

	{Name: "ENCRYPTION_KEY", Group: groupEncryption, Secret: true, Example: "output of: openssl rand -base64 32",
		Doc: "32 random bytes, standard base64: seals private free text at rest. Unset stores it in plaintext. Keep a copy: data sealed with a lost key cannot be read."},
	{Name: "ENCRYPTION_KEY_PREVIOUS", Group: groupEncryption, Secret: true,
		Doc: "The former key during a rotation, so existing ciphertext still decrypts until `rotate-encryption-key` has re-sealed it."},
	{Name: "ENCRYPTION_KEY_FINGERPRINT", Group: groupEncryption,
		Doc: "Lowercase hex SHA-256 of the decoded ENCRYPTION_KEY bytes; the start aborts when it does not match (a wrong key never writes)."},

	{Name: "METRICS_ENABLED", Group: groupMetrics, Web: true,
		Doc: "Exactly true arms the api's metrics listener and the web container's /metrics file; false or unset turns both off."},
	{Name: "METRICS_PORT", Group: groupMetrics, Doc: "Port of the api's metrics listener inside its container. Never publish it."},
	{Name: "METRICS_HOST", Group: groupMetrics, Doc: "Bind address of the metrics listener; narrow it to one interface if you like."},

	{Name: "CSV_IMPORT_MAX_FILE_BYTES", Group: groupCSV, Doc: "Per-CSV byte cap, counted on the bytes actually read (413 beyond it)."},
	{Name: "CSV_IMPORT_MAX_REQUEST_BYTES", Group: groupCSV, Doc: "Cap on the multipart JSON part (mapping and options)."},
	{Name: "CSV_IMPORT_MAX_ROWS", Group: groupCSV, Doc: "Maximum data rows per import."},
	{Name: "CSV_IMPORT_STAGING_TTL_MINUTES", Group: groupCSV, Doc: "Lifetime of a staged preview, in minutes."},
	{Name: "CSV_IMPORT_MAX_STAGED_BYTES", Group: groupCSV, Doc: "Cap on a staged result (413 beyond it)."},
	{Name: "CSV_IMPORT_CLAIM_TIMEOUT_SECONDS", Group: groupCSV,
		Doc: "Age after which an orphaned committing import is deleted. Keep it at least twice CSV_IMPORT_WEB_PROXY_TIMEOUT (set by hand in both places)."},

	{Name: "PAYMENT_SECRET_KEY", Group: groupBilling, Secret: true, Doc: "Payment processor secret key; turns purchases on."},
	{Name: "PAYMENT_WEBHOOK_SECRET", Group: groupBilling, Secret: true,
		Doc: "Signing secret of the webhook endpoint; with the secret key it turns the webhook route on."},
	{Name: "PAYMENT_PUBLISHABLE_KEY", Group: groupBilling, Doc: "Reserved: read and unused by the redirect checkout."},
	{Name: "PAYMENT_PRO_PRICE_ID", Group: groupBilling,
		Doc: "Recurring monthly price of the Pro plan; Pro is sold only when the secret key, webhook secret and this are all set."},
	{Name: "PAYMENT_API_BASE_URL", Group: groupBilling, Doc: "Processor API address: a test seam (stripe-mock). Leave unset in production."},
	{Name: "CREDIT_PACKS", Group: groupBilling, DefaultNote: "four USD packs",
		Doc: "The credit-pack catalogue as JSON (`[{\"id\":\"starter\",\"label\":\"Starter\",\"priceMinor\":500,\"currency\":\"USD\",\"credits\":5000000}]`); a malformed one stops the start."},
	{Name: "MIN_RESERVATION_CREDITS", Group: groupBilling, Doc: "Credits that must be available for a streamed turn to start."},
	{Name: "RESERVATION_TTL_MS", Group: groupBilling, Doc: "How long a turn's credit hold lasts; must exceed the 480000 ms turn budget."},
	{Name: "PRICING_MARKUP", Group: groupBilling, Doc: "Plain decimal: a turn costs raw provider cost times this (1.2 is 20% over cost)."},

	{Name: "FREE_MAX_ACCOUNTS", Group: groupPlans,
		Doc: "Accounts (not archived) a user without Pro may have. Unset or 0: no limit, the default, so a self-hosted journal is unlimited. Every FREE_MAX_* limit is lifted by an active Pro subscription; a journal over a limit (a subscription that ended) stays readable and exportable, and only new records beyond it are refused (403 `PLAN_LIMIT_REACHED`)."},
	{Name: "FREE_MAX_POSITIONS", Group: groupPlans, Doc: "Positions in total a user without Pro may have (manual entry, reversals and imports). Unset or 0: no limit."},
	{Name: "FREE_MAX_STORAGE_BYTES", Group: groupPlans, Doc: "Bytes of position images a user without Pro may store. Unset or 0: no limit."},
	{Name: "FREE_MAX_IMPORTS_PER_DAY", Group: groupPlans, Doc: "CSV imports a user without Pro may commit in any 24 hours. Unset or 0: no limit."},

	{Name: "ASSISTANT_API_KEY", Group: groupAssistant, Secret: true,
		Doc: "Key of the OpenAI-compatible chat-completions provider. With ASSISTANT_MODEL (or the `openai` models of ASSISTANT_MODELS) it turns the trade-review assistant on (key or model without the other stops the start); with no model and ASSISTANT_OWN_KEYS unset, the assistant's routes answer 404 and `GET /api/config` reports `assistant: false`."},
	{Name: "ASSISTANT_MODEL", Group: groupAssistant, Doc: "Model name sent to the provider (`gpt-4o-mini`, or what your provider serves)."},
	{Name: "ASSISTANT_INPUT_PRICE_PER_MTOK", Group: groupAssistant,
		Doc: "What the provider charges per million prompt tokens, in micro-USD (whole number; 150000 is $0.15). Required when the assistant is on: a turn costs the reported usage at these prices times PRICING_MARKUP, in credits."},
	{Name: "ASSISTANT_OUTPUT_PRICE_PER_MTOK", Group: groupAssistant,
		Doc: "What the provider charges per million completion tokens, in micro-USD (whole number). Required when the assistant is on."},
	{Name: "ASSISTANT_BASE_URL", Group: groupAssistant, DefaultNote: "the provider's public address (https://api.openai.com/v1)",
		Doc: "API root of an OpenAI-compatible provider (`/chat/completions` is appended). Point it at another compatible service, or at a local fake in tests."},

	{Name: "ASSISTANT_MODELS", Group: groupAssistant, Example: `[{"id":"gpt-4o-mini","provider":"openai","inputPricePerMtok":150000,"outputPricePerMtok":600000,"images":true}]`,
		Doc: "The operator's models, instead of ASSISTANT_MODEL: a JSON array of `{id, provider, inputPricePerMtok, outputPricePerMtok, baseUrl?, images?}`. `provider` is `openai` (chat completions, with ASSISTANT_API_KEY) or `anthropic` (Messages API, with ASSISTANT_ANTHROPIC_API_KEY); prices are micro-USD per million tokens; `images: true` lets traders attach images for that model. The first model is the default of the picker. Unset with ASSISTANT_MODEL set, the list is that one model."},
	{Name: "ASSISTANT_ANTHROPIC_API_KEY", Group: groupAssistant, Secret: true,
		Doc: "The operator's key for the `anthropic` models of ASSISTANT_MODELS."},
	{Name: "ASSISTANT_ANTHROPIC_BASE_URL", Group: groupAssistant, DefaultNote: "the provider's public address (https://api.anthropic.com/v1)",
		Doc: "API root of the Anthropic Messages API (`/messages` is appended); a local fake in tests."},
	{Name: "ASSISTANT_OWN_KEYS", Group: groupAssistant,
		Doc: "`true` lets each trader store their own provider key (openai or anthropic, sealed with ENCRYPTION_KEY, which it requires) and use it without credits; the assistant is then on even without a model of the operator."},

	{Name: "STOCK_QUOTE_API_KEY", Group: groupMarket, Secret: true,
		Doc: "Quote-provider key shared by the whole instance; unset hides the delayed-price lookup for everyone."},
	{Name: "STOCK_QUOTE_BASE_URL", Group: groupMarket, DefaultNote: "the provider's public address",
		Doc: "Quote provider address: a test seam. Leave unset in production."},
	{Name: "BARS_PROVIDERS", Group: groupMarket, DefaultNote: "stock=finnhub when STOCK_QUOTE_API_KEY is set",
		Doc: "Where each asset type's price bars come from, as `asset=provider` pairs separated by commas (`stock=alpaca,crypto=binance,forex=twelvedata`). Assets: stock, option (its underlying's bars; the stock provider when unnamed), future, future_option, forex, crypto, cfd. Providers: finnhub, alpaca, twelvedata, binance. An asset without a provider shows the bars its traders upload (docs/market-data.md)."},
	{Name: "ALPACA_DATA_KEY_ID", Group: groupMarket, Secret: true,
		Doc: "Alpaca market-data key id (a free paper account's key serves IEX bars), for `alpaca` in BARS_PROVIDERS."},
	{Name: "ALPACA_DATA_SECRET_KEY", Group: groupMarket, Secret: true, Doc: "The secret of ALPACA_DATA_KEY_ID."},
	{Name: "ALPACA_DATA_BASE_URL", Group: groupMarket, Doc: "Alpaca's Market Data API. A test seam."},
	{Name: "ALPACA_DATA_FEED", Group: groupMarket,
		Doc: "`iex` (the free plan's feed) or `sip` (every US exchange; a paid subscription)."},
	{Name: "TWELVE_DATA_API_KEY", Group: groupMarket, Secret: true, Doc: "Twelve Data key, for `twelvedata` in BARS_PROVIDERS (stocks, forex, crypto)."},
	{Name: "TWELVE_DATA_BASE_URL", Group: groupMarket, Doc: "Twelve Data's REST API. A test seam."},
	{Name: "BINANCE_BASE_URL", Group: groupMarket,
		Doc: "Binance's public spot API (no key), for `binance` in BARS_PROVIDERS; https://api.binance.us where binance.com is not served. A test seam too."},
	{Name: "TRADIER_API_KEY", Group: groupMarket, Secret: true,
		Doc: "Tradier market-data token (a brokerage or a free sandbox account's): options chains with greeks for the assistant's `options_chain` tool. Unset, the tool is not offered."},
	{Name: "TRADIER_BASE_URL", Group: groupMarket,
		Doc: "Tradier's API root: https://sandbox.tradier.com/v1 for a sandbox token (delayed data). A test seam too."},
	{Name: "SEC_USER_AGENT", Group: groupMarket,
		Doc: "User-Agent of the SEC ticker-file download: set your name and contact email. A value pointing at a code-hosting site is refused (the symbol table stays empty)."},
	{Name: "SEC_TICKERS_URL", Group: groupMarket, Doc: "Where the ticker file is fetched: a test seam."},

	{Name: "IBKR_FLEX_BASE_URL", Group: groupBrokerSync,
		Doc: "Interactive Brokers' Flex Web Service (SendRequest and GetStatement are under it), for broker sync (docs/broker-sync.md). Point it at a proxy or a local fake in tests."},
	{Name: "ALPACA_API_BASE_URL", Group: groupBrokerSync,
		Doc: "Alpaca's Trading API for broker sync; https://paper-api.alpaca.markets for a paper account. A test seam too."},
	{Name: "KRAKEN_API_BASE_URL", Group: groupBrokerSync,
		Doc: "Kraken's REST API for broker sync. A test seam too."},

	{Name: "SMTP_HOST", Group: groupEmail,
		Doc: "SMTP server. Email (verification, password reset) is on only when SMTP_HOST, EMAIL_FROM and WEB_BASE_URL are all set; a partial trio stops the start."},
	{Name: "EMAIL_FROM", Group: groupEmail, Doc: "Bare sender address (noreply@example.com)."},
	{Name: "WEB_BASE_URL", Group: groupEmail,
		Doc: "Origin of the web application (scheme, host, optional port; a trailing slash is stripped), used in mail links and checkout return URLs. Never the API origin."},
	{Name: "SMTP_PORT", Group: groupEmail, Doc: "SMTP port."},
	{Name: "SMTP_TLS_MODE", Group: groupEmail, Doc: "implicit, starttls or none."},
	{Name: "SMTP_USER", Group: groupEmail, Doc: "SMTP user; set both SMTP_USER and SMTP_PASS or neither."},
	{Name: "SMTP_PASS", Group: groupEmail, Secret: true, Doc: "SMTP password."},
	{Name: "EMAIL_FROM_NAME", Group: groupEmail, Doc: "Display name of the sender (no line breaks)."},

	{Name: "STORE_URL", Group: groupStore, Secret: true, Example: "redis://redis:6379/0",
		Doc: "Redis URL of the shared rate-limit store, so limits hold across api instances. Unset keeps limits per process. In compose, start the `redis` profile and use redis://redis:6379/0."},

	{Name: "OBJECT_STORAGE_ENDPOINT", Group: groupStorage,
		Doc: "S3-compatible endpoint as an http(s) URL (AWS S3, MinIO, R2, Garage, ...). Endpoint, bucket and both keys enable image storage together; a partial set keeps images inline in PostgreSQL and logs one info line at start. Images stored inline before keep being served."},
	{Name: "OBJECT_STORAGE_BUCKET", Group: groupStorage, Doc: "Bucket for uploaded position images (create it first). Object keys are random ids, never user data."},
	{Name: "OBJECT_STORAGE_ACCESS_KEY_ID", Group: groupStorage, Secret: true, Doc: "Access key id (needs PutObject, GetObject and DeleteObject on the bucket)."},
	{Name: "OBJECT_STORAGE_SECRET_ACCESS_KEY", Group: groupStorage, Secret: true, Doc: "Secret access key."},
	{Name: "OBJECT_STORAGE_REGION", Group: groupStorage, Doc: "Region the requests are signed for; unset signs for us-east-1 (R2 wants auto)."},
	{Name: "OBJECT_STORAGE_FORCE_PATH_STYLE", Group: groupStorage, Doc: "true (default): https://endpoint/bucket/key, which most self-hosted stores need; false: virtual-hosted https://bucket.endpoint/key."},

	{Name: "ANALYTICS_API_KEY", Group: groupAnalytics, Secret: true, Doc: "Backend analytics key (a PostHog-compatible project key). Set, the api sends five product events (signed up, account created, calculator used, import committed, pack purchased) in batches to ANALYTICS_HOST/batch/, keyed by an HMAC of the user id derived from this key; unset, no event, goroutine or connection. Treat it as a secret: it keys the user surrogate."},
	{Name: "ANALYTICS_HOST", Group: groupAnalytics, Web: true, Doc: "Analytics ingestion host (https://eu.i.posthog.com, or a self-hosted one); unset or empty reads as the default US host."},
	{Name: "ANALYTICS_ENVIRONMENT", Group: groupAnalytics, Doc: "Label stamped on backend events as the property environment (for example production or staging)."},
	{Name: "ANALYTICS_PUBLIC_KEY", Group: groupAnalytics, Web: true, Doc: "Frontend analytics key."},
	{Name: "ANALYTICS_PUBLIC_FEEDBACK_SURVEY", Group: groupAnalytics, Web: true, Doc: "Feedback survey ids for the frontend."},

	{Name: "CORS_ALLOWED_ORIGINS", Group: groupCORS,
		Doc: "Comma-separated exact origins of a SPA served from another origin (never `*`; https except for localhost). Turns on CORS, SameSite=None; Secure cookies and anti-CSRF together."},
}
