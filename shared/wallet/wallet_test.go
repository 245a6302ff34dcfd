package wallet_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/wallet"
)

// clock is a settable test clock.
type clock struct{ t atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.t.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMicro())
	return c
}
func (c *clock) Now() time.Time          { return time.UnixMicro(c.t.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.t.Add(d.Microseconds()) }
func billingCfg(configured bool) config.Billing {
	b := config.Billing{MinReservationCredits: 1, ReservationTTL: 10 * time.Minute, PricingMarkup: decimal.RequireFromString("1.2")}
	if configured {
		b.SecretKey = "sk_test_x"
	}
	return b
}

var userSeq atomic.Int64

func newUser(t testing.TB, pool *pgxpool.Pool) string {
	t.Helper()
	var id string
	email := fmt.Sprintf("wallet%d@example.com", userSeq.Add(1))
	if err := pool.QueryRow(context.Background(), `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id::text`, email).Scan(&id); err != nil {
		t.Fatalf("create user: %v", err)
	}
	return id
}

func fund(t testing.TB, pool *pgxpool.Pool, userID string, credits int64) {
	t.Helper()
	if _, err := wallet.CreditPurchase(context.Background(), pool, userID, credits, "starter", "cs_test_"+userID+fmt.Sprint(rand.Int64()), time.Now()); err != nil {
		t.Fatalf("fund: %v", err)
	}
}

func balance(t testing.TB, pool *pgxpool.Pool, userID string) wallet.Balance {
	t.Helper()
	b, err := wallet.Get(context.Background(), pool, userID)
	if err != nil {
		t.Fatalf("get balance: %v", err)
	}
	return b
}

func wantBalance(t testing.TB, pool *pgxpool.Pool, userID string, bal, reserved int64) {
	t.Helper()
	if b := balance(t, pool, userID); b.Balance != bal || b.Reserved != reserved || b.Available != bal-reserved {
		t.Fatalf("wallet %+v, want balance %d reserved %d", b, bal, reserved)
	}
}

func wantCode(t testing.TB, err error, code apperr.Code) {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

func TestPrice(t *testing.T) {
	markup := decimal.RequireFromString("1.2")
	cases := []struct {
		raw  string
		want int64
	}{
		{"0", 0}, {"1", 2}, {"10", 12}, {"0.5", 1}, {"0.000001", 1}, {"5", 6}, {"4.1666", 5},
		{"1000000", 1200000}, {"833333.34", 1000001}, {"1e40", math.MaxInt64},
	}
	for _, tc := range cases {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := wallet.Price(decimal.RequireFromString(tc.raw), markup)
			if err != nil || got != tc.want {
				t.Fatalf("Price(%s) = %d, %v; want %d", tc.raw, got, err, tc.want)
			}
		})
	}
	t.Run("Negative", func(t *testing.T) {
		if _, err := wallet.Price(decimal.RequireFromString("-1"), markup); err == nil {
			t.Fatal("a negative cost was priced")
		}
	})
}

