package tax

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
)

// Form8949Header is the first line of WriteForm8949CSV: the box, then
// Form 8949's columns (a) to (h).
var Form8949Header = []string{
	"Box", "Description of property (a)", "Date acquired (b)", "Date sold or disposed of (c)",
	"Proceeds (d)", "Cost or other basis (e)", "Code (f)", "Amount of adjustment (g)", "Gain or (loss) (h)",
}

// WriteForm8949CSV writes a US report's lots the way Form 8949 lists them:
// grouped by box (A to F, each box's lots in date order) with a total line
// after each box, dates as MM/DD/YYYY, amounts to the cent, the code and
// adjustment blank where there is none. Section 1256 contracts belong on
// Form 6781, not 8949: they follow as three "6781" lines (the net gain, its
// 40% short-term and 60% long-term parts).
func WriteForm8949CSV(w io.Writer, r Report) error {
	if r.Jurisdiction != US {
		return apperr.Invalid("jurisdiction", "must be us for Form 8949")
	}
	cw := csv.NewWriter(w)
	_ = cw.Write(Form8949Header)
	for _, b := range []string{"A", "B", "C", "D", "E", "F"} {
		var sum Figures
		for _, l := range r.Lots {
			if l.Box != b {
				continue
			}
			sum.add(l)
			code, adj := l.AdjustmentCode, ""
			if !l.Adjustment.IsZero() {
				adj = money(l.Adjustment)
			}
			_ = cw.Write([]string{b, l.Description, usDate(l.Acquired), usDate(l.Sold),
				money(l.Proceeds), money(l.Basis), code, adj, money(l.Gain)})
		}
		if sum.Lots == 0 {
			continue
		}
		adj := ""
		if !sum.Adjustments.IsZero() {
			adj = money(sum.Adjustments)
		}
		_ = cw.Write([]string{b, "Total box " + b, "", "", money(sum.Proceeds), money(sum.Basis), "", adj, money(sum.Gain)})
	}
	if s := r.Section1256; s != nil {
		_ = cw.Write([]string{"6781", "Section 1256 contracts, net gain or (loss)", "", "", "", "", "", "", money(s.NetGain)})
		_ = cw.Write([]string{"6781", "40% short-term (Schedule D line 4)", "", "", "", "", "", "", money(s.ShortTerm)})
		_ = cw.Write([]string{"6781", "60% long-term (Schedule D line 11)", "", "", "", "", "", "", money(s.LongTerm)})
	}
	cw.Flush()
	return cw.Error()
}

// LotsHeader is the first line of WriteLotsCSV.
var LotsHeader = []string{
	"Lot", "Account", "Instrument", "Description", "Quantity", "Acquired", "Sold", "Proceeds", "Basis",
	"Adjustment code", "Adjustment", "Gain", "Term", "Box", "Rule", "Section 1256", "Short", "Incomplete",
	"Matches", "Washed to", "Currency",
}

// WriteLotsCSV writes one line per lot of any jurisdiction, with what made
// its basis in one cell ("rule fill account date qty Q cost C", "; "
// between matches) and, for a washed loss, where the disallowed amount went.
func WriteLotsCSV(w io.Writer, r Report) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(LotsHeader)
	for _, l := range r.Lots {
		var ms, ws []string
		for _, m := range l.Matches {
			s := strings.Join(strings.Fields(fmt.Sprintf("%s %s %s %s qty %s cost %s", m.Rule, m.FillID, m.Account, m.Date, m.Quantity, money(m.Cost))), " ")
			if m.PoolQuantity != nil && m.PoolCost != nil {
				s += fmt.Sprintf(" (pool %s for %s)", m.PoolQuantity, money(*m.PoolCost))
			}
			if m.WashedFrom != "" {
				s += fmt.Sprintf(" (wash %s from %s)", money(m.WashAdjustment), m.WashedFrom)
			}
			ms = append(ms, s)
		}
		for _, t := range l.WashedTo {
			ws = append(ws, fmt.Sprintf("%s %s %s qty %s amount %s", t.FillID, t.Account, t.Date, t.Quantity, money(t.Amount)))
		}
		adj := ""
		if !l.Adjustment.IsZero() {
			adj = money(l.Adjustment)
		}
		_ = cw.Write([]string{l.ID, l.Account, l.Instrument, l.Description, l.Quantity.String(), l.Acquired, l.Sold,
			money(l.Proceeds), money(l.Basis), l.AdjustmentCode, adj, money(l.Gain), l.Term, l.Box, l.Rule,
			yes(l.Section1256), yes(l.Short), yes(l.Incomplete), strings.Join(ms, "; "), strings.Join(ws, "; "), r.Currency})
	}
	cw.Flush()
	return cw.Error()
}

// money writes an amount to the cent.
func money(d decimal.Decimal) string { return d.StringFixed(places) }

// usDate writes a report date as Form 8949 does (MM/DD/YYYY); VARIOUS
// stays.
func usDate(s string) string {
	d, err := time.Parse(dateLayout, s)
	if err != nil {
		return s
	}
	return d.Format("01/02/2006")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}
