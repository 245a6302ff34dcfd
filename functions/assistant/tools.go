package assistant

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/assistantdata"
	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/listquery"
	"tradejournal/shared/market"
	"tradejournal/shared/rules/rulesdb"
	"tradejournal/shared/sizing"
	"tradejournal/shared/stats"
)

// The tools a model may call. Each reads through the shared packages the
// journal's own routes use, as the calling user (every query is the
// user's own), and answers text cut to maxToolResultBytes. The journal
// tools are offered only with the trader's consent; the calculator and the
// market tools read nothing of theirs and are offered without it (the
// market tools where their provider is configured).
const (
	maxToolRounds      = assistantdata.MaxToolRounds      // provider calls of one turn that may ask for tools
	maxToolResultBytes = assistantdata.MaxToolResultBytes // one result, as the model and the conversation get it
	toolPositionsLimit = 50
)

// tool is one callable tool.
type tool struct {
	spec    toolSpec
	journal bool // reads the journal: only with consent
	// provider reports whether the market data the tool needs is
	// configured; nil for a tool that needs none.
	provider func(h *handler) bool
	run      func(ctx context.Context, h *handler, u auth.User, args json.RawMessage) (string, error)
}

var filterSchema = `{"type":"object","additionalProperties":false,"properties":{
	"symbol":{"type":"string","description":"symbols, comma separated"},
	"from":{"type":"string","description":"first trading day, YYYY-MM-DD"},
	"to":{"type":"string","description":"last trading day, YYYY-MM-DD"},
	"side":{"type":"string","enum":["long","short"]},
	"status":{"type":"string","enum":["open","closed"]},
	"result":{"type":"string","description":"win, loss or breakeven, comma separated"},
	"weekday":{"type":"string","description":"ISO weekdays 1 (Monday) to 7, comma separated"},
	"assetType":{"type":"string","description":"stock, option, future, ..., comma separated"},
	"propFirm":{"type":"string","enum":["true","false"],"description":"true: only accounts with a prop-firm plan; false: only those without"},
	"phase":{"type":"string","description":"prop-firm plan phases, comma separated: evaluation, funded"}}}`

var tools = []tool{
	{spec: toolSpec{Name: "statistics", Description: "The trader's statistics (as the performance page shows them) for the positions matching a filter: P&L, win rate, profit factor, by symbol, tag and month.",
		Parameters: json.RawMessage(filterSchema)}, journal: true, run: statisticsTool},
	{spec: toolSpec{Name: "list_positions", Description: "The trader's positions matching a filter, newest first (at most 50), each with its id.",
		Parameters: json.RawMessage(filterSchema)}, journal: true, run: listPositionsTool},
	{spec: toolSpec{Name: "get_position", Description: "One of the trader's positions by id, with its full notes.",
		Parameters: json.RawMessage(`{"type":"object","required":["positionId"],"properties":{"positionId":{"type":"string"}}}`)}, journal: true, run: getPositionTool},
	{spec: toolSpec{Name: "day_journal", Description: "The trader's journal entry of one day: plan, review, notes and mood.",
		Parameters: json.RawMessage(`{"type":"object","required":["date"],"properties":{"date":{"type":"string","description":"YYYY-MM-DD"}}}`)}, journal: true, run: dayJournalTool},
	{spec: toolSpec{Name: "rules_compliance", Description: "How the trader kept their own trading rules over a range of trading days (at most 366): days kept and broken, each rule's broken days, and the broken days' violations in words.",
		Parameters: json.RawMessage(`{"type":"object","required":["from","to"],"additionalProperties":false,"properties":{
			"from":{"type":"string","description":"first trading day, YYYY-MM-DD"},"to":{"type":"string","description":"last trading day, YYYY-MM-DD"}}}`)},
		journal: true, run: complianceTool},
	{spec: toolSpec{Name: "position_size", Description: "The position-size calculator: size from entry, stop and the risk (dollarRisk, or balance and riskPercent). Prices are decimal strings.",
		Parameters: json.RawMessage(`{"type":"object","required":["mode","direction","entryPrice","stopLoss"],"properties":{
			"mode":{"type":"string","enum":["stock","options"]},"direction":{"type":"string","enum":["long","short"]},
			"entryPrice":{"type":"string"},"stopLoss":{"type":"string"},"targetPrice":{"type":"string"},
			"dollarRisk":{"type":"string"},"balance":{"type":"string"},"riskPercent":{"type":"string"}}}`)}, run: positionSizeTool},
	{spec: toolSpec{Name: "quote", Description: "The latest (possibly delayed) price of a stock symbol from the market data provider.",
		Parameters: json.RawMessage(`{"type":"object","required":["symbol"],"properties":{"symbol":{"type":"string"}}}`)},
		provider: func(h *handler) bool { return h.quotes.Enabled() }, run: quoteTool},
	{spec: toolSpec{Name: "options_chain", Description: "The options chain of an underlying stock or fund for one expiration (the nearest when none is given): for the strikes nearest the money, each call's and put's bid, ask, last, volume, open interest, delta and implied volatility, and the other listed expirations.",
		Parameters: json.RawMessage(`{"type":"object","required":["symbol"],"properties":{"symbol":{"type":"string"},"expiration":{"type":"string","description":"YYYY-MM-DD; left out: the nearest"}}}`)},
		provider: func(h *handler) bool { return h.chains.Enabled() }, run: optionsChainTool},
}

