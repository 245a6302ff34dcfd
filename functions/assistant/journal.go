package assistant

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
	"tradejournal/shared/stats"
)

// The model is grounded in a prepared context: a compact text summary of
// the caller's own journal, built from the same statistics GET
// /api/performance shows and the positions the question most likely needs.
// Every query is filtered by the caller's user id; nothing of another user
// can reach it. Its size is bounded whatever the journal holds.
const (
	maxContextBytes   = 24 << 10
	recentPositions   = 20 // the latest closed positions, always
	mentionedPerQuery = 15 // positions of symbols the question names
	losersPerQuery    = 20 // the latest losers, when the question is about losses
	topBuckets        = 10 // symbols and tags in the statistics
	recentMonths      = 12
	notesExcerpt      = 200 // characters of a position's notes
)

// symbolWord finds ticker-like words in a question ("AAPL", "msft").
var symbolWord = regexp.MustCompile(`\b[A-Za-z]{1,5}(?:\.[A-Za-z])?\b`)

// lossWords: a question about losers gets the latest losing trades.
var lossWords = regexp.MustCompile(`(?i)\b(los(e|es|er|ers|ing|s|ses)|red|drawdown|stop(ped)?)\b`)

// journalContext renders the caller's journal for the model.
func (h *handler) journalContext(ctx context.Context, u auth.User, question string) (string, error) {
	rep, err := stats.Compute(ctx, h.app.DB, u, listquery.Filter{}, true, h.app.Now())
	if err != nil {
		return "", err
	}
	positions, err := h.relevantPositions(ctx, u.ID, question)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("The trader's journal (their own data only; amounts in the account currency):\n")
	writeStatistics(&b, rep)
	if len(positions) == 0 {
		b.WriteString("\nNo positions are recorded yet.\n")
	} else {
		b.WriteString("\nPositions (newest first):\n")
		for _, p := range positions {
			line := p.line()
			if b.Len()+len(line) > maxContextBytes {
				b.WriteString("(more positions left out for length)\n")
				break
			}
			b.WriteString(line)
		}
	}
	return truncate(b.String(), maxContextBytes), nil
}

func writeStatistics(b *strings.Builder, rep stats.Report) {
	if len(rep.ByCurrency) == 0 {
		b.WriteString("No closed positions yet, so no statistics.\n")
		return
	}
	for _, blk := range rep.ByCurrency {
		s := blk.Summary
		fmt.Fprintf(b, "\nStatistics over closed positions in %s: trades %d, wins %d, losses %d, breakevens %d, win rate %s%%, "+
			"net P&L %s, gross P&L %s, fees %s, average win %s, average loss %s, profit factor %s, expectancy %s, "+
			"average R %s over %d trades with a stop, largest win %s, largest loss %s, max drawdown %s, "+
			"longest win streak %d, longest loss streak %d.\n",
			blk.Currency, s.Trades, s.Wins, s.Losses, s.Breakevens, orNA(s.WinRate), s.NetPnl, s.GrossPnl, s.Fees,
			orNA(s.AverageWin), orNA(s.AverageLoss), orNA(s.ProfitFactor), orNA(s.Expectancy), orNA(s.AverageR), s.RTrades,
			orNA(s.LargestWin), orNA(s.LargestLoss), s.MaxDrawdown, s.LongestWinStreak, s.LongestLossStreak)

		writeList(b, "By weekday of the close", weekdays(blk.ByDay), func(w weekdayBucket) string {
			return fmt.Sprintf("%s %d trades, %d wins, %d losses, net %s", w.day, w.trades, w.wins, w.losses, w.net.StringFixed(2))
		})

		months := blk.ByMonth
		if len(months) > recentMonths {
			months = months[len(months)-recentMonths:]
		}
		writeList(b, "By month", months, func(m stats.MonthBucket) string {
			return fmt.Sprintf("%s %d trades net %s", m.Month, m.Trades, m.NetPnl)
		})

		symbols := mostTraded(blk.BySymbol, func(s stats.SymbolBucket) int64 { return s.Trades })
		writeList(b, "Most traded symbols", symbols, func(s stats.SymbolBucket) string {
			return fmt.Sprintf("%s %d trades, win rate %s%%, net %s", s.Symbol, s.Trades, orNA(s.WinRate), s.NetPnl)
		})

		if len(blk.ByTag) > 0 {
			tags := mostTraded(blk.ByTag, func(t stats.TagBucket) int64 { return t.Trades })
			writeList(b, "Tags", tags, func(t stats.TagBucket) string {
				return fmt.Sprintf("%q (%s) %d trades, win rate %s%%, net %s", truncate(t.Name, 50), t.Category, t.Trades, orNA(t.WinRate), t.NetPnl)
			})
		}
	}
}

