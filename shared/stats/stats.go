// Package stats is the trading statistics of a journal: every figure GET
// /api/performance answers (the dashboard's tiles, calendar, breakdowns
// and equity curve), over the caller's closed positions narrowed by the
// journal's shared filter, per account currency and converted into the
// display currency. The assistant grounds its answers in the same report.
//
// There is one path: the closed positions are read in close order
// (store.go) and every figure is folded from them once (fold.go), then
// assembled and formatted (report.go). Nothing derived is stored: the
// positions' own figure columns, kept by the journal's store, are the
// only input.
package stats

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/journal"
)

// Compute is the report of u's closed positions in f. The total converts
// with the spot rates of today (now in the user's reporting zone), the
// dashboard's rates, not the rate of each close day. width (1 or 2) is how
// many connections of pool the report may use at once: with 2, an
// unfiltered report reads the tag links beside the closes, on the same
// snapshot.
func Compute(ctx context.Context, pool TxBeginner, width int, u auth.User, f journal.Filter, now time.Time) (Report, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tx, err := pool.BeginTx(ctx, readOnly)
	if err != nil {
		return Report{}, classify("begin", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo

	day := fx.Today(now, u.Timezone)
	snap, err := fxdb.Load(ctx, tx, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
	if err != nil {
		return Report{}, err
	}
	var factors map[string]decimal.Decimal
	if display != "" {
		factors, _ = fx.Factors(snap.Balances, snap.Rates, display, day)
	}
	j, err := readJournal(ctx, tx, u.ID)
	if err != nil {
		return Report{}, classify("accounts and tags", err)
	}

	type linksResult struct {
		links links
		err   error
	}
	linked := make(chan linksResult, 1)
	beside := width > 1 && len(j.tagIDs) > 0 && !narrows(f)
	if beside {
		var snapshot string
		if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
			return Report{}, classify("snapshot", err)
		}
		if !snapshotID.MatchString(snapshot) {
			return Report{}, classify("snapshot", errUnexpectedSnapshot)
		}
		go func() {
			links, err := linksOnSnapshot(ctx, pool, snapshot, j.tagIDs)
			if err != nil {
				cancel()
			}
			linked <- linksResult{links, err}
		}()
	}

	sums := make([]*sums, len(j.currencies))
	for i := range sums {
		sums[i] = newSums()
	}
	closes, err := readCloses(ctx, tx, u.ID, f, j, sums)
	var tagged links
	switch {
	case beside:
		res := <-linked
		tagged, err = res.links, firstCause(err, res.err)
	case err == nil && narrows(f):
		tagged, err = readLinks(ctx, tx, j.tagIDs, closes)
	case err == nil:
		tagged, err = readLinks(ctx, tx, j.tagIDs, nil)
	}
	if err != nil {
		return Report{}, classify("closes", err)
	}
	addTags(closes, tagged, sums)
	return build(assemble(j, sums, closes, factors, display), display, factors), nil
}

var errUnexpectedSnapshot = errors.New("unexpected snapshot id")

// firstCause prefers the error that is not a consequence of the other's
// cancellation.
func firstCause(a, b error) error {
	if a != nil && !errors.Is(a, context.Canceled) {
		return a
	}
	if b != nil {
		return b
	}
	return a
}

// addTags counts every close in each of its tags.
func addTags(closes *closeList, tagged links, sums []*sums) {
	if len(tagged) == 0 || closes.n == 0 {
		return
	}
	index := newIDIndex(closes)
	for tag, ids := range tagged {
		for i := range ids {
			if c := index.find(&ids[i]); c != nil {
				sums[c.currency].addTag(tag, c.net)
			}
		}
	}
}

// assemble walks the series and turns the sums into the report's raw
// figures: every currency with a close, and the converted total ("*")
// when every one of them has a factor into display.
func assemble(j journalRows, sums []*sums, closes *closeList, factors map[string]decimal.Decimal, display string) raw {
	r := newRaw()
	walks := make([]*walk, len(sums))
	total := display != ""
	for i, s := range sums {
		if s.trades == 0 {
			continue
		}
		cur := j.currencies[i]
		walks[i] = newWalk(s.trades, -4)
		if _, ok := factors[cur]; !ok {
			total = false
		}
		r.summary[cur] = aggRow{
			trades: s.trades, wins: s.wins, losses: s.losses,
			net: s.net.decimal(), gross: s.gross.decimal(), fees: s.fees.decimal(),
			winSum: s.winSum.decimal(), lossSum: s.lossSum.decimal(),
			hi:   decimal.NullDecimal{Decimal: s.hi.decimal(), Valid: true},
			lo:   decimal.NullDecimal{Decimal: s.lo.decimal(), Valid: true},
			rSum: s.rSum.decimal(), rCount: s.rCount,
		}
		days, months := make(map[string]bucketAgg, len(s.days)), map[string]bucketAgg{}
		for d, t := range s.days {
			date := dateOf(d)
			days[date] = t.row()
			m := months[date[:7]]
			months[date[:7]] = m.add(t.trades, t.wins, t.losses, t.net.decimal())
		}
		r.byDay[cur], r.byMonth[cur] = days, months
		symbols := make(map[string]bucketAgg, len(s.symbols))
		for k, t := range s.symbols {
			symbols[k] = t.row()
		}
		r.bySymbol[cur] = symbols
		for k, t := range s.tags {
			tg := j.tags[k]
			r.tags = append(r.tags, tagRow{currency: cur, id: tg.id, name: tg.name, category: tg.category,
				trades: t.trades, wins: t.wins, losses: t.losses, net: t.net.decimal()})
		}
	}
	// The total's values are net P&L x factor: integers in units of
	// 10^(exp-4), exp the lowest exponent of the factors.
	var totalWalk *walk
	scale := make([]*big.Int, len(sums))
	if total && closes.n > 0 {
		exp := int32(0)
		for i := range sums {
			if f, ok := factors[j.currencies[i]]; ok {
				exp = min(exp, f.Exponent())
			}
		}
		for i := range sums {
			if f, ok := factors[j.currencies[i]]; ok {
				scale[i] = f.Coefficient()
				scale[i].Mul(scale[i], new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(f.Exponent()-exp)), nil))
			}
		}
		totalWalk = newWalk(int64(closes.n), exp-4)
	}
	var v big.Int
	for i := range closes.n {
		c := closes.at(i)
		c.net.setBig(&v)
		walks[c.currency].step(c.at, &v)
		if totalWalk != nil {
			totalWalk.step(c.at, v.Mul(&v, scale[c.currency]))
		}
	}
	for i, w := range walks {
		if w != nil {
			r.series[j.currencies[i]] = w.stats()
		}
	}
	if totalWalk != nil {
		r.series[totalSeries] = totalWalk.stats()
	} else {
		r.series[totalSeries] = seriesStats{}
	}
	return r
}

func (t *tally) row() bucketAgg {
	return bucketAgg{trades: t.trades, wins: t.wins, losses: t.losses, net: t.net.decimal()}
}
