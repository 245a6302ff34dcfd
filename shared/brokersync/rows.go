package brokersync

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
)

// maxIDLength bounds a broker's execution id (the column's check).
const maxIDLength = 200

// readRows reads a broker's executions, given as the rows of a CSV under
// header (one row per execution, ids[i] the broker's id of row i), with
// the CSV import's parser (brokerfile.Parse) by opts: a preset or a
// mapping. So a synced execution is the same fill, by the same rules, as
// the row of the broker's file a CSV import reads. what names the rows'
// source in a failure ("the statement").
func readRows(opts brokerfile.Options, header []string, rows [][]string, ids []string, zone string, now time.Time, what string) ([]execution, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	for i, id := range ids {
		if id == "" || len(id) > maxIDLength {
			return nil, &Failure{Code: CodeStatementUnreadable, Message: fmt.Sprintf("execution %d of %s has no usable id", i+1, what)}
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(header)
	oneLine := strings.NewReplacer("\r", " ", "\n", " ")
	for _, r := range rows {
		cells := make([]string, len(header))
		for i, c := range r {
			// One line per row: a row's line number tells its execution.
			cells[i] = oneLine.Replace(c)
		}
		_ = w.Write(cells)
	}
	w.Flush()

	spec, err := brokerfile.Resolve(opts, zone, now, 0)
	if err != nil {
		return nil, err // opts are the source's own: a programming error
	}
	parsed, err := brokerfile.Parse(&buf, spec)
	if err != nil {
		msg := "the trades of " + what + " cannot be read"
		if e, ok := apperr.As(err); ok {
			msg += ": " + e.Message
		}
		return nil, &Failure{Code: CodeStatementUnreadable, Message: msg}
	}
	if len(parsed.Accounts) > 1 {
		names := make([]string, 0, len(parsed.Accounts))
		for a := range parsed.Accounts {
			names = append(names, a)
		}
		slices.Sort(names)
		return nil, &Failure{Code: CodeStatementUnreadable, Message: what + " covers several of the broker's accounts (" +
			strings.Join(names, ", ") + "); make one connection for each account"}
	}
	if len(parsed.Errors) > 0 {
		p := parsed.Errors[0]
		return nil, &Failure{Code: CodeStatementUnreadable, Message: fmt.Sprintf("execution %d of %s cannot be read: %s", p.Row-1, what, p.Message)}
	}
	out := make([]execution, len(parsed.Fills))
	for i, f := range parsed.Fills {
		if f.Row < 2 || f.Row-2 >= len(ids) {
			return nil, &Failure{Code: CodeStatementUnreadable, Message: "the executions of " + what + " cannot be told apart"}
		}
		out[i] = execution{ID: ids[f.Row-2], Fill: f}
	}
	return out, nil
}