// writeList writes one line of the statistics: "label: ", the items as
// format writes them joined by "; ", and a newline.
func writeList[T any](b *strings.Builder, label string, items []T, format func(T) string) {
	b.WriteString(label + ": ")
	for i, it := range items {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(format(it))
	}
	b.WriteString("\n")
}

// mostTraded is the topBuckets buckets with the most trades, most first
// (ties keep their order).
func mostTraded[T any](buckets []T, trades func(T) int64) []T {
	sorted := slices.Clone(buckets)
	slices.SortStableFunc(sorted, func(x, y T) int { return cmp.Compare(trades(y), trades(x)) })
	return sorted[:min(len(sorted), topBuckets)]
}

type weekdayBucket struct {
	day                  string
	trades, wins, losses int64
	net                  decimal.Decimal
}

// weekdays folds the daily buckets (dates in each account's trading-day
// zone) into Monday..Sunday, skipping days without trades.
func weekdays(days []stats.DayBucket) []weekdayBucket {
	var byDay [7]weekdayBucket
	for _, d := range days {
		t, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			continue
		}
		w := &byDay[(int(t.Weekday())+6)%7]
		w.trades += d.Trades
		w.wins += d.Wins
		w.losses += d.Losses
		if n, err := decimal.NewFromString(d.NetPnl); err == nil {
			w.net = w.net.Add(n)
		}
	}
	var out []weekdayBucket
	for i, w := range byDay {
		if w.trades == 0 {
			continue
		}
		w.day = time.Weekday((i + 1) % 7).String()
		out = append(out, w)
	}
	return out
}

func orNA(s *string) string {
	if s == nil {
		return "n/a"
	}
	return *s
}

// position is one position line of the context.
type position struct {
	ID, Symbol, Side, Status, Currency, Zone string
	OpenedAt, ClosedAt                       *time.Time
	NetPnl, Fees                             decimal.Decimal
	RMultiple                                *decimal.Decimal
	Notes                                    string
}

func (p position) line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- %s %s %s (id %s)", p.Symbol, p.Side, p.Status, p.ID)
	loc, err := time.LoadLocation(p.Zone)
	if err != nil {
		loc = time.UTC
	}
	if p.OpenedAt != nil {
		t := p.OpenedAt.In(loc)
		fmt.Fprintf(&b, ", opened %s %s", t.Format("2006-01-02 15:04"), t.Weekday().String()[:3])
	}
	if p.ClosedAt != nil {
		t := p.ClosedAt.In(loc)
		fmt.Fprintf(&b, ", closed %s %s", t.Format("2006-01-02 15:04"), t.Weekday().String()[:3])
	}
	if p.Status == journal.StatusClosed {
		fmt.Fprintf(&b, ", net %s %s, fees %s", p.NetPnl.StringFixed(2), p.Currency, p.Fees.StringFixed(2))
		if p.RMultiple != nil {
			fmt.Fprintf(&b, ", %sR", p.RMultiple.StringFixed(2))
		}
	}
	if notes := strings.Join(strings.Fields(p.Notes), " "); notes != "" {
		fmt.Fprintf(&b, ", notes: %q", notes) // cut by scanPositions
	}
	b.WriteString("\n")
	return b.String()
}

// relevantPositions returns, newest first and without repeats: the latest
// closed positions, those of symbols the question names, and the latest
// losers when the question is about losing. All of the caller's own.
func (h *handler) relevantPositions(ctx context.Context, userID, question string) ([]position, error) {
	var symbols []string
	for _, w := range symbolWord.FindAllString(question, 20) {
		symbols = append(symbols, strings.ToUpper(w))
	}
	losers := 0
	if lossWords.MatchString(question) {
		losers = losersPerQuery
	}
	// Each arm is its own bounded, indexed read; UNION drops repeats.
	const q = `SELECT ` + positionColumns + `
		FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.id IN (
			(SELECT id FROM positions WHERE user_id = $1 AND status = 'closed' ORDER BY closed_at DESC LIMIT $2)
			UNION
			(SELECT id FROM positions WHERE user_id = $1 AND symbol = ANY($3::text[]) ORDER BY opened_at DESC NULLS FIRST, id DESC LIMIT $4)
			UNION
			(SELECT id FROM positions WHERE user_id = $1 AND status = 'closed' AND net_pnl < 0 ORDER BY closed_at DESC LIMIT $5)
		) AND p.user_id = $1
		ORDER BY p.opened_at DESC NULLS FIRST, p.id DESC`
	return h.readPositions(ctx, q, userID, recentPositions, symbols, mentionedPerQuery, losers)
}

// readPositions runs q, which selects positionColumns, and opens the
// notes (cut to an excerpt).
func (h *handler) readPositions(ctx context.Context, q string, args ...any) ([]position, error) {
	rows, err := h.app.DB.Query(ctx, q, args...)
	if err != nil {
		return nil, db.Classify(err)
	}
	return h.scanPositions(rows, notesExcerpt)
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
