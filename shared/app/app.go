// Package app builds the one App value both hosts hand to every route group:
// configuration, the database pool, the clock, the limiter and the session
// service, made once per process.
package app

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
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
}

// SystemClock is the hosts' clock: UTC wall time. Tests pass their own.
func SystemClock() time.Time { return time.Now().UTC() }

// New opens the pool and wires the services. It does not wait for the
// database, so a host starts while PostgreSQL is still coming up.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, now func() time.Time) (*App, error) {
	pool, err := db.Open(ctx, cfg.DB.URL, db.Options{PoolSize: cfg.DB.PoolSize, TransactionPooler: cfg.DB.TransactionPooler})
	if err != nil {
		return nil, err
	}
	return &App{
		Config:   cfg,
		DB:       pool,
		Now:      now,
		Log:      log,
		Limiter:  ratelimit.NewMemory(now),
		Sessions: auth.NewSessions(pool, now, cfg.CORS.SplitOrigin()),
	}, nil
}

// Start runs what every process does once at start, after migrations: the
// first-admin bootstrap.
func (a *App) Start(ctx context.Context) error {
	return auth.SeedAdmin(ctx, a.DB, a.Config.Accounts.SeedAdminEmail, a.Log)
}

// Close releases the pool.
func (a *App) Close() { a.DB.Close() }

// NewLogger is the JSON logger of both hosts, at LOG_LEVEL.
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: l}))
}

// Serve wraps a host's router with the middleware every host shares:
// request ids, logs and recovery (httpx.Serve).
func (a *App) Serve(router http.Handler) http.Handler {
	return httpx.Serve(router, a.Log, nil)
}
