// Package plans is the free plan's limits and the Pro plan that lifts them.
// The operator sets each limit (FREE_MAX_*, shared/config); an unset one is
// off, so a self-hosted journal is unlimited by default. Pro is an active
// subscription as functions/billing records it (billing_subscriptions).
//
// A limit refuses only a new record beyond it, inside the write's own
// transaction after the user's row is locked, so two concurrent writes
// cannot pass it together. A journal already over a limit (a subscription
// that ended) stays readable, exportable and editable.
package plans

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
)

// Kind names one limit of the free plan.
type Kind string

// The limits, in the order the plan shows them.
const (
	Accounts      Kind = "accounts"      // accounts not archived
	Positions     Kind = "positions"     // positions in total
	StorageBytes  Kind = "storageBytes"  // bytes of position images
	ImportsPerDay Kind = "importsPerDay" // CSV imports committed in the last 24 hours
)

// Kinds lists every limit in order.
var Kinds = []Kind{Accounts, Positions, StorageBytes, ImportsPerDay}

// usedSQL counts what a limit holds for the user $1 at the time $2, as a
// scalar subquery.
var usedSQL = map[Kind]string{
	Accounts:      `(SELECT count(*) FROM accounts WHERE user_id = $1 AND NOT archived)`,
	Positions:     `(SELECT count(*) FROM positions WHERE user_id = $1)`,
	StorageBytes:  `(SELECT coalesce(sum(size_bytes), 0)::bigint FROM position_images WHERE user_id = $1)`,
	ImportsPerDay: `(SELECT count(*) FROM csv_imports WHERE user_id = $1 AND committed_at > $2::timestamptz - interval '24 hours')`,
}

// SubscriptionOrder orders a user's subscriptions most relevant first: one
// that may grant Pro, then the latest period end (functions/billing shows
// the same one).
const SubscriptionOrder = `ORDER BY status IN ('active', 'trialing') DESC, current_period_end DESC NULLS LAST`

// subscriptionSQL joins the user $1's most relevant subscription, if any.
const subscriptionSQL = `LEFT JOIN LATERAL (SELECT status, current_period_end FROM billing_subscriptions
		WHERE user_id = $1 ` + SubscriptionOrder + ` LIMIT 1) s ON true`

// GrantsPro reports whether a subscription in status, paid until periodEnd,
// grants Pro at now: active or trialing, and its paid period not over. A
// past-due one does not (the processor has already moved its period on,
// unpaid).
func GrantsPro(status string, periodEnd *time.Time, now time.Time) bool {
	return (status == "active" || status == "trialing") && periodEnd != nil && periodEnd.After(now)
}

// Plan is the instance's plans.
type Plan struct {
	free    config.Plans
	proSold bool
	now     func() time.Time
}

// New returns the plans of the configuration cfg; now is the clock a
// subscription's period and the imports' day are read against.
func New(cfg config.Config, now func() time.Time) Plan {
	return Plan{free: cfg.Plans, proSold: cfg.Billing.ProPlanEnabled(), now: now}
}

// FreeLimit is the free plan's limit of k; 0 is none.
func (p Plan) FreeLimit(k Kind) int64 {
	switch k {
	case Accounts:
		return p.free.Accounts
	case Positions:
		return p.free.Positions
	case StorageBytes:
		return p.free.StorageBytes
	case ImportsPerDay:
		return p.free.ImportsPerDay
	}
	return 0
}

// Check refuses, with PLAN_LIMIT_REACHED, adding more of k to the user's
// journal in tx when that would take it past the free plan's limit and the
// user has no Pro. adding is what the write adds; a write that has already
// inserted its rows passes 0, so its own rows are counted. It locks the
// user's row first and counts after, so a concurrent write of the same user
// waits for this one's commit and then counts its rows.
func (p Plan) Check(ctx context.Context, tx pgx.Tx, userID string, k Kind, adding int64) error {
	limit := p.FreeLimit(k)
	if limit == 0 || adding < 0 {
		return nil
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID)
	var (
		used   int64
		status *string
		end    *time.Time
	)
	now := p.now()
	args := []any{userID}
	if k == ImportsPerDay { // the only count of a period
		args = append(args, now)
	}
	b.Queue(`SELECT `+usedSQL[k]+`, s.status, s.current_period_end FROM (SELECT 1) one `+subscriptionSQL, args...).
		QueryRow(func(row pgx.Row) error { return row.Scan(&used, &status, &end) })
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return db.Classify(err)
	}
	if used+adding <= limit || status != nil && GrantsPro(*status, end, now) {
		return nil
	}
	return apperr.New(apperr.PlanLimitReached, "%s", p.refusal(k, limit, used, adding))
}

