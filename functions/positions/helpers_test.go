package positions_test

import (
	"context"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

const (
	missingID = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
	ibFixed   = "00000000-0000-4000-8000-000000000002"
)

// fixture is a server with two signed-in users; a has an account.
type fixture struct {
	srv     *apitest.Server
	a, b    *apitest.Client
	account string
}

func setup(t *testing.T, account map[string]any) fixture {
	t.Helper()
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	f := fixture{srv: srv, a: srv.Client(t), b: srv.Client(t)}
	f.a.Register("a@example.com", "password1")
	f.b.Register("b@example.com", "password1")
	if account == nil {
		account = map[string]any{"name": "Main", "currency": "USD", "startingBalance": "10000"}
	}
	f.account = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", account), 201), "account")["id"].(string)
	return f
}

// fill is a fill body.
func fill(typ, price, qty, fees, at string) map[string]any {
	m := map[string]any{"type": typ, "price": price, "quantity": qty, "filledAt": at}
	if fees != "" {
		m["fees"] = fees
	}
	return m
}

// detailFields lists the fields named by a 400's details.
func detailFields(t *testing.T, r apitest.Response) []string {
	t.Helper()
	e := apitest.Object(t, r, "error")
	ds, _ := e["details"].([]any)
	var out []string
	for _, d := range ds {
		out = append(out, d.(map[string]any)["field"].(string))
	}
	return out
}

// checkLedger holds every account to balance = starting balance + ledger,
// and every position's ledger rows to its net P&L.
func checkLedger(t *testing.T, srv *apitest.Server) {
	t.Helper()
	ctx := context.Background()
	var bad int
	const q = `SELECT count(*) FROM accounts a WHERE a.balance <> a.starting_balance
		+ coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.account_id = a.id), 0)`
	if err := srv.App.DB.QueryRow(ctx, q).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d accounts whose balance is not starting balance + ledger (%v)", bad, err)
	}
	const q2 = `SELECT count(*) FROM positions p WHERE p.net_pnl <>
		coalesce((SELECT sum(amount) FROM ledger_entries l WHERE l.position_id = p.id), 0)`
	if err := srv.App.DB.QueryRow(ctx, q2).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d positions whose ledger rows do not sum to their net P&L (%v)", bad, err)
	}
}

func balance(t *testing.T, c *apitest.Client, account string) string {
	t.Helper()
	return apitest.Object(t, apitest.Must(t, c.Do("GET", "/api/accounts/"+account, nil), 200), "account")["balance"].(string)
}
