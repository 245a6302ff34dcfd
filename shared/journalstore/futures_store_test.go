package journalstore_test

import (
	"context"
	"testing"
	"time"

	"tradejournal/shared/db"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/journalstore"
)

// TestFuturesSchema holds migration 0014's constraints (a future has a root
// and a first-of-month contract month and no option fields; nothing else
// has a contract month; stocks and options keep whole multipliers) and
// Recompute's use of a fractional multiplier.
func TestFuturesSchema(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	user := newUser(t, pool, "futures@example.com")
	var account string
	if err := pool.QueryRow(ctx, `INSERT INTO accounts (user_id, name, currency) VALUES ($1, 'Main', 'USD') RETURNING id::text`, user).Scan(&account); err != nil {
		t.Fatal(err)
	}
	insert := func(symbol, asset string, root *string, month *time.Time, strike *string, mult string) (string, error) {
		var id string
		err := pool.QueryRow(ctx, `INSERT INTO positions (user_id, account_id, symbol, asset_type, underlying, contract_month,
				option_strike, multiplier, side)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'long') RETURNING id::text`, user, account, symbol, asset, root, month, strike, mult).Scan(&id)
		return id, err
	}
	mym, march, mid := "MYM", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC)
	strike := "100"
	for _, bad := range []struct {
		name          string
		symbol, asset string
		root          *string
		month         *time.Time
		strike        *string
		mult          string
	}{
		{"FutureWithoutMonth", "MYMH24", "future", &mym, nil, nil, "0.5"},
		{"FutureWithoutRoot", "MYMH24", "future", nil, &march, nil, "0.5"},
		{"MonthNotFirstDay", "MYMH24", "future", &mym, &mid, nil, "0.5"},
		{"FutureWithStrike", "MYMH24", "future", &mym, &march, &strike, "0.5"},
		{"StockWithMonth", "AAPL", "stock", nil, &march, nil, "1"},
		{"FractionalStockMultiplier", "AAPL", "stock", nil, nil, nil, "0.5"},
		{"ZeroMultiplier", "MYMH24", "future", &mym, &march, nil, "0"},
		{"ForexWithoutPair", "EUR/USD", "forex", nil, nil, nil, "1"},
		{"UnknownAssetType", "T", "bond", nil, nil, nil, "1"},
	} {
		_, err := insert(bad.symbol, bad.asset, bad.root, bad.month, bad.strike, bad.mult)
		if sqlState(err) != "23514" {
			t.Errorf("%s: %v, want a check violation", bad.name, err)
		}
	}

	id, err := insert("MYMH24", "future", &mym, &march, nil, "0.5")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 1, 24, 15, 0, 0, 0, time.UTC)
	if _, err := pool.Exec(ctx, `INSERT INTO fills (position_id, type, price, quantity, fees, filled_at)
		VALUES ($1, 'entry', 38000, 3, 0, $2), ($1, 'exit', 38013.5, 3, 0, $3)`, id, at, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := db.InTx(ctx, pool, func(tx pgx.Tx) error { return journalstore.Rederive(ctx, tx, id) }); err != nil {
		t.Fatal(err)
	}
	var gross, balance string
	if err := pool.QueryRow(ctx, `SELECT p.gross_pnl::text, a.balance::text FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.id = $1`, id).Scan(&gross, &balance); err != nil {
		t.Fatal(err)
	}
	// 13.5 points x 3 x 0.5.
	if gross != "20.2500" || balance != "20.2500" {
		t.Fatalf("gross %s, balance %s", gross, balance)
	}
}
