package db_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"tradejournal/migrations"
	"tradejournal/shared/db"
	"tradejournal/shared/db/dbtest"
)

// TestMigrationChecksums: every applied migration is recorded with the
// SHA-256 of its file; rows recorded before checksums were get the file's
// on the next run; a file changed after it was applied stops Migrate
// before it applies anything more, naming the file.
func TestMigrationChecksums(t *testing.T) {
	ctx := context.Background()
	files := fileChecksums(t)
	connect := func(t *testing.T, u string) *pgx.Conn {
		t.Helper()
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return conn
	}
	// recorded is schema_migrations' checksum of each file it names.
	recorded := func(t *testing.T, conn *pgx.Conn) map[string]*string {
		t.Helper()
		rows, _ := conn.Query(ctx, `SELECT name, checksum FROM schema_migrations`)
		out := map[string]*string{}
		var (
			name string
			sum  *string
		)
		if _, err := pgx.ForEachRow(rows, []any{&name, &sum}, func() error { out[name] = sum; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	same := func(t *testing.T, got map[string]*string) {
		t.Helper()
		if len(got) != len(files) {
			t.Fatalf("%d migrations recorded, %d files", len(got), len(files))
		}
		for name, want := range files {
			if sum := got[name]; sum == nil || *sum != want {
				t.Errorf("%s: recorded checksum %v, file %s", name, sum, want)
			}
		}
	}

	t.Run("FreshDatabase", func(t *testing.T) {
		u := dbtest.Empty(t)
		if _, err := db.Migrate(ctx, u); err != nil {
			t.Fatal(err)
		}
		same(t, recorded(t, connect(t, u)))
	})

	t.Run("RecordedBeforeChecksums", func(t *testing.T) {
		u := dbtest.Empty(t)
		if _, err := db.MigrateUpTo(ctx, u, 20); err != nil {
			t.Fatal(err)
		}
		// The table as releases before checksums left it.
		conn := connect(t, u)
		if _, err := conn.Exec(ctx, `ALTER TABLE schema_migrations DROP COLUMN checksum`); err != nil {
			t.Fatal(err)
		}
		applied, err := db.Migrate(ctx, u)
		if err != nil || len(applied) == 0 || applied[0] != nameOf(files, 21) {
			t.Fatalf("applied %v (%v)", applied, err)
		}
		same(t, recorded(t, conn))
		// And a NULL left by anything else is filled the same way.
		if _, err := conn.Exec(ctx, `UPDATE schema_migrations SET checksum = NULL WHERE version IN (1, 33)`); err != nil {
			t.Fatal(err)
		}
		if applied, err := db.Migrate(ctx, u); err != nil || len(applied) != 0 {
			t.Fatalf("second run applied %v (%v)", applied, err)
		}
		same(t, recorded(t, conn))
	})

	t.Run("ErrMigrationChanged", func(t *testing.T) {
		u := dbtest.Empty(t)
		if _, err := db.MigrateUpTo(ctx, u, 33); err != nil {
			t.Fatal(err)
		}
		conn := connect(t, u)
		const tampered = "ab12" + "0000000000000000000000000000000000000000000000000000000000"
		if _, err := conn.Exec(ctx, `UPDATE schema_migrations SET checksum = $1 WHERE version = 33`, tampered); err != nil {
			t.Fatal(err)
		}
		applied, err := db.Migrate(ctx, u)
		if err == nil || len(applied) != 0 {
			t.Fatalf("applied %v (%v), want a refusal", applied, err)
		}
		name := nameOf(files, 33)
		for _, want := range []string{"migration " + name + " was changed after it was applied", tampered, files[name], "write a new migration instead"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		var last int
		if err := conn.QueryRow(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&last); err != nil || last != 33 {
			t.Fatalf("schema at version %d after the refusal (%v)", last, err)
		}
		if got := recorded(t, conn)[name]; got == nil || *got != tampered {
			t.Fatalf("the recorded checksum was overwritten: %v", got)
		}
	})
}

// fileChecksums is the SHA-256 (hex) of each embedded migration file.
func fileChecksums(t *testing.T) map[string]string {
	t.Helper()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("migration files %v (%v)", names, err)
	}
	out := map[string]string{}
	for _, name := range names {
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		out[name] = hex.EncodeToString(sum[:])
	}
	return out
}

// nameOf is the file name of a migration version.
func nameOf(files map[string]string, version int) string {
	prefix := fmt.Sprintf("%04d_", version)
	for name := range files {
		if strings.HasPrefix(name, prefix) {
			return name
		}
	}
	return ""
}
