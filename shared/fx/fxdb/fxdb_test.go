package fxdb_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
)

func TestLoad(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	var user, other string
	for _, dst := range []struct {
		email string
		id    *string
	}{{"a@example.com", &user}, {"b@example.com", &other}} {
		if err := pool.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id::text`, dst.email).Scan(dst.id); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`INSERT INTO accounts (user_id, name, currency, balance, archived) VALUES
		($1, 'a', 'USD', 100, false), ($1, 'b', 'USD', 50.5, true), ($1, 'c', 'EUR', -20, false), ($2, 'd', 'GBP', 9, false)`, user, other)
	rate := func(owner, base, quote, date, value string) string {
		t.Helper()
		var id string
		if err := pool.QueryRow(ctx, `INSERT INTO exchange_rates (user_id, base_currency, quote_currency, effective_date, rate)
			VALUES ($1, $2, $3, $4::date, $5::numeric) RETURNING id::text`, owner, base, quote, date, value).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	rate(user, "EUR", "USD", "2024-01-01", "1.01")
	rate(user, "EUR", "USD", "2024-02-01", "1.02")
	rate(user, "EUR", "USD", "2024-03-01", "1.03")
	rate(user, "EUR", "USD", "2024-04-01", "1.04") // after the day
	rate(user, "USD", "JPY", "2024-01-01", "150")
	unrelated := rate(user, "EUR", "GBP", "2024-01-01", "0.8") // no USD side
	othersRate := rate(other, "EUR", "USD", "2024-03-01", "9")
	day := time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC)

	describe := func(rs []fx.Rate) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Base+"/"+r.Quote+" "+r.Date.Format(time.DateOnly)+" "+r.Value.String())
		}
		slices.Sort(out)
		return out
	}
	t.Run("Spot", func(t *testing.T) {
		s, err := fxdb.Load(ctx, pool, fxdb.Query{UserID: user, Display: "USD", Day: day, Keep: 1})
		if err != nil {
			t.Fatal(err)
		}
		var balances []string
		for _, b := range s.Balances {
			balances = append(balances, b.Currency+" "+b.Value.String())
		}
		slices.Sort(balances)
		if !slices.Equal(balances, []string{"EUR -20", "USD 150.5"}) {
			t.Fatalf("balances %v", balances)
		}
		if got := describe(s.Rates); !slices.Equal(got, []string{"EUR/USD 2024-03-01 1.03", "USD/JPY 2024-01-01 150"}) {
			t.Fatalf("rates %v", got)
		}
		if s.RateFound {
			t.Fatal("RateFound without a rate id")
		}
	})
	t.Run("KeepTwo", func(t *testing.T) {
		s, err := fxdb.Load(ctx, pool, fxdb.Query{UserID: user, Display: "USD", Day: day, Keep: 2, RateID: unrelated})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"EUR/USD 2024-02-01 1.02", "EUR/USD 2024-03-01 1.03", "USD/JPY 2024-01-01 150"}
		if got := describe(s.Rates); !slices.Equal(got, want) || !s.RateFound {
			t.Fatalf("rates %v found %v", got, s.RateFound)
		}
	})
	t.Run("OthersRateNotFound", func(t *testing.T) {
		s, err := fxdb.Load(ctx, pool, fxdb.Query{UserID: user, Display: "USD", Day: day, Keep: 1, RateID: othersRate})
		if err != nil || s.RateFound {
			t.Fatalf("found %v (%v)", s.RateFound, err)
		}
	})
	t.Run("NoDisplayReadsNoRates", func(t *testing.T) {
		s, err := fxdb.Load(ctx, pool, fxdb.Query{UserID: user, Day: day, Keep: 1})
		if err != nil || len(s.Rates) != 0 || len(s.Balances) != 2 {
			t.Fatalf("%+v (%v)", s, err)
		}
	})
}