func TestReserveGate(t *testing.T) {
	pool := dbtest.New(t)
	clk := newClock()
	ctx := context.Background()

	t.Run("NoWalletConfigured", func(t *testing.T) {
		_, err := wallet.New(pool, clk.Now, billingCfg(true)).Reserve(ctx, newUser(t, pool), 100)
		wantCode(t, err, apperr.InsufficientCredits)
	})
	t.Run("NoWalletUnconfigured", func(t *testing.T) {
		_, err := wallet.New(pool, clk.Now, billingCfg(false)).Reserve(ctx, newUser(t, pool), 100)
		wantCode(t, err, apperr.BillingNotAvailable)
	})
	t.Run("HoldsEstimate", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 1000)
		r, err := wallet.New(pool, clk.Now, billingCfg(true)).Reserve(ctx, u, 300)
		if err != nil {
			t.Fatal(err)
		}
		if r.Amount != 300 || r.UserID != u || !r.ExpiresAt.Equal(clk.Now().Add(10*time.Minute)) {
			t.Fatalf("reservation %+v", r)
		}
		wantBalance(t, pool, u, 1000, 300)
	})
	t.Run("HoldsWhatIsAvailable", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 50)
		r, err := wallet.New(pool, clk.Now, billingCfg(true)).Reserve(ctx, u, 300)
		if err != nil || r.Amount != 50 {
			t.Fatalf("reservation %+v, %v; want a hold of the 50 available", r, err)
		}
		wantBalance(t, pool, u, 50, 50)
		_, err = wallet.New(pool, clk.Now, billingCfg(true)).Reserve(ctx, u, 1)
		wantCode(t, err, apperr.InsufficientCredits)
	})
	t.Run("BelowMinimum", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 99)
		cfg := billingCfg(true)
		cfg.MinReservationCredits = 100
		_, err := wallet.New(pool, clk.Now, cfg).Reserve(ctx, u, 50)
		wantCode(t, err, apperr.InsufficientCredits)
		cfg.SecretKey = ""
		_, err = wallet.New(pool, clk.Now, cfg).Reserve(ctx, u, 50)
		wantCode(t, err, apperr.BillingNotAvailable)
		wantBalance(t, pool, u, 99, 0)
	})
	t.Run("CreditsWithoutBillingStillPass", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 10)
		if _, err := wallet.New(pool, clk.Now, billingCfg(false)).Reserve(ctx, u, 5); err != nil {
			t.Fatalf("a funded wallet was refused without billing: %v", err)
		}
	})
	t.Run("MinimumZeroAdmitsEmptyWallet", func(t *testing.T) {
		u := newUser(t, pool)
		cfg := billingCfg(true)
		cfg.MinReservationCredits = 0
		r, err := wallet.New(pool, clk.Now, cfg).Reserve(ctx, u, 5)
		if err != nil || r.Amount != 0 {
			t.Fatalf("reservation %+v, %v; want a zero hold", r, err)
		}
	})
	t.Run("NonPositiveEstimate", func(t *testing.T) {
		if _, err := wallet.New(pool, clk.Now, billingCfg(true)).Reserve(ctx, newUser(t, pool), 0); err == nil {
			t.Fatal("a zero estimate was accepted")
		}
	})
}

// TestReserveConcurrent is the test: 50 concurrent reservations
// against a wallet that covers 10 admit exactly 10, whether they reach one
// process's gate or the gates of several processes (each with its own pool).
func TestReserveConcurrent(t *testing.T) {
	pool := dbtest.New(t)
	second, err := pgxpool.New(context.Background(), pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Close)
	clk := newClock()
	for _, tc := range []struct {
		name  string
		gates []*wallet.Service
	}{
		{"OneProcess", []*wallet.Service{wallet.New(pool, clk.Now, billingCfg(true))}},
		{"ThreeProcesses", []*wallet.Service{wallet.New(pool, clk.Now, billingCfg(true)), wallet.New(second, clk.Now, billingCfg(true)), wallet.New(pool, clk.Now, billingCfg(true))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUser(t, pool)
			fund(t, pool, u, 10*250)
			var admitted, refused atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 50 {
				wg.Go(func() {
					<-start
					_, err := tc.gates[i%len(tc.gates)].Reserve(context.Background(), u, 250)
					switch e, ok := apperr.As(err); {
					case err == nil:
						admitted.Add(1)
					case ok && e.Code == apperr.InsufficientCredits:
						refused.Add(1)
					default:
						t.Errorf("reserve: %v", err)
					}
				})
			}
			close(start)
			wg.Wait()
			if admitted.Load() != 10 || refused.Load() != 40 {
				t.Fatalf("admitted %d, refused %d; want 10 and 40", admitted.Load(), refused.Load())
			}
			wantBalance(t, pool, u, 2500, 2500)
		})
	}
	checkInvariants(t, pool)
}

// TestReserveCallerGivesUp: a caller whose context ends while its
// reservation is being decided gets its error and holds nothing.
func TestReserveCallerGivesUp(t *testing.T) {
	pool := dbtest.New(t)
	clk := newClock()
	svc := wallet.New(pool, clk.Now, billingCfg(true))
	u := newUser(t, pool)
	fund(t, pool, u, 1_000_000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := svc.Reserve(ctx, u, 100); !errors.Is(err, context.Canceled) {
		t.Fatalf("reserve with an ended context: %v", err)
	}
	// Many callers giving up at random moments leave no hold behind.
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%20)*100*time.Microsecond)
			defer cancel()
			if r, err := svc.Reserve(ctx, u, 100); err == nil {
				if err := svc.Release(context.Background(), r.ID); err != nil {
					t.Errorf("release: %v", err)
				}
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for balance(t, pool, u).Reserved != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // abandoned holds are released by the gate, just after
	}
	wantBalance(t, pool, u, 1_000_000, 0)
	checkInvariants(t, pool)
}

