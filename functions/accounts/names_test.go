package accounts_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"tradejournal/functions"
	"tradejournal/migrations"
	"tradejournal/shared/apitest"
)

// TestAccountNamesUnique: a user's accounts have distinct names, ignoring
// case and the spaces around them; another user may use the same name.
func TestAccountNamesUnique(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a, b := srv.Client(t), srv.Client(t)
	a.Register("names-a@example.com", "password1")
	b.Register("names-b@example.com", "password1")
	main := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201), "account")
	other := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Other", "currency": "USD"}), 201), "account")

	taken := func(t *testing.T, r apitest.Response) {
		t.Helper()
		apitest.CheckErrorShape(t, r)
		details, _ := r.JSON["error"].(map[string]any)["details"].([]any)
		if r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" || len(details) != 1 ||
			details[0].(map[string]any)["field"] != "name" || !strings.Contains(string(r.Body), "already") {
			t.Fatalf("want 400 VALIDATION_ERROR naming name, got %d %s", r.Status, r.Body)
		}
	}
	t.Run("CreateRefusesTheSameName", func(t *testing.T) {
		taken(t, a.Do("POST", "/api/accounts", map[string]any{"name": "  main ", "currency": "EUR"}))
	})
	t.Run("RenameRefusesAnotherAccountsName", func(t *testing.T) {
		taken(t, a.Do("PATCH", "/api/accounts/"+other["id"].(string), map[string]any{"name": "MAIN"}))
	})
	t.Run("RenameToItsOwnNameInAnotherCase", func(t *testing.T) {
		apitest.Must(t, a.Do("PATCH", "/api/accounts/"+main["id"].(string), map[string]any{"name": "main"}), 200)
	})
	t.Run("AnotherUserMayUseIt", func(t *testing.T) {
		apitest.Must(t, b.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}), 201)
	})
}

// TestAccountNamesMigration: the migration renames the duplicates a journal
// already holds (oldest first keeps its name; the suffix skips names in
// use and stays within 100 characters) before it creates the index.
func TestAccountNamesMigration(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	a := srv.Client(t)
	a.Register("names-m@example.com", "password1")
	ctx := context.Background()
	pool := srv.App.DB
	if _, err := pool.Exec(ctx, `DROP INDEX accounts_user_name_key`); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 100)
	// One request each: created_at (the order of the duplicates) grows.
	for _, name := range []string{"Main", "main", "MAIN", "Main (2)", long, long} {
		apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": name, "currency": "USD"}), 201)
	}
	sql, err := migrations.FS.ReadFile("0019_account_names.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, string(sql)); err != nil {
		t.Fatalf("migration: %v", err)
	}
	rows, _ := pool.Query(ctx, `SELECT name FROM accounts ORDER BY created_at, id`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Main", "main (3)", "MAIN (4)", "Main (2)", long, strings.Repeat("x", 96) + " (2)"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Fatalf("names after the migration:\n%q\nwant\n%q", names, want)
	}
}
