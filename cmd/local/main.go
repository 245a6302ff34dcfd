// Command local runs Trade Journal as one long-lived process: every route
// group on one mux, graceful shutdown, and the operator's commands.
//
//	local                               serve (migrations first)
//	local migrate                       apply migrations and exit
//	local reset-password --email X      set a new password and end the user's sessions
//	local rotate-encryption-key         re-seal private text under ENCRYPTION_KEY
package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
	"tradejournal/shared/jobs"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/metrics"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	cfg, err := config.Load()
	if err != nil {
		return err
	}
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	if cfg.DB.URL == "" {
		return errors.New("DATABASE_URL is not set: `make run` starts a private PostgreSQL under ./.data and sets it")
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg)
	case "migrate":
		applied, err := journalstore.Migrate(ctx, cfg.DB.MigrationURL())
		fmt.Fprintf(stdout, "applied %d migration(s) %s\n", len(applied), strings.Join(applied, " "))
		return err
	case "reset-password":
		return resetPassword(ctx, cfg, args, stdin, stdout)
	case "rotate-encryption-key":
		return rotateEncryptionKey(ctx, cfg, stdout)
	}
	return fmt.Errorf("unknown command %q (serve, migrate, reset-password, rotate-encryption-key)", cmd)
}

// shutdownGrace bounds how long in-flight requests may drain at SIGTERM.
const shutdownGrace = 30 * time.Second

func serve(ctx context.Context, cfg config.Config) error {
	log := newLogger(cfg.LogLevel, os.Stdout)
	if applied, err := journalstore.Migrate(ctx, cfg.DB.MigrationURL()); err != nil {
		return err
	} else if len(applied) > 0 {
		log.Info("migrations applied", "files", applied)
	}
	a, err := app.New(ctx, cfg, log, app.SystemClock)
	if err != nil {
		return err
	}
	defer a.Close()
	if err := a.Start(ctx); err != nil {
		return fmt.Errorf("start-up: %w", err)
	}
	// The background jobs (shared/jobs: reservations, staged imports, the
	// SEC ticker list, option expiry, image objects, the mail outbox), each
	// on its own interval; stopped before the pool closes.
	defer jobs.Start(ctx, jobs.List(a, &http.Client{}), log)()

	// The built SPA (WEB_DIST_DIR, default ./web/dist) answers every path no
	// route claims; without one that stays the JSON 404.
	web, err := webHandler(cfg, os.Getenv, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("", strconv.Itoa(cfg.Port)))
	if err != nil {
		return err
	}
	// The metrics listener exists only with METRICS_ENABLED=true. A port
	// conflict is logged at error inside Listen and is not fatal: the api
	// serves on without it.
	var also []shutdowner
	if cfg.Metrics.Enabled {
		m, err := metrics.New(metrics.Options{Pool: a.DB, AppVersion: cfg.AppVersion, PoolMax: cfg.DB.PoolSize, Log: log})
		if err != nil {
			return err
		}
		a.Observe = m.Observe
		if ml := m.Listen(net.JoinHostPort(cfg.Metrics.Host, strconv.Itoa(cfg.Metrics.Port))); ml != nil {
			also = append(also, ml)
		}
	}
	log.Info("serving", "addr", ln.Addr().String(), "version", cfg.AppVersion)
	return serveUntilDone(ctx, ln, a.Serve(httpx.Mux(functions.All(a), web)), log, also...)
}

// shutdowner is a listener that closes with the main server (the metrics
// listener).
type shutdowner interface {
	Shutdown(context.Context) error
}

// serveUntilDone serves on ln until ctx ends (SIGTERM), then stops accepting
// and lets in-flight requests finish within shutdownGrace; the listeners in
// also (the metrics listener) close after the drain, or as soon as the main
// server fails. The caller closes the pool after it returns.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler, log *slog.Logger, also ...shutdowner) error {
	srv := httpx.DefaultTimeouts().Server(h, log)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	shutdownAlso := func(ctx context.Context) {
		for _, s := range also {
			if err := s.Shutdown(ctx); err != nil {
				log.Warn("closing a secondary listener", "err", err)
			}
		}
	}
	select {
	case err := <-served:
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer cancel()
		shutdownAlso(closeCtx)
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	shutdownAlso(shutdownCtx)
	return err
}

// resetPassword is how an operator resets a password when email is not
// configured. The new password comes from stdin with --password-stdin, or is
// generated and printed once.
func resetPassword(ctx context.Context, cfg config.Config, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("reset-password", flag.ContinueOnError)
	emailFlag := fs.String("email", "", "the user's email address")
	fromStdin := fs.Bool("password-stdin", false, "read the new password from the first line of stdin")
	if err := fs.Parse(args); err != nil {
		return err
	}
	email, msg := auth.NormalizeEmail(*emailFlag)
	if msg != "" {
		return fmt.Errorf("--email %s", msg)
	}
	password := rand.Text()
	if *fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		password = strings.TrimRight(line, "\r\n")
		if msg := auth.CheckPassword(password); msg != "" {
			return fmt.Errorf("password %s", msg)
		}
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	pool, err := db.Open(ctx, cfg.DB.MigrationURL(), db.Options{PoolSize: 1})
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := auth.SetPassword(ctx, pool, email, hash); err != nil {
		if err == apperr.ErrNotFound {
			return fmt.Errorf("no user has the email %s", email)
		}
		return err
	}
	if *fromStdin {
		fmt.Fprintf(stdout, "password of %s reset; their sessions have ended\n", email)
	} else {
		fmt.Fprintf(stdout, "new password for %s (shown once): %s\ntheir sessions have ended\n", email, password)
	}
	return nil
}

// rotateBatch is how many values one transaction of the rotation re-seals.
const rotateBatch = 500

// rotateEncryptionKey re-seals every private value under ENCRYPTION_KEY,
// opening old ones with ENCRYPTION_KEY_PREVIOUS. It commits batch by batch,
// so an interrupted run resumes when started again; afterwards the previous
// key can be dropped.
func rotateEncryptionKey(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	k, err := encrypt.New(cfg.Encryption.Key, cfg.Encryption.PreviousKey)
	if err != nil {
		return err
	}
	if k == nil {
		return errors.New("ENCRYPTION_KEY is not set: nothing to rotate to")
	}
	pool, err := db.Open(ctx, cfg.DB.MigrationURL(), db.Options{PoolSize: 1})
	if err != nil {
		return err
	}
	defer pool.Close()
	n, err := encrypt.Rotate(ctx, pool, k, encrypt.Sealed, rotateBatch)
	fmt.Fprintf(stdout, "re-sealed %d value(s) under the current key\n", n)
	return err
}
