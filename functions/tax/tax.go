// Package tax is the route group of the tax report: a year's realised gains
// under the user's jurisdiction (shared/tax has the rules: US lots with wash
// sales and Section 1256, UK share matching, plain FIFO elsewhere), its
// downloads (Form 8949 and the lot list as CSV), the settings it follows
// (jurisdiction per user and account, how each broker reports basis) and
// the year-end marks of Section 1256 contracts still open.
//
// It only reads the journal: every fill of the accounts under the
// jurisdiction, of every year up to shortly after the report's (earlier
// years make the basis; a purchase in the next 30 days can wash a loss).
package tax

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/httpx"
	"tradejournal/shared/tax"
)

type handler struct{ app *app.App }

// Group returns the tax route group.
func Group(a *app.App) httpx.Group {
	h := handler{app: a}
	require := a.Sessions.Require
	return httpx.Group{
		Name:   "tax",
		Mounts: []string{"/api/tax/"},
		Routes: []httpx.Route{
			{Pattern: "GET /api/tax/report", Handler: require(h.report)},
			{Pattern: "GET /api/tax/report/form-8949.csv", Handler: require(h.form8949)},
			{Pattern: "GET /api/tax/report/lots.csv", Handler: require(h.lotsCSV)},
			{Pattern: "GET /api/tax/settings", Handler: require(h.getSettings)},
			{Pattern: "PUT /api/tax/settings", Handler: require(h.putSettings)},
			{Pattern: "GET /api/tax/marks", Handler: require(h.getMarks)},
			{Pattern: "PUT /api/tax/marks", Handler: require(h.putMarks)},
		},
	}
}

// Report is the answer of GET /api/tax/report: the report and the names of
// the accounts its lots name by id.
type Report struct {
	tax.Report
	Accounts []AccountName `json:"accounts"`
}

// AccountName names an account of the report.
type AccountName struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// query is a validated report request.
type query struct {
	year         int
	jurisdiction tax.Jurisdiction
	currency     string // "" for the jurisdiction's own
}

// Years a report can be asked for: the journal's dates run from 1970.
const (
	firstYear = 1970
	lastYear  = 9998
)

func parseQuery(r *http.Request, fallback *string) (query, error) {
	q := r.URL.Query()
	var out query
	y, err := strconv.Atoi(q.Get("year"))
	if err != nil || y < firstYear || y > lastYear {
		return out, apperr.Invalid("year", "must be a year from 1970 to 9998")
	}
	out.year = y
	j := q.Get("jurisdiction")
	if j == "" && fallback != nil {
		j = *fallback
	}
	if j == "" {
		return out, apperr.Invalid("jurisdiction", "choose your tax jurisdiction (us, uk or other) in the tax settings or give it here")
	}
	if !validJurisdiction(j) {
		return out, apperr.Invalid("jurisdiction", "must be us, uk or other")
	}
	out.jurisdiction = tax.Jurisdiction(j)
	if c := strings.ToUpper(q.Get("currency")); c != "" {
		if out.jurisdiction != tax.Other {
			return out, apperr.Invalid("currency", "is only for the jurisdiction other (the US report is in USD, the UK's in GBP)")
		}
		if len(c) != 3 || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return out, apperr.Invalid("currency", "must be an ISO 4217 currency code such as USD")
		}
		out.currency = c
	}
	return out, nil
}

func (h handler) report(w http.ResponseWriter, r *http.Request) {
	rep, err := h.compute(r, "")
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rep)
}

// form8949 downloads the US report's Form 8949 lines.
func (h handler) form8949(w http.ResponseWriter, r *http.Request) {
	rep, err := h.compute(r, tax.US)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	h.csv(w, r, "form-8949-"+strconv.Itoa(rep.Year)+".csv", withNames(rep), tax.WriteForm8949CSV)
}

// lotsCSV downloads every lot of the report with its matches.
func (h handler) lotsCSV(w http.ResponseWriter, r *http.Request) {
	rep, err := h.compute(r, "")
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	name := "tax-lots-" + string(rep.Jurisdiction) + "-" + strconv.Itoa(rep.Year) + ".csv"
	h.csv(w, r, name, withNames(rep), tax.WriteLotsCSV)
}

