package accounts

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

// Brokerage is a fee schedule as the API shows it: the seven fee fields of
// the calculator's feeSchedule, as decimal strings. Built-in schedules
// (builtIn true) are shared by every user and read-only: PATCH and DELETE
// answer 404 for them, as for another user's, because they are not the
// caller's to change.
type Brokerage struct {
	ID                            string    `json:"id"`
	Name                          string    `json:"name"`
	BuiltIn                       bool      `json:"builtIn"`
	StockPerShareCommission       string    `json:"stockPerShareCommission"`
	StockMinPerFill               string    `json:"stockMinPerFill"`
	StockMaxPerFill               string    `json:"stockMaxPerFill"`
	OptionsPerContractCommission  string    `json:"optionsPerContractCommission"`
	OptionsPerContractExchangeFee string    `json:"optionsPerContractExchangeFee"`
	OptionsMinPerFill             string    `json:"optionsMinPerFill"`
	OptionsMaxPerFill             string    `json:"optionsMaxPerFill"`
	CreatedAt                     time.Time `json:"createdAt"`
}

type brokerageEnvelope struct {
	Brokerage Brokerage `json:"brokerage"`
}

const brokerageColumns = `id::text, name, user_id IS NULL, stock_per_share_commission, stock_min_per_fill,
	stock_max_per_fill, options_per_contract_commission, options_per_contract_exchange_fee,
	options_min_per_fill, options_max_per_fill, created_at`

func scanBrokerage(row pgx.Row) (Brokerage, error) {
	var (
		b    Brokerage
		fees [7]decimal.Decimal
	)
	err := row.Scan(&b.ID, &b.Name, &b.BuiltIn, &fees[0], &fees[1], &fees[2], &fees[3], &fees[4], &fees[5], &fees[6], &b.CreatedAt)
	for i, dst := range []*string{&b.StockPerShareCommission, &b.StockMinPerFill, &b.StockMaxPerFill,
		&b.OptionsPerContractCommission, &b.OptionsPerContractExchangeFee, &b.OptionsMinPerFill, &b.OptionsMaxPerFill} {
		*dst = fees[i].String()
	}
	return b, err
}

// brokerageRequest is the body of POST and PATCH /api/brokerages. Fee
// fields are optional: absent (or null, or blank) means 0 on POST and
// "keep" on PATCH, where null sets 0.
type brokerageRequest struct {
	Name                          *string       `json:"name"`
	StockPerShareCommission       journal.Field `json:"stockPerShareCommission,omitzero"`
	StockMinPerFill               journal.Field `json:"stockMinPerFill,omitzero"`
	StockMaxPerFill               journal.Field `json:"stockMaxPerFill,omitzero"`
	OptionsPerContractCommission  journal.Field `json:"optionsPerContractCommission,omitzero"`
	OptionsPerContractExchangeFee journal.Field `json:"optionsPerContractExchangeFee,omitzero"`
	OptionsMinPerFill             journal.Field `json:"optionsMinPerFill,omitzero"`
	OptionsMaxPerFill             journal.Field `json:"optionsMaxPerFill,omitzero"`
}

// brokerageValues is a validated request: nil keeps (PATCH) or is 0 (POST).
type brokerageValues struct {
	name *string
	fees [7]*decimal.Decimal
}

var feeFieldNames = [7]string{"stockPerShareCommission", "stockMinPerFill", "stockMaxPerFill",
	"optionsPerContractCommission", "optionsPerContractExchangeFee", "optionsMinPerFill", "optionsMaxPerFill"}

func validateBrokerage(in brokerageRequest, create bool) (brokerageValues, error) {
	var (
		p journal.Problems
		v brokerageValues
	)
	switch {
	case in.Name != nil:
		if name, err := journal.Name("name", *in.Name, journal.MaxNameChars); err != nil {
			p.Merge(err)
		} else {
			v.name = &name
		}
	case create:
		p.Add("name", "is required")
	}
	fields := [7]journal.Field{in.StockPerShareCommission, in.StockMinPerFill, in.StockMaxPerFill,
		in.OptionsPerContractCommission, in.OptionsPerContractExchangeFee, in.OptionsMinPerFill, in.OptionsMaxPerFill}
	for i, f := range fields {
		switch {
		case !f.Set:
			if create {
				v.fees[i] = &decimal.Zero
			}
		case f.Blank() && !f.NotString:
			v.fees[i] = &decimal.Zero
		default:
			if d, ok := p.Decimal(feeFieldNames[i], f, journal.ScheduleRule); ok {
				v.fees[i] = &d
			}
		}
	}
	return v, p.Err()
}

// brokerageOrder is the order of the brokerages list: the built-in
// schedules first, then the user's, each oldest first.
var brokerageOrder = []listquery.SortKey{
	{Column: "user_id IS NOT NULL", Param: "%s::boolean", Valid: func(s string) bool { return s == "true" || s == "false" }},
	listquery.TimeKey("created_at"), listquery.IDKey,
}

func (h handler) listBrokerages(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	page, err := listquery.ParseBoundedPage(r.URL.Query(), brokerageOrder)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	sql, args := page.Query(`SELECT `+brokerageColumns+` FROM brokerages WHERE (user_id IS NULL OR user_id = $1)`,
		[]any{auth.CurrentUser(ctx).ID}, brokerageOrder)
	rows, err := h.app.DB.Query(ctx, sql, args...)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Brokerage, error) { return scanBrokerage(row) })
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, pageOf(items, page, func(b Brokerage) []string {
		return []string{strconv.FormatBool(!b.BuiltIn), listquery.TimeKeyOf(b.CreatedAt), b.ID}
	}))
}

