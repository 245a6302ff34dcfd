package wallet

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db/dbtest"
)

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestReserveInTurn holds reservations made one after another to the rule
// that each may hold what the earlier ones left.
func TestReserveInTurn(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		balance   int64
		min       int64
		estimates []int64
		want      []int64 // hold, or -1 for refused
	}{
		{"AllFit", 1000, 1, []int64{100, 200, 300}, []int64{100, 200, 300}},
		{"PartialThenRefused", 1000, 10, []int64{600, 300, 200, 50}, []int64{600, 300, 100, -1}},
		{"BelowMinimum", 1000, 100, []int64{600, 300, 50, 200, 10}, []int64{600, 300, 50, -1, -1}},
		{"RefusedConsumesNothing", 1000, 100, []int64{950, 200, 40}, []int64{950, -1, -1}},
		{"Empty", 0, 1, []int64{5, 5}, []int64{-1, -1}},
		{"MinimumZero", 0, 0, []int64{5, 5}, []int64{0, 0}},
		{"HugeEstimates", 1000, 1, []int64{1 << 62, 1 << 62, 1 << 62}, []int64{1000, -1, -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var user string
			if err := pool.QueryRow(ctx, `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id::text`, "gate-"+strings.ToLower(tc.name)+"@example.com").Scan(&user); err != nil {
				t.Fatal(err)
			}
			if tc.balance > 0 {
				if _, err := CreditPurchase(ctx, pool, user, tc.balance, "starter", "cs_"+tc.name, now); err != nil {
					t.Fatal(err)
				}
			}
			s := New(pool, func() time.Time { return now }, config.Billing{SecretKey: "sk", MinReservationCredits: tc.min, PricingMarkup: decimal.NewFromInt(1)})
			var held int64
			ids := map[string]bool{}
			for i, e := range tc.estimates {
				r, err := s.Reserve(ctx, user, e)
				switch {
				case tc.want[i] < 0:
					if e, ok := apperr.As(err); !ok || e.Code != apperr.InsufficientCredits {
						t.Errorf("request %d: %+v, %v; want refused", i, r, err)
					}
				case err != nil || r.Amount != tc.want[i] || !uuidV4.MatchString(r.ID) || ids[r.ID]:
					t.Errorf("request %d: %+v, %v; want a hold of %d under a new id", i, r, err, tc.want[i])
				default:
					held += r.Amount
					ids[r.ID] = true
				}
			}
			b, err := Get(ctx, pool, user)
			if err != nil || b.Reserved != held || b.Balance != tc.balance {
				t.Fatalf("wallet %+v (%v), want reserved %d", b, err, held)
			}
		})
	}
}
