// Package app builds the one App value both hosts hand to every route group:
// configuration, the database pool, the clock, the limiter and the session
// service, made once per process.
package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/analytics"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
	"tradejournal/shared/email"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/packs"
	"tradejournal/shared/ratelimit"
)

// App is every dependency a handler may use.
type App struct {
	Config   config.Config
	DB       *pgxpool.Pool
	Now      func() time.Time
	Log      *slog.Logger
	Limiter  ratelimit.Limiter
	Sessions *auth.Sessions
	// Outbox queues verification and reset mail; nil when email is not
	// configured.
	Outbox *email.Outbox
	// Analytics sends the few product events; nil (off, no goroutine, no
	// connection) when ANALYTICS_API_KEY is unset. Its methods accept nil.
	Analytics *analytics.Client
	// Objects is the bucket for position images; nil (images inline in
	// PostgreSQL) unless all four OBJECT_STORAGE_* values are set.
	Objects *objectstore.Client
	// Keyring seals private free text at rest; nil (plaintext) when
	// ENCRYPTION_KEY is unset.
	Keyring *encrypt.Keyring
	// Packs is the credit-pack catalogue (CREDIT_PACKS, or the default),
	// checked at start.
	Packs []packs.Pack
	// Observe records each request for the operational metrics; nil unless
	// METRICS_ENABLED=true. cmd/local builds the registry and serves it on its
	// own listener; the function platform has no listener, so its binaries
	// do not even link the registry.
	Observe httpx.Observer

	// proxies are the peers whose forwarding headers give the client
	// address (TRUSTED_PROXIES, and loopback).
	proxies *httpx.Proxies

	// splitOrigin is the CORS and anti-CSRF middleware of split-origin mode;
	// nil when CORS_ALLOWED_ORIGINS is unset.
	splitOrigin func(http.Handler) http.Handler
}

// SystemClock is the hosts' clock: UTC wall time. Tests pass their own.
func SystemClock() time.Time { return time.Now().UTC() }

// New opens the pool and wires the services. It does not wait for the
// database, so a host starts while PostgreSQL is still coming up.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time) (*App, error) {
	catalogue, err := packs.Parse(cfg.Billing.CreditPacks)
	if err != nil {
		return nil, err
	}
	keyring, err := encrypt.New(cfg.Encryption.Key, cfg.Encryption.PreviousKey)
	if err != nil {
		return nil, err
	}
	objects, err := objectstore.New(cfg.Storage, nil)
	if err != nil {
		return nil, err
	}
	if cfg.Storage.Partial() {
		log.Info("object storage is partly configured, so images stay inline in PostgreSQL", "unset", cfg.Storage.Missing())
	}
	var limiter ratelimit.Limiter = ratelimit.NewMemory(now)
	if cfg.Store.URL != "" {
		if limiter, err = ratelimit.NewRedis(cfg.Store.URL, now, log); err != nil {
			return nil, err
		}
	}
	proxies, err := httpx.ParseProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	pool, err := db.Open(ctx, cfg.DB.URL, db.Options{PoolSize: cfg.DB.PoolSize, TransactionPooler: cfg.DB.TransactionPooler})
	if err != nil {
		return nil, err
	}
	a := &App{
		Config:   cfg,
		DB:       pool,
		Now:      now,
		Log:      log,
		Limiter:  limiter,
		Keyring:  keyring,
		Objects:  objects,
		Sessions: auth.NewSessions(pool, now, cfg.CORS.SplitOrigin()),
		Packs:    catalogue,
		proxies:  proxies,
	}
	a.Sessions.AcceptAPITokens(limiter)
	a.Analytics = analytics.New(cfg.Analytics, analytics.Options{Secrets: cfg.Secrets(), Log: log, Now: now})
	if cfg.Email.Enabled() {
		a.Outbox = email.NewOutbox(pool, email.NewMailer(cfg.Email, nil), now, log)
	}
	if cfg.CORS.SplitOrigin() {
		a.splitOrigin, err = httpx.CORS(cfg.CORS.AllowedOrigins)
		if err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

// Start runs what every process does once at start, after migrations: the
// first-admin bootstrap.
func (a *App) Start(ctx context.Context) error {
	return auth.SeedAdmin(ctx, a.DB, a.Config.Accounts.SeedAdminEmail, a.Log)
}

// Close sends the queued analytics events (within
// analytics.ShutdownTimeout) and releases the pool and the rate-limit
// store's connections.
func (a *App) Close() {
	_ = a.Analytics.Close()
	if c, ok := a.Limiter.(io.Closer); ok {
		_ = c.Close()
	}
	a.DB.Close()
}

// NewLogger is the JSON logger of both hosts, at LOG_LEVEL.
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: l}))
}

// Serve wraps a host's router with the middleware every host shares:
// request ids, logs and recovery (httpx.Serve), the request metrics when
// they are on, the trusted proxies of the client address, and in
// split-origin mode CORS and anti-CSRF, which sit before the router so
// their answers keep the route label "unmatched".
func (a *App) Serve(router http.Handler) http.Handler {
	if a.splitOrigin != nil {
		router = a.splitOrigin(router)
	}
	return httpx.Serve(httpx.TrustProxies(a.proxies, router), a.Log, a.Observe)
}