// CheckPositions is Check of the positions a write has already inserted:
// the hook of shared/journalstore's writes that add positions.
func (p Plan) CheckPositions(ctx context.Context, tx pgx.Tx, userID string) error {
	return p.Check(ctx, tx, userID, Positions, 0)
}

// refusal says, in words, which limit a write reached and what makes room.
func (p Plan) refusal(k Kind, limit, used, adding int64) string {
	upgrade := "upgrade to Pro"
	if !p.proSold {
		upgrade = "ask this journal's administrator for a higher limit"
	}
	switch k {
	case Accounts:
		return fmt.Sprintf("The free plan allows %d active accounts and you have %d. Archive or delete an account, or %s, to add another.", limit, used, upgrade)
	case Positions:
		return fmt.Sprintf("The free plan allows %d positions and this would make %d. Delete positions you no longer need, or %s, to record more.", limit, used+adding, upgrade)
	case StorageBytes:
		return fmt.Sprintf("The free plan allows %s of images and you use %s; this image needs %s more. Delete images you no longer need, or %s.", Bytes(limit), Bytes(used), Bytes(used+adding-limit), upgrade)
	default:
		return fmt.Sprintf("The free plan allows %d imports in 24 hours and you have made %d. Import again later, or %s.", limit, used, upgrade)
	}
}

// Bytes writes a size for a person: 1.5 MB, 200 KB, 12 bytes (decimal
// units, as storage is sold).
func Bytes(n int64) string {
	switch {
	case n >= 1e9:
		return trim(float64(n)/1e9) + " GB"
	case n >= 1e6:
		return trim(float64(n)/1e6) + " MB"
	case n >= 1e3:
		return trim(float64(n)/1e3) + " KB"
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// trim formats a size with at most one decimal, without a trailing ".0".
func trim(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// Limit is one limit as a user stands against it.
type Limit struct {
	Name Kind  `json:"name"`
	Used int64 `json:"used"`
	// Limit is the limit in force for the user: nil when there is none (the
	// operator set none, or the user has Pro).
	Limit *int64 `json:"limit"`
	// FreeLimit is the free plan's limit, nil when there is none; Pro has
	// no limit at all.
	FreeLimit *int64 `json:"freeLimit"`
}

// View is the user's plan: which, and each limit with its usage.
type View struct {
	Plan string `json:"plan"` // "free" or "pro"
	// ProPlanAvailable is whether Pro is sold on this instance.
	ProPlanAvailable bool    `json:"proPlanAvailable"`
	Limits           []Limit `json:"limits"`
}

// Read returns the user's plan and usage, in one statement; it writes
// nothing.
func (p Plan) Read(ctx context.Context, q db.Querier, userID string) (View, error) {
	var (
		used   = make([]int64, len(Kinds))
		status *string
		end    *time.Time
		dest   []any
		cols   string
	)
	for i, k := range Kinds {
		cols += usedSQL[k] + ", "
		dest = append(dest, &used[i])
	}
	now := p.now()
	err := q.QueryRow(ctx, `SELECT `+cols+`s.status, s.current_period_end FROM (SELECT 1) one `+subscriptionSQL, userID, now).
		Scan(append(dest, &status, &end)...)
	if err != nil {
		return View{}, db.Classify(err)
	}
	v := View{Plan: "free", ProPlanAvailable: p.proSold, Limits: make([]Limit, len(Kinds))}
	pro := status != nil && GrantsPro(*status, end, now)
	if pro {
		v.Plan = "pro"
	}
	for i, k := range Kinds {
		l := Limit{Name: k, Used: used[i]}
		if free := p.FreeLimit(k); free > 0 {
			l.FreeLimit = &free
			if !pro {
				l.Limit = &free
			}
		}
		v.Limits[i] = l
	}
	return v, nil
}
