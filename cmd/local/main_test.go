package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"tradejournal/migrations"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
)

func TestServeDrainsInFlightRequests(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		w.WriteHeader(http.StatusOK)
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUntilDone(ctx, ln, h, slog.New(slog.NewTextHandler(io.Discard, nil))) }()

	status := make(chan int, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			status <- 0
			return
		}
		res.Body.Close()
		status <- res.StatusCode
	}()
	<-entered
	cancel() // SIGTERM
	select {
	case err := <-done:
		t.Fatalf("server stopped before the in-flight request finished: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("still accepting connections after shutdown began")
	}
	close(release)
	if s := <-status; s != http.StatusOK {
		t.Fatalf("in-flight request got %d, want 200", s)
	}
	if err := <-done; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// buildBinary builds cmd/local once for all the process tests.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := builtBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var builtBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "tj-local-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "local")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	return bin, nil
})

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestBinaryServesAndStopsOnSIGTERM(t *testing.T) {
	cmd, port, logs := startLocal(t, buildBinary(t))
	_, _, body := get(t, fmt.Sprintf("http://127.0.0.1:%d/api/health", port))
	if !strings.Contains(body, `"version":"v9.9.9-abc123"`) || !strings.Contains(body, `"database":"up"`) {
		t.Fatalf("health %q\nlogs:\n%s", body, logs)
	}
	stopLocal(t, cmd, logs)
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Fatalf("a start with every optional variable unset logged an error:\n%s", logs)
	}
}

func TestBinaryRefusesBadBoolean(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DISABLE_REGISTRATION=yes", "DATABASE_URL=postgres://x@127.0.0.1:1/x")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("started with DISABLE_REGISTRATION=yes:\n%s", out)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "DISABLE_REGISTRATION") {
		t.Fatalf("want one line naming the variable, got:\n%s", out)
	}
}

// TestBinaryRefusesMalformedCatalogue: a CREDIT_PACKS that is valid JSON
// but not a valid catalogue stops start-up with one line naming it, before
// anything is served.
func TestBinaryRefusesMalformedCatalogue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // killed if it serves
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t))
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbtest.URL(t), fmt.Sprintf("PORT=%d", freePort(t)),
		`CREDIT_PACKS=[{"id":"a","label":"A","priceMinor":500,"currency":"USD","credits":0}]`)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("started with a pack of 0 credits:\n%s", out)
	}
	if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "CREDIT_PACKS") {
		t.Fatalf("want one line naming CREDIT_PACKS, got:\n%s", out)
	}
}