func TestSettle(t *testing.T) {
	pool := dbtest.New(t)
	clk := newClock()
	ctx := context.Background()
	svc := wallet.New(pool, clk.Now, billingCfg(true))

	t.Run("ChargesMarkupRoundedUp", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 1000)
		r, err := svc.Reserve(ctx, u, 500)
		if err != nil {
			t.Fatal(err)
		}
		s, err := svc.Settle(ctx, r.ID, decimal.RequireFromString("100.5"))
		if err != nil {
			t.Fatal(err)
		}
		// 100.5 x 1.2 = 120.6, rounded up to 121.
		if s != (wallet.Settlement{Priced: 121, Charged: 121, Released: 379, Balance: 879}) {
			t.Fatalf("settlement %+v", s)
		}
		wantBalance(t, pool, u, 879, 0)
		var raw, markup decimal.Decimal
		var priced, charged int64
		if err := pool.QueryRow(ctx, `SELECT raw_cost, markup, priced, charged FROM credit_usage WHERE reservation_id = $1`, r.ID).
			Scan(&raw, &markup, &priced, &charged); err != nil {
			t.Fatal(err)
		}
		if raw.String() != "100.5" || markup.String() != "1.2" || priced != 121 || charged != 121 {
			t.Fatalf("usage %s %s %d %d", raw, markup, priced, charged)
		}
		page, err := wallet.History(ctx, pool, u, "", 10)
		if err != nil || len(page.Items) != 2 || page.Items[0].Kind != "usage" || page.Items[0].Amount != -121 || page.Items[0].BalanceAfter != 879 {
			t.Fatalf("history %+v, %v", page, err)
		}

		t.Run("Twice", func(t *testing.T) {
			_, err := svc.Settle(ctx, r.ID, decimal.RequireFromString("100"))
			if !errors.Is(err, wallet.ErrClosed) {
				t.Fatalf("second settle: %v", err)
			}
			wantBalance(t, pool, u, 879, 0)
		})
		t.Run("ReleaseAfterSettle", func(t *testing.T) {
			if err := svc.Release(ctx, r.ID); !errors.Is(err, wallet.ErrClosed) {
				t.Fatalf("release after settle: %v", err)
			}
		})
	})
	t.Run("CappedAtAvailable", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 1000)
		a, _ := svc.Reserve(ctx, u, 300)
		b, _ := svc.Reserve(ctx, u, 300)
		// a may spend its own 300 and the free 400, not b's hold.
		s, err := svc.Settle(ctx, a.ID, decimal.RequireFromString("5000"))
		if err != nil {
			t.Fatal(err)
		}
		if s != (wallet.Settlement{Priced: 6000, Charged: 700, Released: 0, Balance: 300}) {
			t.Fatalf("settlement %+v", s)
		}
		wantBalance(t, pool, u, 300, 300)
		s, err = svc.Settle(ctx, b.ID, decimal.RequireFromString("1000"))
		if err != nil || s.Charged != 300 || s.Balance != 0 {
			t.Fatalf("settlement %+v, %v", s, err)
		}
		wantBalance(t, pool, u, 0, 0)
	})
	t.Run("ZeroCost", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 100)
		r, _ := svc.Reserve(ctx, u, 50)
		s, err := svc.Settle(ctx, r.ID, decimal.Zero)
		if err != nil || s.Charged != 0 || s.Released != 50 {
			t.Fatalf("settlement %+v, %v", s, err)
		}
		wantBalance(t, pool, u, 100, 0)
	})
	t.Run("Released", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 100)
		r, _ := svc.Reserve(ctx, u, 50)
		if err := svc.Release(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		wantBalance(t, pool, u, 100, 0)
		if _, err := svc.Settle(ctx, r.ID, decimal.NewFromInt(10)); !errors.Is(err, wallet.ErrClosed) {
			t.Fatalf("settle after release: %v", err)
		}
		if err := svc.Release(ctx, r.ID); !errors.Is(err, wallet.ErrClosed) {
			t.Fatalf("second release: %v", err)
		}
		wantBalance(t, pool, u, 100, 0)
	})
	t.Run("Expired", func(t *testing.T) {
		clk := newClock()
		svc := wallet.New(pool, clk.Now, billingCfg(true))
		u := newUser(t, pool)
		fund(t, pool, u, 100)
		r, _ := svc.Reserve(ctx, u, 50)
		clk.Advance(10 * time.Minute)
		if _, err := svc.Settle(ctx, r.ID, decimal.NewFromInt(10)); !errors.Is(err, wallet.ErrExpired) {
			t.Fatalf("settle after expiry: %v", err)
		}
		wantBalance(t, pool, u, 100, 0)
		if _, err := svc.Settle(ctx, r.ID, decimal.NewFromInt(10)); !errors.Is(err, wallet.ErrClosed) {
			t.Fatalf("settle of a closed expired reservation: %v", err)
		}
		wantBalance(t, pool, u, 100, 0)
	})
	t.Run("Unknown", func(t *testing.T) {
		for _, id := range []string{"00000000-0000-4000-8000-000000000000", "not-a-uuid", ""} {
			if _, err := svc.Settle(ctx, id, decimal.NewFromInt(1)); err != apperr.ErrNotFound {
				t.Fatalf("settle %q: %v", id, err)
			}
			if err := svc.Release(ctx, id); err != apperr.ErrNotFound {
				t.Fatalf("release %q: %v", id, err)
			}
		}
	})
	t.Run("NegativeCost", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 100)
		r, _ := svc.Reserve(ctx, u, 50)
		if _, err := svc.Settle(ctx, r.ID, decimal.NewFromInt(-1)); err == nil {
			t.Fatal("a negative cost was settled")
		}
		wantBalance(t, pool, u, 100, 50)
	})
	t.Run("ConcurrentSettleChargesOnce", func(t *testing.T) {
		u := newUser(t, pool)
		fund(t, pool, u, 1000)
		r, _ := svc.Reserve(ctx, u, 500)
		var ok, closed atomic.Int64
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				_, err := svc.Settle(ctx, r.ID, decimal.NewFromInt(100))
				switch {
				case err == nil:
					ok.Add(1)
				case errors.Is(err, wallet.ErrClosed):
					closed.Add(1)
				default:
					t.Errorf("settle: %v", err)
				}
			})
		}
		wg.Wait()
		if ok.Load() != 1 || closed.Load() != 19 {
			t.Fatalf("%d settled, %d refused", ok.Load(), closed.Load())
		}
		wantBalance(t, pool, u, 880, 0)
	})
	checkInvariants(t, pool)
}

