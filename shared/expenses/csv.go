package expenses

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
)

// The CSV of GET /api/expenses/export and POST /api/expenses/import: one
// expense definition a row. The import matches the header ignoring case,
// spaces, underscores and hyphens, in any order; Date and Amount are
// required columns, the rest optional.
var CSVHeader = []string{"Date", "Amount", "Currency", "Category", "Account", "Recurrence", "End Date", "Note"}

// Caps of an import: its bytes (413 past them) and its rows (400).
const (
	MaxImportBytes    = 2 << 20
	MaxImportRows     = MaxExpenses
	maxImportProblems = 100 // details listed; the message counts the rest
)

// column keys, CSVHeader's order.
const (
	colDate = iota
	colAmount
	colCurrency
	colCategory
	colAccount
	colRecurrence
	colEnd
	colNote
	columns
)

func headerKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r != ' ' && r != '_' && r != '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Row is one data row of an import: its line in the file and its values
// by column (absent columns empty).
type Row struct {
	Line   int
	Values [columns]string
}

// ParseCSV reads an import file: a header, then at most MaxImportRows
// rows. A file that is not such a CSV is a VALIDATION_ERROR naming "file"
// (or the header's column).
func ParseCSV(r io.Reader) ([]Row, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
	if !utf8.Valid(raw) {
		return nil, apperr.Invalid("file", "must be UTF-8 text")
	}
	cr := csv.NewReader(bytes.NewReader(raw))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, apperr.Invalid("file", "is empty: it needs a header row ("+strings.Join(CSVHeader, ",")+")")
	}
	if err != nil {
		return nil, apperr.Invalid("file", "is not a CSV file: "+csvProblem(err))
	}
	index := make([]int, len(header)) // file column -> our column
	seen := [columns]bool{}
	var p journal.Problems
	for i, h := range header {
		key, found := headerKey(h), -1
		for c, name := range CSVHeader {
			if headerKey(name) == key {
				found = c
			}
		}
		switch {
		case found < 0:
			p.Add("file", "has a column "+strconv.Quote(truncate(h, 40))+" that is not one of "+strings.Join(CSVHeader, ", "))
		case seen[found]:
			p.Add("file", "has the column "+CSVHeader[found]+" twice")
		default:
			seen[found] = true
		}
		index[i] = found
	}
	for _, c := range []int{colDate, colAmount} {
		if !seen[c] {
			p.Add("file", "has no "+CSVHeader[c]+" column")
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	var rows []Row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, apperr.Invalid("file", "is not a CSV file: "+csvProblem(err))
		}
		if len(rows) >= MaxImportRows {
			return nil, apperr.Invalid("file", "holds more than "+strconv.Itoa(MaxImportRows)+" rows; split it into several imports")
		}
		line, _ := cr.FieldPos(0)
		row := Row{Line: line}
		blank := true
		for i, v := range rec {
			if i < len(index) && index[i] >= 0 {
				row.Values[index[i]] = v
			}
			if strings.TrimSpace(v) != "" {
				blank = false
			}
		}
		if len(rec) > len(header) {
			return nil, apperr.Invalid("rows["+strconv.Itoa(line)+"]", "has more values than the header has columns")
		}
		if !blank {
			rows = append(rows, row)
		}
	}
	return rows, nil
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return "line " + strconv.Itoa(pe.Line) + ": " + pe.Err.Error()
	}
	return "it cannot be read"
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "..."
}

