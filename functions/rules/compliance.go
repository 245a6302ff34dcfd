package rules

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"

	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
	"tradejournal/shared/rules"
	"tradejournal/shared/rules/rulesdb"
)

// complianceFilters are the statistics' filters a compliance request
// refuses: a rule judges every trade of a day, so narrowing the trades to
// some symbols, tags or hours would judge a day that never was (a
// prop-firm account is chosen by its accountId).
var complianceFilters = []string{"symbol", "status", "tagId", "excludeTagId", "side", "result", "assetType", "weekday", "hour", "dateBy", "propFirm", "phase"}

// parseQuery reads from and to (required; rulesdb.Compliance bounds the
// range) and accountId through the journal's shared filter, days (true
// unless "false") and trades (false unless "true").
func parseQuery(q url.Values) (rulesdb.Query, error) {
	f, err := listquery.ParseFilter(q)
	if err != nil {
		return rulesdb.Query{}, err
	}
	var p journal.Problems
	for _, name := range complianceFilters {
		if q.Has(name) {
			p.Add(name, "is not a filter of the rules' compliance: a rule judges every trade of a day")
		}
	}
	if f.From == nil {
		p.Add("from", "is required")
	}
	if f.To == nil {
		p.Add("to", "is required")
	}
	for _, name := range []string{"days", "trades"} {
		if v := q.Get(name); v != "" && v != "true" && v != "false" {
			p.Add(name, "must be true or false")
		}
	}
	if err := p.Err(); err != nil {
		return rulesdb.Query{}, err
	}
	return rulesdb.Query{From: *f.From, To: *f.To, AccountIDs: f.AccountIDs, Days: q.Get("days") != "false", Trades: q.Get("trades") == "true"}, nil
}

// compliance answers each trading day's compliance with the caller's
// enabled rules from..to, and the breakdown of the days' results.
func (h handler) compliance(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	out, err := rulesdb.Compliance(ctx, h.app.DB, auth.CurrentUser(ctx), q, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	head, err := json.Marshal(out.Summary)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	writeCompliance(w, head, out.Days)
}

// writeCompliance writes the answer of its summary's JSON (head) and its
// days, as httpx.JSON would but a day at a time through a small buffer: a
// year of a busy journal's days is megabytes (10 MB in
// BenchmarkCompliance), and httpx.JSON's one buffer of them, grown and
// copied, cost a request more Go CPU than reading and judging its trades.
// A day encodes without error (strings, numbers, slices); a write error is
// the client gone.
func writeCompliance(w http.ResponseWriter, head []byte, days []rules.Day) {
	httpx.JSONHeader(w, http.StatusOK)
	b := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(b)
	b.Write(head[:len(head)-1]) // its closing brace
	b.WriteString(`,"days":[`)
	for i, d := range days {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(d); err != nil {
			return
		}
	}
	b.WriteString("]}\n")
	b.Flush()
}

// positionCompliance answers the compliance of a position's trade
// (rulesdb.PositionCompliance); a draft has no trade (null).
func (h handler) positionCompliance(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	t, err := rulesdb.PositionCompliance(ctx, h.app.DB, auth.CurrentUser(ctx), r.PathValue("positionId"), h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, map[string]*rulesdb.TradeCompliance{"trade": t})
}
