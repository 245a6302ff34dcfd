package performance

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/httpx"
	"tradejournal/shared/listquery"
	"tradejournal/shared/money"
)

// The fee roll-up: what commissions and fees cost, by period, account,
// broker (the account's fee schedule) and asset type, beside the gross P&L
// they were paid to earn. It reads the ledger, where the journal store
// writes every fill's fee and every exit's realised P&L as it writes the
// fill, so a fee counts on the day it was paid, and an open position's fees
// count too (the statistics count fees only when a position closes).

// periodFormats are the period keys, to_char patterns of the ledger time
// in the account's trading-day zone: the same keys the statistics' buckets
// use ("2024-05-03", "2024-W18", "2024-05", "2024").
var periodFormats = map[string]string{
	"day":   "YYYY-MM-DD",
	"week":  `IYYY-"W"IW`,
	"month": "YYYY-MM",
	"year":  "YYYY",
}

// FeeFigures are the fees of one group and the gross P&L of the same
// group's exits. FeeShare is the fees as a percent of a positive gross P&L
// (of a loss, a share means nothing: null).
type FeeFigures struct {
	Fees     string  `json:"fees"`
	GrossPnl string  `json:"grossPnl"`
	NetPnl   string  `json:"netPnl"`
	FeeShare *string `json:"feeShare"`
	// Fills is the number of fills that paid a fee.
	Fills int64 `json:"fills"`
}

// FeePeriod is one period of the roll-up.
type FeePeriod struct {
	Period string `json:"period"`
	FeeFigures
}

// FeeAccount is one account of the roll-up.
type FeeAccount struct {
	AccountID string `json:"accountId"`
	Name      string `json:"name"`
	FeeFigures
}

// FeeBroker is one fee schedule (the broker an account trades at); null
// gathers the accounts without one.
type FeeBroker struct {
	BrokerageID *string `json:"brokerageId"`
	Name        *string `json:"name"`
	FeeFigures
}

// FeeAssetType is one asset type of the roll-up.
type FeeAssetType struct {
	AssetType string `json:"assetType"`
	FeeFigures
}

// FeeBlock is every figure of the roll-up in one currency.
type FeeBlock struct {
	Currency    string         `json:"currency"`
	Summary     FeeFigures     `json:"summary"`
	ByPeriod    []FeePeriod    `json:"byPeriod"`
	ByAccount   []FeeAccount   `json:"byAccount"`
	ByBroker    []FeeBroker    `json:"byBroker"`
	ByAssetType []FeeAssetType `json:"byAssetType"`
}

// FeeReport is the answer of GET /api/performance/fees, shaped as the
// statistics are: a block per account currency, and the total in the
// display currency at today's rates (null without a display currency or
// with a pair missing, which MissingPairs names).
type FeeReport struct {
	Period          string     `json:"period"`
	DisplayCurrency *string    `json:"displayCurrency"`
	MissingPairs    []string   `json:"missingPairs"`
	ByCurrency      []FeeBlock `json:"byCurrency"`
	Total           *FeeBlock  `json:"total"`
}

// feeSums are the sums of one group before they are written out.
type feeSums struct {
	fees, gross decimal.Decimal
	fills       int64
}

func (s feeSums) add(o feeSums) feeSums {
	return feeSums{s.fees.Add(o.fees), s.gross.Add(o.gross), s.fills + o.fills}
}

func (s feeSums) scaled(f decimal.Decimal) feeSums {
	return feeSums{s.fees.Mul(f), s.gross.Mul(f), s.fills}
}

func (s feeSums) figures() FeeFigures {
	out := FeeFigures{Fees: amount(s.fees), GrossPnl: amount(s.gross), NetPnl: amount(s.gross.Sub(s.fees)), Fills: s.fills}
	if s.gross.IsPositive() {
		share := money.RoundN(s.fees.Mul(decimal.NewFromInt(100)).DivRound(s.gross, 2), 2)
		out.FeeShare = &share
	}
	return out
}

func amount(d decimal.Decimal) string { return money.RoundN(d, fx.Places) }

// feeRow is one row of feesSQL: the sums of one currency, period, account
// and asset type.
type feeRow struct {
	currency, period, accountID, accountName, assetType string
	brokerageID, brokerageName                          *string
	feeSums
}

// feesSQL sums the user's fee and realised-P&L ledger rows by currency,
// period, account and asset type; the journal's filter (listquery) narrows
// them by the position and by the ledger row's day in the account's zone.
const feesSQL = `SELECT a.currency::text, to_char(l.occurred_at AT TIME ZONE a.timezone, $2), a.id::text, a.name,
	a.brokerage_id::text, b.name, p.asset_type,
	coalesce(-sum(l.amount) FILTER (WHERE l.kind = 'fee'), 0),
	coalesce(sum(l.amount) FILTER (WHERE l.kind = 'realized_pnl'), 0),
	count(*) FILTER (WHERE l.kind = 'fee')
FROM ledger_entries l
JOIN positions p ON p.id = l.position_id
JOIN accounts a ON a.id = l.account_id
LEFT JOIN brokerages b ON b.id = a.brokerage_id
WHERE p.user_id = $1 AND l.kind IN ('fee', 'realized_pnl') AND `

const feesGroupBy = ` GROUP BY 1, 2, 3, 4, 5, 6, 7`