func TestResetPassword(t *testing.T) {
	url := dbtest.URL(t)
	t.Setenv("DATABASE_URL", url)
	ctx := context.Background()
	pool, err := db.Open(ctx, url, db.Options{PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	hash, _ := auth.HashPassword("old password")
	u, err := auth.CreateUser(ctx, pool, "ops@example.com", hash, "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO sessions (token_hash, user_id, expires_at) VALUES ('\x01', $1, now() + interval '1 day')`, u.ID); err != nil {
		t.Fatal(err)
	}
	passwordOf := func() string {
		var h string
		if err := pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, u.ID).Scan(&h); err != nil {
			t.Fatal(err)
		}
		return h
	}

	t.Run("FromStdin", func(t *testing.T) {
		var out bytes.Buffer
		err := run(ctx, []string{"reset-password", "--email", "OPS@example.com", "--password-stdin"}, strings.NewReader("brand new secret\n"), &out)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := auth.VerifyPassword("brand new secret", passwordOf()); !ok {
			t.Fatal("new password does not verify")
		}
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM sessions WHERE user_id = $1`, u.ID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d sessions left (%v)", n, err)
		}
		if strings.Contains(out.String(), "brand new secret") {
			t.Fatal("a password given on stdin was echoed")
		}
	})
	t.Run("Generated", func(t *testing.T) {
		var out bytes.Buffer
		if err := run(ctx, []string{"reset-password", "--email", "ops@example.com"}, strings.NewReader(""), &out); err != nil {
			t.Fatal(err)
		}
		_, generated, ok := strings.Cut(out.String(), "(shown once): ")
		if !ok {
			t.Fatalf("output %q", out.String())
		}
		generated, _, _ = strings.Cut(generated, "\n")
		if ok, _ := auth.VerifyPassword(generated, passwordOf()); !ok {
			t.Fatalf("printed password %q does not verify", generated)
		}
	})
	t.Run("UnknownEmail", func(t *testing.T) {
		err := run(ctx, []string{"reset-password", "--email", "nobody@example.com"}, strings.NewReader(""), io.Discard)
		if err == nil || !strings.Contains(err.Error(), "no user") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("DirectURLWins", func(t *testing.T) {
		t.Setenv("DATABASE_URL", "postgres://x@127.0.0.1:1/x")
		t.Setenv("DIRECT_DATABASE_URL", url)
		if err := run(ctx, []string{"reset-password", "--email", "ops@example.com"}, strings.NewReader(""), io.Discard); err != nil {
			t.Fatalf("reset through DIRECT_DATABASE_URL: %v", err)
		}
	})
	t.Run("ShortPassword", func(t *testing.T) {
		err := run(ctx, []string{"reset-password", "--email", "ops@example.com", "--password-stdin"}, strings.NewReader("short\n"), io.Discard)
		if err == nil {
			t.Fatal("accepted a 5-character password")
		}
	})
}

// TestMigrateCommandPrefersDirectURL runs `local migrate` with DATABASE_URL
// at a pooler that cannot take DDL (here: nothing listens) and
// DIRECT_DATABASE_URL at an empty database: the migrations go to the direct
// URL, once.
func TestMigrateCommandPrefersDirectURL(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DATABASE_URL", "postgres://x@127.0.0.1:1/x")
	t.Setenv("DIRECT_DATABASE_URL", dbtest.Empty(t))
	var out bytes.Buffer
	if err := run(ctx, []string{"migrate"}, strings.NewReader(""), &out); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out.String())
	}
	files, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("embedded migrations %v (%v)", files, err)
	}
	if want := fmt.Sprintf("applied %d migration(s)", len(files)); !strings.HasPrefix(out.String(), want) {
		t.Fatalf("first run printed %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := run(ctx, []string{"migrate"}, strings.NewReader(""), &out); err != nil || !strings.HasPrefix(out.String(), "applied 0 migration(s)") {
		t.Fatalf("second run: %q (%v)", out.String(), err)
	}
}

// TestStartMigratesAndSeedsTheFirstAdmin starts the binary on an empty
// database, as a fresh install does: it applies the migrations itself, and
// with SEED_ADMIN_EMAIL naming nobody yet it says so in one info line
// (without the address). After that user registers, the next start makes
// them admin.
func TestStartMigratesAndSeedsTheFirstAdmin(t *testing.T) {
	bin := buildBinary(t)
	empty := dbtest.Empty(t)
	env := []string{"DATABASE_URL=" + empty, "SEED_ADMIN_EMAIL=boss@example.com"}

	cmd, port, logs := startLocal(t, bin, env...)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	res, err := http.Post(base+"/api/auth/register", "application/json",
		strings.NewReader(`{"email":"Boss@Example.com","password":"password1"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("register on a freshly migrated database: %d\n%s", res.StatusCode, logs)
	}
	stopLocal(t, cmd, logs)
	first := logs.String()
	if n := strings.Count(first, "SEED_ADMIN_EMAIL names no registered user yet"); n != 1 ||
		!strings.Contains(first, `"level":"INFO","msg":"SEED_ADMIN_EMAIL names no registered user yet`) {
		t.Fatalf("want one info line saying no user has SEED_ADMIN_EMAIL yet, got %d:\n%s", n, first)
	}
	if strings.Contains(strings.ToLower(first), "boss@example.com") {
		t.Fatalf("an email address reached the log:\n%s", first)
	}

	cmd, _, logs = startLocal(t, bin, env...)
	stopLocal(t, cmd, logs)
	if !strings.Contains(logs.String(), "first admin bootstrapped") {
		t.Fatalf("second start did not bootstrap the admin:\n%s", logs)
	}
	pool, err := db.Open(context.Background(), empty, db.Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var admin bool
	if err := pool.QueryRow(context.Background(), `SELECT is_admin FROM users WHERE email = 'boss@example.com'`).Scan(&admin); err != nil || !admin {
		t.Fatalf("is_admin %v (%v)", admin, err)
	}
}