// Extend grows a turn's hold for its next round when the free credits
// cover it, refuses as the gate does (the hold unchanged) when they do not,
// and a settlement then charges the real total within the grown hold.
func TestExtend(t *testing.T) {
	pool := dbtest.New(t)
	clk := newClock()
	ctx := context.Background()
	svc := wallet.New(pool, clk.Now, billingCfg(true))
	u := newUser(t, pool)
	fund(t, pool, u, 100)
	r, err := svc.Reserve(ctx, u, 30)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Extend(ctx, r.ID, 80); err != nil || got.Amount != 80 || got.ID != r.ID {
		t.Fatalf("extend to 80: %+v %v", got, err)
	}
	wantBalance(t, pool, u, 100, 80)
	if got, err := svc.Extend(ctx, r.ID, 50); err != nil || got.Amount != 80 {
		t.Fatalf("a smaller hold shrinks nothing: %+v %v", got, err)
	}
	// Another hold takes 15 of the 20 free: 90 is out of reach.
	other, err := svc.Reserve(ctx, u, 15)
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.Extend(ctx, r.ID, 90)
	wantCode(t, err, apperr.InsufficientCredits)
	wantBalance(t, pool, u, 100, 95)
	if got, err := svc.Extend(ctx, r.ID, 85); err != nil || got.Amount != 85 {
		t.Fatalf("extend to 85: %+v %v", got, err)
	}
	// 70 x 1.2 = 84: charged whole, the rest of the hold freed.
	s, err := svc.Settle(ctx, r.ID, decimal.NewFromInt(70))
	if err != nil || s.Charged != 84 || s.Released != 1 {
		t.Fatalf("settle %+v %v", s, err)
	}
	wantBalance(t, pool, u, 16, 15)
	if _, err := svc.Extend(ctx, r.ID, 90); !errors.Is(err, wallet.ErrClosed) {
		t.Fatalf("extend a settled hold: %v", err)
	}
	if _, err := svc.Extend(ctx, "00000000-0000-4000-8000-000000000000", 1); !errors.Is(err, apperr.ErrNotFound) {
		t.Fatalf("unknown hold: %v", err)
	}
	clk.Advance(11 * time.Minute)
	if _, err := svc.Extend(ctx, other.ID, 16); !errors.Is(err, wallet.ErrExpired) {
		t.Fatalf("expired hold: %v", err)
	}
	wantBalance(t, pool, u, 16, 0)

	t.Run("NoBilling", func(t *testing.T) {
		svc := wallet.New(pool, clk.Now, billingCfg(false))
		v := newUser(t, pool)
		fund(t, pool, v, 10)
		r, err := svc.Reserve(ctx, v, 10)
		if err != nil {
			t.Fatal(err)
		}
		_, err = svc.Extend(ctx, r.ID, 11)
		wantCode(t, err, apperr.BillingNotAvailable)
	})
}

