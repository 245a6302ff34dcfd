package csvimport

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/db"
	"tradejournal/shared/journalstore"
)

// part is the share of a preview that goes to one journal account: the
// whole file, or one account's rows of a file split by accountMap.
type part struct {
	acct     account
	fills    []brokerfile.Fill    // read from the file
	errs     []brokerfile.Problem // the file's problems of these rows (and of the whole file)
	warnings []brokerfile.Problem // fee estimates, the plan's warnings
	held     brokerfile.Journal
	plan     *brokerfile.Plan
	staged   []brokerfile.Fill // what the commit writes
}

// loadTargets reads the journal accounts an accountMap sends the file's
// accounts to: each must be the user's, in the currency of the preview's
// account (one file's amounts are in one currency). Every problem is
// answered at once, naming the file's account.
func loadTargets(ctx context.Context, q db.Querier, userID string, main account, m map[string]string) (map[string]account, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := map[string]account{main.ID: main}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var problems []apperr.FieldError
	for _, k := range keys {
		id := strings.TrimSpace(m[k])
		if id == "" {
			continue // skipped
		}
		field := "accountMap." + strings.TrimSpace(k)
		a, ok := out[id]
		if !ok {
			var err error
			a, err = loadAccount(ctx, q, userID, id)
			if err == errNotYourAccount {
				problems = append(problems, apperr.FieldError{Field: field, Message: "must be one of your accounts"})
				continue
			}
			if err != nil {
				return nil, err
			}
			out[id] = a
		}
		if a.Currency != main.Currency {
			// One file's amounts are in one currency: the import account's.
			problems = append(problems, apperr.FieldError{Field: field, Message: fmt.Sprintf(
				"is an account in %s, but the import's account is in %s: send the file's accounts to accounts in %s",
				a.Currency, main.Currency, main.Currency)})
		}
	}
	return out, apperr.Fields(problems)
}

// splitParts splits the parsed file by journal account: one part for the
// preview's account, or, with an accountMap, one per journal account its
// rows go to (in account id order). A problem of a row goes to that row's
// part; a problem of the whole file, or of a row without a mapped account,
// to every part.
func splitParts(parsed *brokerfile.Parsed, main account, targets map[string]account, m map[string]string) []*part {
	if m == nil {
		return []*part{{acct: main, fills: parsed.Fills, errs: parsed.Errors}}
	}
	byID := map[string]*part{}
	for _, f := range parsed.Fills {
		id := m[f.Account]
		if id == "" {
			continue // an account the map does not name: the file's error says so
		}
		pt := byID[id]
		if pt == nil {
			pt = &part{acct: targets[id]}
			byID[id] = pt
		}
		pt.fills = append(pt.fills, f)
	}
	if len(byID) == 0 {
		byID[main.ID] = &part{acct: main}
	}
	parts := make([]*part, 0, len(byID))
	for _, pt := range byID {
		parts = append(parts, pt)
	}
	slices.SortFunc(parts, func(a, b *part) int { return strings.Compare(a.acct.ID, b.acct.ID) })
	for _, e := range parsed.Errors {
		id, mapped := m[e.Account]
		for _, pt := range parts {
			if !mapped || id == "" || pt.acct.ID == id {
				pt.errs = append(pt.errs, e)
			}
		}
	}
	return parts
}

// planPart plans a part against its account's journal.
func (h handler) planPart(ctx context.Context, userID string, pt *part, parsed *brokerfile.Parsed) error {
	if slices.ContainsFunc(pt.fills, func(f brokerfile.Fill) bool { return !f.FeesGiven }) {
		schedule, err := journalstore.FeeSchedule(ctx, h.app.DB, pt.acct.ID)
		if err != nil {
			return err
		}
		pt.warnings = append(pt.warnings, brokerfile.EstimateFees(pt.fills, parsed.HasFees, schedule)...)
	}
	held, err := journalstore.ReadJournal(ctx, h.app.DB, userID, pt.acct.ID, pt.fills)
	if err != nil {
		return err
	}
	pt.held = held
	pt.plan = brokerfile.Build(pt.fills, held, brokerfile.BuildOptions{Header: parsed.Header})
	pt.warnings = append(pt.warnings, pt.plan.Warnings...)
	return nil
}

// addSummary adds a part's totals to the preview's.
func addSummary(t *brokerfile.Summary, s brokerfile.Summary) {
	t.Fills += s.Fills
	t.ImportFills += s.ImportFills
	t.Positions += s.Positions
	t.NewPositions += s.NewPositions
	t.ContinuedPositions += s.ContinuedPositions
	t.OpenPositions += s.OpenPositions
	t.DuplicateFills += s.DuplicateFills
	t.DuplicatesInFile += s.DuplicatesInFile
	t.Reversals += s.Reversals
	t.GrossPnL = t.GrossPnL.Add(s.GrossPnL)
	t.Fees = t.Fees.Add(s.Fees)
	t.NetPnL = t.NetPnL.Add(s.NetPnL)
}

// rowsLeftOut counts the rows a partial import leaves out: the rows of the
// errors, and the rows of fills no part stages.
func rowsLeftOut(errs []brokerfile.Problem, parts []*part) int {
	rows := map[int]bool{}
	for _, e := range errs {
		if e.Row > 0 {
			rows[e.Row] = true
		}
	}
	for _, pt := range parts {
		kept := make(map[int]bool, len(pt.staged))
		for _, f := range pt.staged {
			kept[f.Row] = true
		}
		for _, f := range pt.fills {
			if !kept[f.Row] {
				rows[f.Row] = true
			}
		}
	}
	return len(rows)
}

// dedupeFileProblems drops repeats of a problem of the whole file (each
// part estimates fees and says so).
func dedupeFileProblems(ps []brokerfile.Problem) []brokerfile.Problem {
	seen := map[string]bool{}
	out := ps[:0:0]
	for _, p := range ps {
		if p.Row == 0 {
			k := p.Code + "\x00" + p.Message
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		out = append(out, p)
	}
	return out
}