func (h handler) createBrokerage(w http.ResponseWriter, r *http.Request) {
	var in brokerageRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	v, err := validateBrokerage(in, true)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var b Brokerage
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, userID, "brokerages", MaxBrokerages); err != nil {
			return err
		}
		const ins = `INSERT INTO brokerages (user_id, name, stock_per_share_commission, stock_min_per_fill,
				stock_max_per_fill, options_per_contract_commission, options_per_contract_exchange_fee,
				options_min_per_fill, options_max_per_fill)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ` + brokerageColumns
		var err error
		b, err = scanBrokerage(tx.QueryRow(ctx, ins, userID, *v.name,
			v.fees[0], v.fees[1], v.fees[2], v.fees[3], v.fees[4], v.fees[5], v.fees[6]))
		return db.Classify(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, brokerageEnvelope{b})
}

// brokerageByID reads a brokerage the user can see: built-in or their own.
func brokerageByID(ctx context.Context, q db.Querier, userID, id string) (Brokerage, error) {
	if !db.ValidUUID(id) {
		return Brokerage{}, apperr.ErrNotFound
	}
	const sql = `SELECT ` + brokerageColumns + ` FROM brokerages WHERE id = $1 AND (user_id IS NULL OR user_id = $2)`
	b, err := scanBrokerage(q.QueryRow(ctx, sql, id, userID))
	return b, db.Classify(err)
}

func (h handler) getBrokerage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	b, err := brokerageByID(ctx, h.app.DB, auth.CurrentUser(ctx).ID, r.PathValue("brokerageId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, brokerageEnvelope{b})
}

// updateBrokerage changes one of the user's own schedules. Fills already
// recorded keep their fees; the new schedule estimates later ones.
func (h handler) updateBrokerage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("brokerageId")
	if !db.ValidUUID(id) {
		httpx.NotFound(w, r)
		return
	}
	var in brokerageRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	v, err := validateBrokerage(in, false)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	const upd = `UPDATE brokerages SET name = coalesce($3, name),
			stock_per_share_commission = coalesce($4, stock_per_share_commission),
			stock_min_per_fill = coalesce($5, stock_min_per_fill),
			stock_max_per_fill = coalesce($6, stock_max_per_fill),
			options_per_contract_commission = coalesce($7, options_per_contract_commission),
			options_per_contract_exchange_fee = coalesce($8, options_per_contract_exchange_fee),
			options_min_per_fill = coalesce($9, options_min_per_fill),
			options_max_per_fill = coalesce($10, options_max_per_fill)
		WHERE id = $1 AND user_id = $2 RETURNING ` + brokerageColumns
	b, err := scanBrokerage(h.app.DB.QueryRow(ctx, upd, id, userID, v.name,
		v.fees[0], v.fees[1], v.fees[2], v.fees[3], v.fees[4], v.fees[5], v.fees[6]))
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, brokerageEnvelope{b})
}

// deleteBrokerage deletes one of the user's schedules; accounts that used
// it keep their fills' fees and estimate nothing from then on.
func (h handler) deleteBrokerage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := db.DeleteOwned(ctx, h.app.DB, "brokerages", r.PathValue("brokerageId"), auth.CurrentUser(ctx).ID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// duplicateBrokerage copies a schedule the user can see, a built-in one
// too, into a new one of theirs named "<name> (copy)", or "(copy 2)" and
// on when that is taken: a built-in schedule cannot be edited, so a copy
// is how a user starts from one.
func (h handler) duplicateBrokerage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var b Brokerage
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		src, err := brokerageByID(ctx, tx, userID, r.PathValue("brokerageId"))
		if err != nil {
			return err
		}
		if err := lockUser(ctx, tx, userID, "brokerages", MaxBrokerages); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT lower(name) FROM brokerages WHERE user_id IS NULL OR user_id = $1`, userID)
		if err != nil {
			return db.Classify(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return db.Classify(err)
		}
		const ins = `INSERT INTO brokerages (user_id, name, stock_per_share_commission, stock_min_per_fill,
				stock_max_per_fill, options_per_contract_commission, options_per_contract_exchange_fee,
				options_min_per_fill, options_max_per_fill)
			SELECT $2, $3, stock_per_share_commission, stock_min_per_fill,
				stock_max_per_fill, options_per_contract_commission, options_per_contract_exchange_fee,
				options_min_per_fill, options_max_per_fill
			FROM brokerages WHERE id = $1 RETURNING ` + brokerageColumns
		b, err = scanBrokerage(tx.QueryRow(ctx, ins, src.ID, userID, copyName(src.Name, names)))
		return db.Classify(err)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, brokerageEnvelope{b})
}

// copyName is the name of a copy of a schedule called name: "<name>
// (copy)", else "(copy 2)", "(copy 3)" and on, the first that no name of
// taken (lowercase) has, ignoring case; name is cut so the whole fits
// journal.MaxNameChars.
func copyName(name string, taken []string) string {
	used := make(map[string]bool, len(taken))
	for _, n := range taken {
		used[n] = true
	}
	for i := 1; ; i++ {
		suffix := " (copy)"
		if i > 1 {
			suffix = " (copy " + strconv.Itoa(i) + ")"
		}
		base := []rune(name)
		if n := journal.MaxNameChars - len([]rune(suffix)); len(base) > n {
			base = base[:n]
		}
		if c := strings.TrimRight(string(base), " ") + suffix; !used[strings.ToLower(c)] {
			return c
		}
	}
}