func TestSweepExpired(t *testing.T) {
	pool := dbtest.New(t)
	clk := newClock()
	ctx := context.Background()
	svc := wallet.New(pool, clk.Now, billingCfg(true))
	u1, u2 := newUser(t, pool), newUser(t, pool)
	fund(t, pool, u1, 10000)
	fund(t, pool, u2, 10000)

	var early []wallet.Reservation
	for i := range 1200 { // more than one sweep batch
		u := u1
		if i%2 == 1 {
			u = u2
		}
		r, err := svc.Reserve(ctx, u, 1)
		if err != nil {
			t.Fatal(err)
		}
		early = append(early, r)
	}
	clk.Advance(5 * time.Minute)
	late, err := svc.Reserve(ctx, u1, 100)
	if err != nil {
		t.Fatal(err)
	}
	settled, _ := svc.Reserve(ctx, u2, 100)
	if _, err := svc.Settle(ctx, settled.ID, decimal.NewFromInt(10)); err != nil {
		t.Fatal(err)
	}

	if n, err := wallet.SweepExpired(ctx, pool, clk.Now()); err != nil || n != 0 {
		t.Fatalf("sweep before any expiry closed %d (%v)", n, err)
	}
	clk.Advance(5 * time.Minute) // the early ones are now exactly at their expiry
	// Two sweepers at once close each reservation once.
	var total atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			n, err := wallet.SweepExpired(ctx, pool, clk.Now())
			if err != nil {
				t.Errorf("sweep: %v", err)
			}
			total.Add(int64(n))
		})
	}
	wg.Wait()
	if total.Load() != int64(len(early)) {
		t.Fatalf("swept %d, want %d", total.Load(), len(early))
	}
	wantBalance(t, pool, u1, 10000, 100)
	wantBalance(t, pool, u2, 10000-12, 0)
	if _, err := svc.Settle(ctx, early[0].ID, decimal.NewFromInt(1)); !errors.Is(err, wallet.ErrClosed) {
		t.Fatalf("settle after sweep: %v", err)
	}
	if err := svc.Release(ctx, early[1].ID); !errors.Is(err, wallet.ErrClosed) {
		t.Fatalf("release after sweep: %v", err)
	}
	if err := svc.Release(ctx, late.ID); err != nil {
		t.Fatalf("release of a live reservation: %v", err)
	}
	wantBalance(t, pool, u1, 10000, 0)
	checkInvariants(t, pool)
}

func TestLedgerAppendOnly(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	u := newUser(t, pool)
	fund(t, pool, u, 100)
	if _, err := pool.Exec(ctx, `UPDATE wallet_transactions SET amount = 1000000`); err == nil {
		t.Fatal("a ledger row was updated")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM wallet_transactions`); err == nil {
		t.Fatal("a ledger row was deleted")
	}
	if _, err := pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, u); err != nil {
		t.Fatalf("a user with a ledger could not be deleted: %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM wallet_transactions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d ledger rows left after the user (%v)", n, err)
	}
}

// TestUserDeletionTakesHolds: deleting a user removes their reservations,
// active and closed, with their usage records, and leaves everyone else's.
func TestUserDeletionTakesHolds(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	svc := wallet.New(pool, newClock().Now, billingCfg(true))
	u, other := newUser(t, pool), newUser(t, pool)
	for _, id := range []string{u, other} {
		fund(t, pool, id, 1_000_000)
		for range 3 {
			if _, err := svc.Reserve(ctx, id, 1000); err != nil {
				t.Fatal(err)
			}
		}
	}
	settled, err := svc.Reserve(ctx, u, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Settle(ctx, settled.ID, decimal.NewFromInt(10)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, u); err != nil {
		t.Fatal(err)
	}
	count := func(table, user string) (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE user_id = $1`, user).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n, m := count("credit_reservations", u), count("credit_usage", u); n != 0 || m != 0 {
		t.Fatalf("%d reservation(s) and %d usage record(s) left after their user", n, m)
	}
	if n := count("credit_reservations", other); n != 3 {
		t.Fatalf("the other user has %d reservations, want 3", n)
	}
	checkInvariants(t, pool)
}