// offeredTools are the tools of a turn: the journal's only with consent,
// the market tools only where their provider is configured.
func (h *handler) offeredTools(journalAccess bool) []toolSpec {
	var out []toolSpec
	for _, t := range tools {
		if h.offers(t, journalAccess) {
			out = append(out, t.spec)
		}
	}
	return out
}

func (h *handler) offers(t tool, journalAccess bool) bool {
	return (journalAccess || !t.journal) && (t.provider == nil || t.provider(h))
}

// runTool runs one call the model made and returns its result for the
// model. A tool that is not offered, bad arguments or a refused read are
// results too ("error: ..."), so the model can correct itself; only a
// failure of ours is an error.
func (h *handler) runTool(ctx context.Context, u auth.User, journalAccess bool, c toolCall) (string, error) {
	t, ok := toolNamed(c.Name)
	if !ok || !h.offers(t, journalAccess) {
		return "error: there is no tool named " + fmt.Sprintf("%q", truncate(c.Name, 64)), nil
	}
	out, err := t.run(ctx, h, u, c.Arguments)
	if e, ok := apperr.As(err); ok {
		return "error: " + e.Message, nil
	}
	if err != nil {
		return "", err
	}
	return truncate(out, maxToolResultBytes), nil
}

// toolNamed is the tool of that name.
func toolNamed(name string) (tool, bool) {
	for _, t := range tools {
		if t.spec.Name == name {
			return t, true
		}
	}
	return tool{}, false
}

// decodeArgs reads a call's arguments strictly; bad ones are a validation
// error the model gets back.
func decodeArgs(args json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return apperr.New(apperr.Validation, "the arguments do not match the tool's parameters")
	}
	return nil
}

type filterArgs struct {
	Symbol    string `json:"symbol"`
	From      string `json:"from"`
	To        string `json:"to"`
	Side      string `json:"side"`
	Status    string `json:"status"`
	Result    string `json:"result"`
	Weekday   string `json:"weekday"`
	AssetType string `json:"assetType"`
	PropFirm  string `json:"propFirm"`
	Phase     string `json:"phase"`
}

// filter parses the arguments as the journal's query-string filter.
func (a filterArgs) filter() (listquery.Filter, error) {
	q := url.Values{}
	for k, v := range map[string]string{"symbol": a.Symbol, "from": a.From, "to": a.To, "side": a.Side,
		"status": a.Status, "result": a.Result, "weekday": a.Weekday, "assetType": a.AssetType, "propFirm": a.PropFirm, "phase": a.Phase} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return listquery.ParseFilter(q)
}

func statisticsTool(ctx context.Context, h *handler, u auth.User, args json.RawMessage) (string, error) {
	var a filterArgs
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	f, err := a.filter()
	if err != nil {
		return "", err
	}
	rep, err := stats.Compute(ctx, h.app.DB, u, f, true, h.app.Now())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	writeStatistics(&b, rep)
	return b.String(), nil
}

// positionColumns are a position line's columns, the position joined to
// its account (p, a).
const positionColumns = `p.id::text, p.symbol, p.side, p.status, a.currency, a.timezone, p.opened_at, p.closed_at,
	p.net_pnl, p.fees, p.r_multiple, p.notes`

func (h *handler) scanPositions(rows pgx.Rows, notes int) ([]position, error) {
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (position, error) {
		var p position
		err := row.Scan(&p.ID, &p.Symbol, &p.Side, &p.Status, &p.Currency, &p.Zone, &p.OpenedAt, &p.ClosedAt,
			&p.NetPnl, &p.Fees, &p.RMultiple, &p.Notes)
		return p, err
	})
	if err != nil {
		return nil, db.Classify(err)
	}
	for i := range out {
		text, err := h.app.Keyring.Open(encrypt.PositionNotes, out[i].Notes)
		if err != nil {
			text = "" // a note sealed with a key this process lacks is left out, not fatal
		}
		out[i].Notes = truncate(text, notes)
	}
	return out, nil
}