func (h handler) csv(w http.ResponseWriter, r *http.Request, name string, rep tax.Report, write func(io.Writer, tax.Report) error) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.WriteHeader(http.StatusOK)
	// The report is whole before the first byte: a failure here is the
	// connection's, with the status already sent.
	_ = write(w, rep)
}

// withNames is the report with its lots' account ids replaced by the
// accounts' names, for a file read by a person.
func withNames(rep Report) tax.Report {
	names := make(map[string]string, len(rep.Accounts))
	for _, a := range rep.Accounts {
		names[a.ID] = a.Name
	}
	name := func(ids string) string {
		parts := strings.Split(ids, ",")
		for i, id := range parts {
			if n, ok := names[strings.TrimSpace(id)]; ok {
				parts[i] = n
			}
		}
		return strings.Join(parts, ", ")
	}
	out := rep.Report
	out.Lots = make([]tax.Lot, len(rep.Lots))
	for i, l := range rep.Lots {
		l.Account = name(l.Account)
		l.Matches = slices.Clone(l.Matches)
		for j := range l.Matches {
			l.Matches[j].Account = name(l.Matches[j].Account)
		}
		l.WashedTo = slices.Clone(l.WashedTo)
		for j := range l.WashedTo {
			l.WashedTo[j].Account = name(l.WashedTo[j].Account)
		}
		out.Lots[i] = l
	}
	return out
}

// compute reads what the report needs and computes it; only, when not "",
// is the one jurisdiction the route serves.
func (h handler) compute(r *http.Request, only tax.Jurisdiction) (Report, error) {
	ctx := r.Context()
	u := auth.CurrentUser(ctx)
	var (
		out  Report
		data reportData
	)
	err := db.InSnapshot(ctx, h.app.DB, func(tx pgx.Tx) error {
		var chosen *string
		if err := tx.QueryRow(ctx, `SELECT tax_jurisdiction FROM users WHERE id = $1`, u.ID).Scan(&chosen); err != nil {
			return err
		}
		q, err := parseQuery(r, chosen)
		if err != nil {
			return err
		}
		if only != "" && q.jurisdiction != only {
			return apperr.Invalid("jurisdiction", "must be us: Form 8949 is the US form")
		}
		data, err = readReportData(ctx, tx, u.ID, q)
		return err
	})
	if err != nil {
		return out, err
	}
	zone, err := time.LoadLocation(u.Timezone)
	if err != nil {
		zone = time.UTC
	}
	data.req.Zone = zone
	rep, err := tax.Compute(data.req)
	if err != nil {
		return out, err
	}
	return Report{Report: rep, Accounts: data.accounts}, nil
}

// reportData is what readReportData reads.
type reportData struct {
	req      tax.Request
	accounts []AccountName
}

// The report reads trades up to this long after its period ends: a
// purchase within 30 days of a sale can wash its loss (US), or match it
// (UK's 30-day rule), and the taxpayer's zone can move a day by a day.
const afterPeriod = 32 * 24 * time.Hour

