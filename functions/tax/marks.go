package tax

import (
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
)

// Marks are a year's year-end prices of Section 1256 contracts still open
// on its last business day (the settlement price on the broker's
// statement), by instrument as the journal writes it (ESZ4, an OCC
// option symbol).
type Marks struct {
	Year  int    `json:"year"`
	Marks []Mark `json:"marks"`
}

// Mark is one contract's year-end price, in the contract's currency.
type Mark struct {
	Instrument string `json:"instrument"`
	Price      string `json:"price"`
}

// marksRequest is the body of PUT /api/tax/marks: the year's whole list.
type marksRequest struct {
	Year  int `json:"year"`
	Marks []struct {
		Instrument string        `json:"instrument"`
		Price      journal.Field `json:"price"`
	} `json:"marks"`
}

// maxMarks bounds a year's list (a trader holds far fewer contracts over
// a year end).
const maxMarks = 500

func (h handler) getMarks(w http.ResponseWriter, r *http.Request) {
	year, err := strconv.Atoi(r.URL.Query().Get("year"))
	if err != nil || year < firstYear || year > lastYear {
		httpx.Error(w, r, apperr.Invalid("year", "must be a year from 1970 to 9998"))
		return
	}
	ctx := r.Context()
	m, err := readMarks(r, h.app.DB, auth.CurrentUser(ctx).ID, year)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, m)
}

// putMarks replaces the year's marks with the list given.
func (h handler) putMarks(w http.ResponseWriter, r *http.Request) {
	var in marksRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	var p journal.Problems
	if in.Year < firstYear || in.Year > lastYear {
		p.Add("year", "must be a year from 1970 to 9998")
	}
	if len(in.Marks) > maxMarks {
		p.Add("marks", "must list at most 500 contracts")
	}
	var instruments []string
	var prices []decimal.Decimal
	seen := map[string]bool{}
	for i, m := range in.Marks {
		field := "marks[" + strconv.Itoa(i) + "]."
		if len(m.Instrument) == 0 || len(m.Instrument) > 32 || seen[m.Instrument] {
			p.Add(field+"instrument", "must be a contract's symbol of 1 to 32 characters, listed once")
			continue
		}
		seen[m.Instrument] = true
		price, ok := p.RequiredDecimal(field+"price", m.Price, journal.ExitPriceRule)
		if ok {
			instruments, prices = append(instruments, m.Instrument), append(prices, price)
		}
	}
	if err := p.Err(); err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var out Marks
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM tax_year_end_marks WHERE user_id = $1 AND year = $2`, userID, in.Year); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO tax_year_end_marks (user_id, year, instrument, price)
			SELECT $1, $2, i, p FROM unnest($3::text[], $4::numeric[]) AS x(i, p)`, userID, in.Year, instruments, prices); err != nil {
			return err
		}
		var err error
		out, err = readMarks(r, tx, userID, in.Year)
		return err
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}

func readMarks(r *http.Request, q db.Querier, userID string, year int) (Marks, error) {
	rows, err := q.Query(r.Context(), `SELECT instrument, price FROM tax_year_end_marks
		WHERE user_id = $1 AND year = $2 ORDER BY instrument`, userID, year)
	if err != nil {
		return Marks{}, err
	}
	marks, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Mark, error) {
		var (
			m     Mark
			price decimal.Decimal
		)
		err := row.Scan(&m.Instrument, &price)
		m.Price = price.String()
		return m, err
	})
	if marks == nil {
		marks = []Mark{}
	}
	return Marks{Year: year, Marks: marks}, err
}