func listPositionsTool(ctx context.Context, h *handler, u auth.User, args json.RawMessage) (string, error) {
	var a filterArgs
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	f, err := a.filter()
	if err != nil {
		return "", err
	}
	// The journal's own filter, as the positions list applies it (dates in
	// each account's trading-day zone).
	params := []any{u.ID}
	where := f.SQL(&params, "p.opened_at")
	params = append(params, toolPositionsLimit)
	q := `SELECT ` + positionColumns + ` FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.user_id = $1 AND p.status <> 'draft' AND ` + where + `
		ORDER BY p.opened_at DESC NULLS FIRST, p.id DESC LIMIT $` + strconv.Itoa(len(params))
	rows, err := h.app.DB.Query(ctx, q, params...)
	if err != nil {
		return "", db.Classify(err)
	}
	ps, err := h.scanPositions(rows, notesExcerpt)
	if err != nil {
		return "", err
	}
	if len(ps) == 0 {
		return "No positions match.", nil
	}
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.line())
	}
	return b.String(), nil
}

func getPositionTool(ctx context.Context, h *handler, u auth.User, args json.RawMessage) (string, error) {
	var a struct {
		PositionID string `json:"positionId"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if !db.ValidUUID(a.PositionID) {
		return "", apperr.New(apperr.NotFound, "no position with that id")
	}
	rows, err := h.app.DB.Query(ctx, `SELECT `+positionColumns+` FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.id = $1 AND p.user_id = $2`, a.PositionID, u.ID)
	if err != nil {
		return "", db.Classify(err)
	}
	ps, err := h.scanPositions(rows, maxToolResultBytes/2)
	if err != nil {
		return "", err
	}
	if len(ps) == 0 {
		return "", apperr.New(apperr.NotFound, "no position with that id")
	}
	return ps[0].line(), nil
}

func dayJournalTool(ctx context.Context, h *handler, u auth.User, args json.RawMessage) (string, error) {
	var a struct {
		Date string `json:"date"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	day, err := dayjournal.ParseDate(a.Date)
	if err != nil {
		return "", err
	}
	e, err := h.days.Get(ctx, u.ID, day)
	if err != nil {
		return "", err
	}
	if e.UpdatedAt == nil {
		return "No journal entry for " + a.Date + ".", nil
	}
	out, err := json.Marshal(e)
	return string(out), err
}

// complianceViolations bounds the violations a rules_compliance result
// words: the latest broken days' first, within the result's size.
const complianceViolations = 40

func complianceTool(ctx context.Context, h *handler, u auth.User, args json.RawMessage) (string, error) {
	var a struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	from, err := dayjournal.ParseDate(a.From)
	if err != nil {
		return "", apperr.Invalid("from", "must be a date YYYY-MM-DD")
	}
	to, err := dayjournal.ParseDate(a.To)
	if err != nil {
		return "", apperr.Invalid("to", "must be a date YYYY-MM-DD")
	}
	rep, err := rulesdb.Compliance(ctx, h.app.DB, u, rulesdb.Query{From: from, To: to, Days: true}, h.app.Now())
	if err != nil {
		return "", err
	}
	var b strings.Builder
	writeCompliance(&b, rep)
	return b.String(), nil
}

// writeCompliance words a compliance report for the model: the counts,
// each rule's broken days per currency, then the violations of the latest
// broken days.
func writeCompliance(b *strings.Builder, rep rulesdb.Report) {
	fmt.Fprintf(b, "Trading days %s to %s: %d kept every rule, %d broke at least one.\n", rep.From, rep.To, rep.DaysKept, rep.DaysBroken)
	for _, blk := range rep.Breakdown.ByCurrency {
		fmt.Fprintf(b, "%s: kept days net %s over %d days; broken days net %s over %d days.\n",
			blk.Currency, blk.Kept.NetPnl, blk.Kept.Days, blk.Broken.NetPnl, blk.Broken.Days)
		for _, r := range blk.ByRule {
			if r.Days > 0 {
				fmt.Fprintf(b, "  rule %s (%s) broken on %d days, net %s on them.\n", r.Type, r.RuleID, r.Days, r.NetPnl)
			}
		}
	}
	written := 0
	for i := len(rep.Days) - 1; i >= 0 && written < complianceViolations; i-- {
		for _, v := range rep.Days[i].Violations {
			if written == complianceViolations {
				break
			}
			fmt.Fprintf(b, "%s: %s\n", rep.Days[i].Date, v.Message)
			written++
		}
	}
	if rep.DaysKept+rep.DaysBroken == 0 {
		b.WriteString("No trading day in the range was judged (no enabled rule, or no trade).\n")
	}
}

func positionSizeTool(_ context.Context, _ *handler, _ auth.User, args json.RawMessage) (string, error) {
	var in sizing.Input
	if err := decodeArgs(args, &in); err != nil {
		return "", err
	}
	p, err := sizing.Validate(in)
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(sizing.Calculate(p))
	return string(out), err
}

func quoteTool(ctx context.Context, h *handler, _ auth.User, args json.RawMessage) (string, error) {
	var a struct {
		Symbol string `json:"symbol"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	symbol, ok := market.ValidSymbol(a.Symbol)
	if !ok {
		return "", apperr.Invalid("symbol", "is not a stock symbol")
	}
	q, err := h.quotes.Get(ctx, symbol)
	if err != nil {
		return "", err
	}
	out, err := json.Marshal(q)
	return string(out), err
}

// chainStrikes bounds the strikes an options_chain result shows: those
// nearest the money, which is what a trader asks about, within the result's
// size.
const chainStrikes = 30

func optionsChainTool(ctx context.Context, h *handler, _ auth.User, args json.RawMessage) (string, error) {
	var a struct {
		Symbol     string `json:"symbol"`
		Expiration string `json:"expiration"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	symbol, ok := market.ValidSymbol(a.Symbol)
	if !ok {
		return "", apperr.Invalid("symbol", "is not a stock or fund symbol")
	}
	if a.Expiration != "" {
		if _, err := time.Parse(time.DateOnly, a.Expiration); err != nil {
			return "", apperr.Invalid("expiration", "must be a date, YYYY-MM-DD")
		}
	}
	c, err := h.chains.Chain(ctx, symbol, a.Expiration)
	if err != nil {
		return "", err
	}
	return chainText(c), nil
}

// chainText is a chain as the model reads it: one line a strike, the call
// and the put side by side, the chainStrikes strikes nearest the money.
func chainText(c market.OptionChain) string {
	type row struct {
		strike    decimal.Decimal
		call, put *market.OptionContract
	}
	var rows []row
	for i := range c.Contracts {
		k := &c.Contracts[i]
		if n := len(rows); n == 0 || !rows[n-1].strike.Equal(k.Strike) {
			rows = append(rows, row{strike: k.Strike})
		}
		if k.Type == "call" {
			rows[len(rows)-1].call = k
		} else {
			rows[len(rows)-1].put = k
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s options expiring %s (delayed quotes; greeks and IV as the provider computes them, hourly).\n", c.Underlying, c.Expiration)
	var others []string
	for _, d := range c.Expirations {
		if d != c.Expiration && len(others) < 12 {
			others = append(others, d)
		}
	}
	if len(others) > 0 {
		b.WriteString("Other expirations: " + strings.Join(others, ", ") + "\n")
	}
	if len(rows) == 0 {
		b.WriteString("No contracts are listed for this expiration.\n")
		return b.String()
	}
	// The money: the strike whose call delta is nearest 0.5 (or put delta
	// nearest -0.5); without greeks, the middle strike.
	atm, best := len(rows)/2, decimal.NewFromInt(2)
	half := decimal.RequireFromString("0.5")
	for i, r := range rows {
		for _, k := range []*market.OptionContract{r.call, r.put} {
			if k == nil || k.Greeks == nil {
				continue
			}
			if d := k.Greeks.Delta.Abs().Sub(half).Abs(); d.LessThan(best) {
				atm, best = i, d
			}
		}
	}
	from := max(0, min(atm-chainStrikes/2, len(rows)-chainStrikes))
	shown := rows[from:min(len(rows), from+chainStrikes)]
	b.WriteString("strike | call: bid ask last volume openInterest delta IV | put: bid ask last volume openInterest delta IV\n")
	for _, r := range shown {
		b.WriteString(r.strike.String() + " | " + contractText(r.call) + " | " + contractText(r.put) + "\n")
	}
	if len(shown) < len(rows) {
		fmt.Fprintf(&b, "(%d of %d strikes, those nearest the money; from %s to %s)\n", len(shown), len(rows), rows[0].strike, rows[len(rows)-1].strike)
	}
	return b.String()
}

// contractText is one side of a strike's line; "-" stands for what the
// provider has none of.
func contractText(k *market.OptionContract) string {
	if k == nil {
		return "not listed"
	}
	price := func(p *decimal.Decimal) string {
		if p == nil {
			return "-"
		}
		return p.String()
	}
	delta, iv := "-", "-"
	if g := k.Greeks; g != nil {
		delta = g.Delta.String()
		if g.IV != nil {
			iv = g.IV.Mul(decimal.NewFromInt(100)).StringFixed(1) + "%"
		}
	}
	return strings.Join([]string{price(k.Bid), price(k.Ask), price(k.Last), strconv.FormatInt(k.Volume, 10),
		strconv.FormatInt(k.OpenInterest, 10), delta, iv}, " ")
}
