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

// TestDecideBatch holds one decision over a queue to the rule of admitting
// the queue in order, each request against what the earlier ones left.
func TestDecideBatch(t *testing.T) {
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
			batch := make([]*reserveReq, len(tc.estimates))
			for i, e := range tc.estimates {
				batch[i] = &reserveReq{ctx: ctx, estimate: e, done: make(chan reserveResult, 1)}
			}
			s.decide(user, batch)
			var held int64
			ids := map[string]bool{}
			for i, r := range batch {
				res := <-r.done
				switch {
				case tc.want[i] < 0:
					if e, ok := apperr.As(res.err); !ok || e.Code != apperr.InsufficientCredits {
						t.Errorf("request %d: %+v, %v; want refused", i, res.r, res.err)
					}
				case res.err != nil || res.r.Amount != tc.want[i] || !uuidV4.MatchString(res.r.ID) || ids[res.r.ID]:
					t.Errorf("request %d: %+v, %v; want a hold of %d under a new id", i, res.r, res.err, tc.want[i])
				default:
					held += res.r.Amount
					ids[res.r.ID] = true
				}
			}
			b, err := Get(ctx, pool, user)
			if err != nil || b.Reserved != held || b.Balance != tc.balance {
				t.Fatalf("wallet %+v (%v), want reserved %d", b, err, held)
			}
		})
	}
}