func TestHistoryPages(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	u, other := newUser(t, pool), newUser(t, pool)
	for range 60 {
		fund(t, pool, u, 10)
	}
	fund(t, pool, other, 10)

	var seen []string
	cursor := ""
	for pages := 0; ; pages++ {
		page, err := wallet.History(ctx, pool, u, cursor, 25)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			seen = append(seen, it.ID)
		}
		if page.NextCursor == nil {
			if pages != 2 || len(page.Items) != 10 {
				t.Fatalf("last page %d has %d items", pages, len(page.Items))
			}
			break
		}
		cursor = *page.NextCursor
	}
	if len(seen) != 60 {
		t.Fatalf("saw %d entries, want 60", len(seen))
	}
	first, _ := wallet.History(ctx, pool, u, "", 1)
	if first.Items[0].BalanceAfter != 600 || *first.Items[0].PackID != "starter" {
		t.Fatalf("newest entry %+v", first.Items[0])
	}
	for _, bad := range []string{"garbage", "d3QuLTE", "d3QuMA", "%%%"} {
		p, err := wallet.History(ctx, pool, u, bad, 5)
		if err != nil || len(p.Items) != 5 || p.Items[0].ID != seen[0] {
			t.Fatalf("cursor %q: %+v, %v; want the first page", bad, p, err)
		}
	}
}

// TestConcurrentMix runs reservations, settlements and releases at once on
// a few wallets and then checks the books: reserved is the sum of active
// holds, the balance is the sum of the ledger, nothing went negative.
func TestConcurrentMix(t *testing.T) {
	pool := dbtest.New(t)
	clk := newClock()
	ctx := context.Background()
	svc := wallet.New(pool, clk.Now, billingCfg(true))
	users := []string{newUser(t, pool), newUser(t, pool), newUser(t, pool)}
	for _, u := range users {
		fund(t, pool, u, 5000)
	}
	var wg sync.WaitGroup
	for w := range 24 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for range 30 {
				u := users[rng.IntN(len(users))]
				r, err := svc.Reserve(ctx, u, int64(1+rng.IntN(400)))
				if err != nil {
					if e, ok := apperr.As(err); !ok || e.Code != apperr.InsufficientCredits {
						t.Errorf("reserve: %v", err)
					}
					continue
				}
				if rng.IntN(3) == 0 {
					err = svc.Release(ctx, r.ID)
				} else {
					_, err = svc.Settle(ctx, r.ID, decimal.NewFromInt(int64(rng.IntN(300))))
				}
				if err != nil {
					t.Errorf("close: %v", err)
				}
			}
		})
	}
	wg.Wait()
	checkInvariants(t, pool)
}

// checkInvariants holds every wallet to its ledger and its reservations.
func checkInvariants(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	const q = `SELECT count(*) FROM wallets w WHERE
		w.reserved <> COALESCE((SELECT sum(amount) FROM credit_reservations r WHERE r.user_id = w.user_id AND r.status = 'active'), 0)
		OR w.balance <> COALESCE((SELECT sum(amount) FROM wallet_transactions t WHERE t.user_id = w.user_id), 0)
		OR w.balance <> COALESCE((SELECT balance_after FROM wallet_transactions t WHERE t.user_id = w.user_id ORDER BY id DESC LIMIT 1), 0)
		OR w.reserved > w.balance OR w.balance < 0`
	var bad int
	if err := pool.QueryRow(context.Background(), q).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Fatalf("%d wallet(s) disagree with their ledger or reservations", bad)
	}
	// The gate holds credits only against a wallet, and a wallet takes its
	// holds with it (migration 0015): no reservation outlives its wallet.
	const orphans = `SELECT count(*) FROM credit_reservations r WHERE NOT EXISTS (SELECT 1 FROM wallets w WHERE w.user_id = r.user_id)`
	if err := pool.QueryRow(context.Background(), orphans).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d reservation(s) without their wallet (%v)", bad, err)
	}
	const usage = `SELECT count(*) FROM credit_reservations r WHERE (r.status = 'settled') <> EXISTS (SELECT 1 FROM credit_usage u WHERE u.reservation_id = r.id)`
	if err := pool.QueryRow(context.Background(), usage).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d reservation(s) without their usage record, or usage of unsettled ones (%v)", bad, err)
	}
}