func readReportData(ctx context.Context, tx pgx.Tx, userID string, q query) (reportData, error) {
	d := reportData{req: tax.Request{Jurisdiction: q.jurisdiction, Year: q.year, Currency: q.currency,
		Reporting: map[string]tax.BasisReporting{}, MarksByYear: map[int]map[string]decimal.Decimal{}}}
	end := time.Date(q.year+1, time.January, 1, 0, 0, 0, 0, time.UTC)
	if q.jurisdiction == tax.UK {
		end = time.Date(q.year+1, time.April, 6, 0, 0, 0, 0, time.UTC)
	}
	// The accounts under the jurisdiction: their own, or the user's.
	rows, err := tx.Query(ctx, `SELECT a.id::text, a.name, a.currency::text, a.tax_basis_reporting
		FROM accounts a JOIN users u ON u.id = a.user_id
		WHERE a.user_id = $1 AND coalesce(a.tax_jurisdiction, u.tax_jurisdiction, $2) = $2
		ORDER BY lower(a.name), a.id`, userID, string(q.jurisdiction))
	if err != nil {
		return d, err
	}
	var ids, currencies []string
	d.accounts = []AccountName{}
	for rows.Next() {
		var a AccountName
		var currency, reporting string
		if err := rows.Scan(&a.ID, &a.Name, &currency, &reporting); err != nil {
			return d, err
		}
		d.accounts = append(d.accounts, a)
		ids, currencies = append(ids, a.ID), append(currencies, currency)
		d.req.Reporting[a.ID] = tax.BasisReporting(reporting)
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	if q.jurisdiction == tax.Other && d.req.Currency == "" {
		d.req.Currency = otherCurrency(ctx, tx, userID, currencies)
	}
	if d.req.Trades, err = readTrades(ctx, tx, ids, end.Add(afterPeriod)); err != nil {
		return d, err
	}
	if d.req.Rates, err = readRates(ctx, tx, userID); err != nil {
		return d, err
	}
	marks, err := tx.Query(ctx, `SELECT year, instrument, price FROM tax_year_end_marks WHERE user_id = $1`, userID)
	if err != nil {
		return d, err
	}
	for marks.Next() {
		var (
			year       int
			instrument string
			price      decimal.Decimal
		)
		if err := marks.Scan(&year, &instrument, &price); err != nil {
			return d, err
		}
		if d.req.MarksByYear[year] == nil {
			d.req.MarksByYear[year] = map[string]decimal.Decimal{}
		}
		d.req.MarksByYear[year][instrument] = price
	}
	d.req.Marks = d.req.MarksByYear[q.year]
	return d, marks.Err()
}

// otherCurrency is the currency of a report under other rules without one
// asked for: the display currency, else the first account's.
func otherCurrency(ctx context.Context, tx pgx.Tx, userID string, currencies []string) string {
	var display *string
	if err := tx.QueryRow(ctx, `SELECT display_currency::text FROM users WHERE id = $1`, userID).Scan(&display); err == nil && display != nil {
		return *display
	}
	if len(currencies) > 0 {
		return currencies[0]
	}
	return "USD"
}

// readTrades reads every fill of the accounts before end as a trade: a
// long position's entries are buys and its exits sells, a short's the
// other way round. A reversal's two parts are two trades, as the journal
// splits them.
func readTrades(ctx context.Context, tx pgx.Tx, accountIDs []string, end time.Time) ([]tax.Trade, error) {
	if len(accountIDs) == 0 {
		return nil, nil
	}
	rows, err := tx.Query(ctx, `SELECT f.id::text, p.account_id::text, p.symbol, coalesce(p.underlying, p.symbol), p.asset_type,
			(p.side = 'long') = (f.type = 'entry'), f.quantity, p.multiplier, f.price,
			CASE WHEN f.fee_asset IS NULL THEN f.fees ELSE round(f.fees * coalesce(f.fee_rate, 0), 4) END, f.filled_at, a.currency::text
		FROM fills f JOIN positions p ON p.id = f.position_id JOIN accounts a ON a.id = p.account_id
		WHERE p.account_id = ANY($1::uuid[]) AND f.filled_at < $2
		ORDER BY f.filled_at, f.id`, accountIDs, end)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (tax.Trade, error) {
		var (
			t   tax.Trade
			buy bool
		)
		err := row.Scan(&t.ID, &t.Account, &t.Instrument, &t.Underlying, &t.AssetType, &buy, &t.Quantity, &t.Multiplier,
			&t.Price, &t.Fees, &t.Time, &t.Currency)
		t.Side = tax.Sell
		if buy {
			t.Side = tax.Buy
		}
		t.Section1256 = tax.IsSection1256(t.AssetType, t.Underlying)
		return t, err
	})
}

// readRates reads every exchange rate of the user: a trade converts at the
// rate of its own day, so every date counts.
func readRates(ctx context.Context, tx pgx.Tx, userID string) ([]fx.Rate, error) {
	rows, err := tx.Query(ctx, `SELECT id::text, base_currency::text, quote_currency::text, effective_date, rate
		FROM exchange_rates WHERE user_id = $1`, userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (fx.Rate, error) {
		var r fx.Rate
		err := row.Scan(&r.ID, &r.Base, &r.Quote, &r.Date, &r.Value)
		return r, err
	})
}