// fees answers the fee roll-up of the caller's ledger: period is day,
// week, month (the default) or year; the journal's shared filter applies,
// its from/to to the day each fee or exit was booked.
func (h handler) fees(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	period := q.Get("period")
	if period == "" {
		period = "month"
	}
	f, err := listquery.ParseFilter(q)
	if _, ok := periodFormats[period]; !ok && err == nil {
		err = apperr.Invalid("period", "must be day, week, month or year")
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	rep, err := h.feeReport(ctx, auth.CurrentUser(ctx), f, period)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, rep)
}

func (h handler) feeReport(ctx context.Context, u auth.User, f listquery.Filter, period string) (FeeReport, error) {
	var (
		rows    []feeRow
		factors map[string]decimal.Decimal
	)
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	args := []any{u.ID, periodFormats[period]}
	res, err := h.app.DB.Query(ctx, feesSQL+f.SQL(&args, "l.occurred_at")+feesGroupBy, args...)
	if err != nil {
		return FeeReport{}, err
	}
	rows, err = pgx.CollectRows(res, func(row pgx.CollectableRow) (feeRow, error) {
		var x feeRow
		err := row.Scan(&x.currency, &x.period, &x.accountID, &x.accountName, &x.brokerageID, &x.brokerageName,
			&x.assetType, &x.fees, &x.gross, &x.fills)
		return x, err
	})
	if err != nil {
		return FeeReport{}, err
	}
	if display != "" {
		day := fx.Today(h.app.Now(), u.Timezone)
		snap, err := fxdb.Load(ctx, h.app.DB, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
		if err != nil {
			return FeeReport{}, err
		}
		var amounts []fx.Amount
		for _, x := range rows {
			amounts = append(amounts, fx.Amount{Currency: x.currency})
		}
		factors, _ = fx.Factors(amounts, snap.Rates, display, day)
	}
	return buildFees(rows, period, display, factors), nil
}

// buildFees adds the rows up into a block per currency and, when every
// currency has a factor into display, the converted total.
func buildFees(rows []feeRow, period, display string, factors map[string]decimal.Decimal) FeeReport {
	rep := FeeReport{Period: period, MissingPairs: []string{}, ByCurrency: []FeeBlock{}}
	byCurrency := map[string][]feeRow{}
	for _, x := range rows {
		byCurrency[x.currency] = append(byCurrency[x.currency], x)
	}
	currencies := slices.Sorted(maps.Keys(byCurrency))
	for _, c := range currencies {
		rep.ByCurrency = append(rep.ByCurrency, feeBlock(c, byCurrency[c], func(string) decimal.Decimal { return decimal.NewFromInt(1) }))
	}
	if display == "" {
		return rep
	}
	rep.DisplayCurrency = &display
	for _, c := range currencies {
		if _, ok := factors[c]; !ok {
			rep.MissingPairs = append(rep.MissingPairs, fx.Pair(c, display))
		}
	}
	if len(rep.MissingPairs) == 0 {
		total := feeBlock(display, rows, func(c string) decimal.Decimal { return factors[c] })
		rep.Total = &total
	}
	return rep
}

// feeBlock sums rows (each scaled by the factor of its currency) into one
// block: periods in time order, the rest by fees paid, most first.
func feeBlock(currency string, rows []feeRow, factor func(string) decimal.Decimal) FeeBlock {
	var sum feeSums
	periods, accounts, brokers, assets := map[string]feeSums{}, map[string]feeSums{}, map[string]feeSums{}, map[string]feeSums{}
	accountNames, brokerNames := map[string]string{}, map[string]*string{}
	for _, x := range rows {
		s := x.feeSums.scaled(factor(x.currency))
		sum = sum.add(s)
		periods[x.period] = periods[x.period].add(s)
		accounts[x.accountID] = accounts[x.accountID].add(s)
		accountNames[x.accountID] = x.accountName
		broker := ""
		if x.brokerageID != nil {
			broker = *x.brokerageID
		}
		brokers[broker] = brokers[broker].add(s)
		brokerNames[broker] = x.brokerageName
		assets[x.assetType] = assets[x.assetType].add(s)
	}
	b := FeeBlock{Currency: currency, Summary: sum.figures(), ByPeriod: []FeePeriod{}}
	for _, p := range slices.Sorted(maps.Keys(periods)) {
		b.ByPeriod = append(b.ByPeriod, FeePeriod{p, periods[p].figures()})
	}
	for _, id := range mostFees(accounts) {
		b.ByAccount = append(b.ByAccount, FeeAccount{id, accountNames[id], accounts[id].figures()})
	}
	for _, id := range mostFees(brokers) {
		var brokerageID *string
		if id != "" {
			brokerageID = &id
		}
		b.ByBroker = append(b.ByBroker, FeeBroker{brokerageID, brokerNames[id], brokers[id].figures()})
	}
	for _, t := range mostFees(assets) {
		b.ByAssetType = append(b.ByAssetType, FeeAssetType{t, assets[t].figures()})
	}
	if b.ByAccount == nil {
		b.ByAccount, b.ByBroker, b.ByAssetType = []FeeAccount{}, []FeeBroker{}, []FeeAssetType{}
	}
	return b
}

// mostFees returns the keys of groups by fees paid, most first, then by
// key for a stable order.
func mostFees(groups map[string]feeSums) []string {
	keys := slices.Collect(maps.Keys(groups))
	slices.SortFunc(keys, func(a, b string) int {
		if c := groups[b].fees.Cmp(groups[a].fees); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return keys
}
