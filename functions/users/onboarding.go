package users

import (
	"context"
	"net/http"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/personal"
)

// Onboarding is the checklist with each step's progress, whether the user
// dismissed it, and the coach marks they have seen.
type Onboarding struct {
	Steps          []OnboardingStep `json:"steps"`
	Done           int              `json:"done"`
	Dismissed      bool             `json:"dismissed"`
	CoachMarksSeen []string         `json:"coachMarksSeen"`
}

// OnboardingStep is one step of the checklist.
type OnboardingStep struct {
	ID   personal.Step `json:"id"`
	Done bool          `json:"done"`
}

// onboardingQuery derives every step from the user's own journal (the
// demo journal's records do not count) in one statement, so the checklist
// cannot drift from the data: personal.Steps, in order.
const onboardingQuery = `SELECT
	EXISTS (SELECT 1 FROM accounts WHERE user_id = $1 AND NOT demo),
	EXISTS (SELECT 1 FROM positions p JOIN accounts a ON a.id = p.account_id WHERE p.user_id = $1 AND NOT a.demo),
	EXISTS (SELECT 1 FROM positions p JOIN accounts a ON a.id = p.account_id WHERE p.user_id = $1 AND NOT a.demo
		AND EXISTS (SELECT 1 FROM position_tags pt WHERE pt.position_id = p.id)
		AND (p.notes <> '' OR p.mae_price IS NOT NULL OR p.mfe_price IS NOT NULL OR p.playbook_id IS NOT NULL)),
	EXISTS (SELECT 1 FROM journal_days WHERE user_id = $1 AND NOT demo AND plan <> ''),
	EXISTS (SELECT 1 FROM trading_rules r LEFT JOIN accounts a ON a.id = r.account_id WHERE r.user_id = $1 AND NOT coalesce(a.demo, false)),
	u.onboarding_dismissed_at IS NOT NULL,
	coalesce((SELECT array_agg(mark ORDER BY mark) FROM coach_marks_seen WHERE user_id = $1), '{}')
	FROM users u WHERE u.id = $1`

func readOnboarding(ctx context.Context, q db.Querier, userID string) (Onboarding, error) {
	done := make([]bool, len(personal.Steps))
	var o Onboarding
	dest := []any{}
	for i := range done {
		dest = append(dest, &done[i])
	}
	if err := q.QueryRow(ctx, onboardingQuery, userID).Scan(append(dest, &o.Dismissed, &o.CoachMarksSeen)...); err != nil {
		return Onboarding{}, db.Classify(err)
	}
	for i, s := range personal.Steps {
		o.Steps = append(o.Steps, OnboardingStep{ID: s, Done: done[i]})
		if done[i] {
			o.Done++
		}
	}
	return o, nil
}

func (h handler) getOnboarding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	o, err := readOnboarding(ctx, h.app.DB, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, o)
}

// dismissOnboarding hides the checklist for good (on every device); a
// second dismissal keeps the first's time.
func (h handler) dismissOnboarding(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	const q = `UPDATE users SET onboarding_dismissed_at = coalesce(onboarding_dismissed_at, $2) WHERE id = $1`
	if _, err := h.app.DB.Exec(ctx, q, userID, h.app.Now()); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	o, err := readOnboarding(ctx, h.app.DB, userID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, o)
}

// seeCoachMark records that the user dismissed a screen's coach mark, so
// it does not come back on any device.
func (h handler) seeCoachMark(w http.ResponseWriter, r *http.Request) {
	mark := r.PathValue("mark")
	if !personal.KnownCoachMark(mark) {
		httpx.Error(w, r, apperr.Invalid("mark", "must be dashboard, positions, import, journal or rules"))
		return
	}
	ctx := r.Context()
	const q = `INSERT INTO coach_marks_seen (user_id, mark, seen_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`
	if _, err := h.app.DB.Exec(ctx, q, auth.CurrentUser(ctx).ID, mark, h.app.Now()); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.NoContent(w)
}