// Import records every row as a new expense, in the file's order, with
// its charges due up to today, all in one transaction: any bad row
// refuses the whole file (a VALIDATION_ERROR whose details name each
// problem as rows[<line>].<field>, the line of the file, the header being
// line 1), and nothing is written. A category is a built-in one's or one
// of the user's own names, an account one of the user's accounts' names,
// both matched ignoring case; a blank currency is the account's, else the
// display currency; a blank recurrence is none. It returns how many
// expenses it recorded.
func (s *Store) Import(ctx context.Context, userID string, rows []Row) (int, error) {
	if len(rows) == 0 {
		return 0, apperr.Invalid("file", "has no expense rows below its header")
	}
	n := 0
	err := db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		today, err := s.lockUser(ctx, tx, userID)
		if err != nil {
			return err
		}
		names, err := lookups(ctx, tx, userID)
		if err != nil {
			return err
		}
		var (
			p    journal.Problems
			defs = make([]Definition, 0, len(rows))
		)
		for _, r := range rows {
			d, err := names.definition(r)
			if err == nil {
				var rp journal.Problems
				d.check(&rp)
				err = rp.Err()
			}
			if e, ok := apperr.As(err); ok {
				for _, fe := range e.Details {
					p.Add("rows["+strconv.Itoa(r.Line)+"]."+fe.Field, fe.Message)
				}
			}
			defs = append(defs, d)
		}
		if err := tooMany(p.Err()); err != nil {
			return err
		}
		if err := checkCount(ctx, tx, userID, len(defs)); err != nil {
			return err
		}
		for _, d := range defs {
			if _, _, err := insert(ctx, tx, userID, d, today, nil); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// tooMany cuts an import's problems to maxImportProblems details.
func tooMany(err error) error {
	e, ok := apperr.As(err)
	if !ok || len(e.Details) <= maxImportProblems {
		return err
	}
	out := apperr.Fields(e.Details[:maxImportProblems]).(*apperr.Error)
	out.Message = strconv.Itoa(len(e.Details)) + " problems in the file, the first " + strconv.Itoa(maxImportProblems) +
		" listed; nothing was imported (" + out.Message + ")"
	return out
}

// names are what an import's rows name, by lower-cased name.
type names struct {
	categories map[string]string // name -> category id
	accounts   map[string]string // name -> account id
	currencies map[string]string // account id -> currency
	display    *string
}

func lookups(ctx context.Context, tx pgx.Tx, userID string) (names, error) {
	n := names{categories: map[string]string{}, accounts: map[string]string{}, currencies: map[string]string{}}
	for _, k := range BuiltIn {
		n.categories[k] = k
	}
	rows, err := tx.Query(ctx, `SELECT id::text, lower(name) FROM expense_categories WHERE user_id = $1`, userID)
	if err != nil {
		return n, db.Classify(err)
	}
	var id, name, currency string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error { n.categories[name] = id; return nil }); err != nil {
		return n, db.Classify(err)
	}
	// The accounts a row may name stay as they are until the import ends.
	rows, err = tx.Query(ctx, `SELECT id::text, lower(name), currency::text FROM accounts WHERE user_id = $1 FOR KEY SHARE`, userID)
	if err != nil {
		return n, db.Classify(err)
	}
	if _, err := pgx.ForEachRow(rows, []any{&id, &name, &currency}, func() error {
		n.accounts[name], n.currencies[id] = id, currency
		return nil
	}); err != nil {
		return n, db.Classify(err)
	}
	err = tx.QueryRow(ctx, `SELECT display_currency::text FROM users WHERE id = $1`, userID).Scan(&n.display)
	return n, db.Classify(err)
}

// definition reads one row; its problems name the fields date, amount,
// currency, category, account, recurrence, endDate and note.
func (n names) definition(r Row) (Definition, error) {
	var p journal.Problems
	v := func(c int) string { return strings.TrimSpace(r.Values[c]) }
	d := Definition{Note: r.Values[colNote], Schedule: Schedule{Recurrence: RecurNone}}
	if s := v(colDate); s == "" {
		p.Add("date", "is required")
	} else if t, err := ParseDate("date", s); err != nil {
		p.Merge(err)
	} else {
		d.Start = t
	}
	d.Amount, _ = p.RequiredDecimal("amount", journal.S(v(colAmount)), journal.AmountRule)
	if s := strings.ToLower(v(colCategory)); s == "" {
		d.Category = CategoryOther
	} else if id, ok := n.categories[s]; !ok {
		p.Add("category", "is not a built-in category or one of yours: "+strconv.Quote(truncate(v(colCategory), 50)))
	} else if IsBuiltIn(id) {
		d.Category = id
	} else {
		d.CategoryID = &id
	}
	if s := v(colAccount); s != "" {
		if id, ok := n.accounts[strings.ToLower(s)]; ok {
			d.AccountID = &id
		} else {
			p.Add("account", "is not one of your accounts: "+strconv.Quote(truncate(s, 50)))
		}
	}
	switch s := v(colCurrency); {
	case s != "":
		c, err := ParseCurrency("currency", s)
		p.Merge(err)
		d.Currency = c
	case d.AccountID != nil:
		d.Currency = n.currencies[*d.AccountID]
	case n.display != nil:
		d.Currency = *n.display
	default:
		p.Add("currency", "is required (you have no display currency, and the row names no account)")
	}
	if s := strings.ToLower(v(colRecurrence)); s != "" {
		d.Recurrence = s
	}
	if s := v(colEnd); s != "" {
		t, err := ParseDate("endDate", s)
		p.Merge(err)
		d.End = &t
	}
	if err := journal.Text("note", d.Note, MaxNoteChars); err != nil {
		p.Merge(err)
	}
	return d, p.Err()
}

// ExportCSV writes the user's expenses as the import reads them, oldest
// start first (then by creation): importing the file into a journal with
// the same account and category names records the same expenses, and
// exporting those gives the same file.
func (s *Store) ExportCSV(ctx context.Context, userID string, w io.Writer) error {
	const q = `SELECT e.start_on, e.amount, e.currency::text, coalesce(k.name, e.category), coalesce(a.name, ''), e.recurrence, e.end_on, e.note
		FROM expenses e LEFT JOIN expense_categories k ON k.id = e.category_id LEFT JOIN accounts a ON a.id = e.account_id
		WHERE e.user_id = $1 ORDER BY e.start_on, e.created_at, e.id`
	rows, err := s.pool.Query(ctx, q, userID)
	if err != nil {
		return db.Classify(err)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		rows.Close()
		return err
	}
	var (
		start  time.Time
		end    *time.Time
		amount decimal.Decimal
		rec    [columns]string
	)
	_, err = pgx.ForEachRow(rows, []any{&start, &amount, &rec[colCurrency], &rec[colCategory], &rec[colAccount], &rec[colRecurrence], &end,
		&rec[colNote]}, func() error {
		rec[colDate], rec[colAmount], rec[colEnd] = dateString(start), money.RoundN(amount, 4), ""
		if end != nil {
			rec[colEnd] = dateString(*end)
		}
		return cw.Write(rec[:])
	})
	if err != nil {
		return db.Classify(err)
	}
	cw.Flush()
	return cw.Error()
}
