package personal

import "slices"

// Step is one item of the onboarding checklist.
type Step string

// The checklist, in the order a new user takes it. Each is done when the
// user's own journal (not the demo journal) shows it: an account; a
// position, entered or imported; a position with a tag and a review (notes,
// an excursion or a playbook); a day's plan; a trading rule.
const (
	StepAccount Step = "account"
	StepTrade   Step = "trade"
	StepReview  Step = "review"
	StepDayPlan Step = "dayPlan"
	StepRule    Step = "rule"
)

// Steps are the checklist's steps in order.
var Steps = []Step{StepAccount, StepTrade, StepReview, StepDayPlan, StepRule}

// CoachMarks are the screens with a hint on their first opening.
var CoachMarks = []string{"dashboard", "positions", "import", "journal", "rules"}

// KnownCoachMark reports whether mark is one of CoachMarks.
func KnownCoachMark(mark string) bool { return slices.Contains(CoachMarks, mark) }
