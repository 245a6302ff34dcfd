package brokerfile

// Partial is what a file with rows that cannot be read can still import:
// the fills of its other rows and their plan.
type Partial struct {
	Fills   []Fill
	Plan    *Plan
	LeftOut int // rows left out
}

// maxPartialRounds bounds the rounds of leaving rows out: a row left out
// can make a later one unplannable (an exit whose entry was unreadable),
// which is then left out too.
const maxPartialRounds = 8

// PartialImport leaves out the rows of errs, and the other rows of their
// instruments, and plans the rest with build.
// It returns nil when no partial import is possible: a problem of the
// whole file (row 0), nothing left to import, or rows still failing after
// maxPartialRounds.
func PartialImport(fills []Fill, errs []Problem, build func([]Fill) *Plan) *Partial {
	bad := map[int]bool{}
	symbols := map[string]bool{}
	mark := func(ps []Problem) bool {
		for _, e := range ps {
			if e.Row <= 0 {
				return false
			}
			bad[e.Row] = true
			if e.Symbol != "" {
				symbols[e.Symbol] = true
			}
		}
		return true
	}
	if !mark(errs) {
		return nil
	}
	for range maxPartialRounds {
		// The rows of an instrument with an unreadable row are left out
		// with it: its positions cannot be told without that row.
		for _, f := range fills {
			if symbols[f.Symbol] {
				bad[f.Row] = true
			}
		}
		keep := make([]Fill, 0, len(fills))
		for _, f := range fills {
			if !bad[f.Row] {
				keep = append(keep, f)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		plan := build(keep)
		if len(plan.Errors) == 0 {
			if len(plan.Positions) == 0 && plan.Summary.DuplicateFills == 0 {
				return nil
			}
			return &Partial{Fills: keep, Plan: plan, LeftOut: len(bad)}
		}
		for _, e := range plan.Errors {
			if e.Row <= 0 {
				return nil
			}
			bad[e.Row] = true
		}
		for _, f := range keep {
			if bad[f.Row] {
				symbols[f.Symbol] = true
			}
		}
	}
	return nil
}
