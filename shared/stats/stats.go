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
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/journal"
)

// Compute is the report of u's closed positions in f. The total converts
// with the spot rates of today (now in the user's reporting zone), the
// dashboard's rates, not the rate of each close day.
//
// withSymbols asks for the breakdown by symbol (every option contract its
// own row: thousands for an options trader); the breakdown by underlying
// is always there.
func Compute(ctx context.Context, pool TxBeginner, u auth.User, f journal.Filter, withSymbols bool, now time.Time) (Report, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
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
	cs, err := readClosed(ctx, tx, u.ID, f, j)
	if cs != nil {
		defer cs.list.release()
	}
	if err != nil {
		return Report{}, classify("closes", err)
	}
	// The sums and the walks read the same closes: they fold on two
	// goroutines (the unfiltered report over 100,000 positions spends a
	// third of its time in each).
	r := newRaw()
	r.playbooks, r.criteria = j.playbooks, j.criteria
	var wg sync.WaitGroup
	wg.Go(func() { r.series = walkSeries(j, cs, factors, display) })
	sums := make([]*sums, len(j.currencies))
	for i := range sums {
		sums[i] = newSums(len(cs.strings), j, withSymbols)
	}
	for _, i := range cs.order {
		c := cs.list.at(i)
		s := sums[j.accounts[c.account].currency]
		s.add(c)
		for _, t := range cs.tagsOf(c) {
			s.addTag(int(t), c)
		}
		if c.playbook >= 0 {
			s.addPlaybook(j.playbooks, c, cs.metOf(c))
		}
	}
	for i, s := range sums {
		if s.all.trades > 0 {
			r.currencies[j.currencies[i]] = s.raw(j, cs)
		}
	}
	wg.Wait()
	return build(r, display, factors), nil
}

// walkSeries walks the closes of every currency, and, converted, of the
// total ("*") when display is set and every currency with a close has a
// factor into it.
func walkSeries(j journalRows, cs *closes, factors map[string]decimal.Decimal, display string) map[string]seriesStats {
	series := map[string]seriesStats{totalSeries: {}}
	counts := make([]int64, len(j.currencies))
	for _, i := range cs.order {
		counts[j.accounts[cs.list.at(i).account].currency]++
	}
	walks := make([]*walk, len(j.currencies))
	total := display != ""
	for i, n := range counts {
		if n == 0 {
			continue
		}
		walks[i] = newWalk(n, -4)
		if _, ok := factors[j.currencies[i]]; !ok {
			total = false
		}
	}
	// The total's values are net P&L x factor: integers in units of
	// 10^(exp-4), exp the lowest exponent of the factors.
	var totalWalk *walk
	scale := make([]*big.Int, len(j.currencies))
	if total && len(cs.order) > 0 {
		exp := int32(0)
		for i := range scale {
			if f, ok := factors[j.currencies[i]]; ok {
				exp = min(exp, f.Exponent())
			}
		}
		for i := range scale {
			if f, ok := factors[j.currencies[i]]; ok {
				scale[i] = f.Coefficient()
				scale[i].Mul(scale[i], new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(f.Exponent()-exp)), nil))
			}
		}
		totalWalk = newWalk(int64(len(cs.order)), exp-4)
	}
	var v big.Int
	for _, i := range cs.order {
		c := cs.list.at(i)
		c.net.setBig(&v)
		cur := j.accounts[c.account].currency
		walks[cur].step(c.at, &v)
		if totalWalk != nil {
			totalWalk.step(c.at, v.Mul(&v, scale[cur]))
		}
	}
	for i, w := range walks {
		if w != nil {
			series[j.currencies[i]] = w.stats()
		}
	}
	if totalWalk != nil {
		series[totalSeries] = totalWalk.stats()
	}
	return series
}

// raw turns one currency's sums into decimals, keyed for the report: the
// calendar's weeks, months and years added up from its days.
func (s *sums) raw(j journalRows, cs *closes) *currencyRaw {
	out := &currencyRaw{
		summary: aggRow{bucketAgg: aggOf(&s.all), gross: s.gross.decimal(), fees: s.fees.decimal(),
			hi: decimal.NullDecimal{Decimal: s.hi.decimal(), Valid: true}, lo: decimal.NullDecimal{Decimal: s.lo.decimal(), Valid: true},
			rSq: s.rSq},
		tags: map[string]tag{}, rBuckets: s.rBuckets, winners: s.winners, losers: s.losers,
	}
	for k := range out.breakdowns {
		out.breakdowns[k] = map[string]bucketAgg{}
	}
	b := &out.breakdowns
	weeks, months, years := map[string]*tally{}, map[string]*tally{}, map[string]*tally{}
	for d, t := range s.days {
		date := dateOf(d)
		b[kindDay][date] = bucketAgg{trades: t.trades, wins: t.wins, losses: t.losses, net: t.net.decimal()} // a day shows no more
		y, w := time.Unix(d*86400, 0).UTC().ISOWeek()
		tallyOf(weeks, fmt.Sprintf("%04d-W%02d", y, w)).merge(t)
		tallyOf(months, date[:7]).merge(t)
		tallyOf(years, date[:4]).merge(t)
	}
	for kind, m := range map[int]map[string]*tally{kindWeek: weeks, kindMonth: months, kindYear: years} {
		for k, t := range m {
			b[kind][k] = aggOf(t)
		}
	}
	for kind, ts := range map[int][]tally{kindSymbol: s.symbols, kindUnderlying: s.underlyings, kindAsset: s.assets} {
		for i := range ts {
			if ts[i].trades > 0 {
				b[kind][cs.strings[i]] = aggOf(&ts[i])
			}
		}
	}
	for k, t := range s.tags {
		tg := j.tags[k]
		b[kindTag][tg.id] = aggOf(t)
		out.tags[tg.id] = tg
	}
	for d := 1; d <= 7; d++ {
		if s.weekdays[d].trades > 0 {
			b[kindWeekday][strconv.Itoa(d)] = aggOf(&s.weekdays[d])
		}
	}
	for h := range s.hours {
		if s.hours[h].trades > 0 {
			b[kindHour][strconv.Itoa(h)] = aggOf(&s.hours[h])
		}
	}
	for i, h := range holdBuckets {
		if s.holds[i].trades > 0 {
			b[kindHold][h.key] = aggOf(&s.holds[i])
		}
	}
	none := s.all // the positions of no playbook: all but the playbooks'
	for i := range s.playbooks {
		if s.playbooks[i].trades > 0 {
			b[kindPlaybook][j.playbooks[i].id] = aggOf(&s.playbooks[i])
			none = none.less(&s.playbooks[i])
		}
	}
	if none.trades > 0 {
		b[kindPlaybook][""] = aggOf(&none)
	}
	single := s.all // the positions in no strategy: all but the strategies
	for i := range s.strategies {
		if s.strategies[i].trades > 0 {
			b[kindStrategy][cs.strings[i]] = aggOf(&s.strategies[i])
			single = single.less(&s.strategies[i])
		}
	}
	if single.trades > 0 {
		b[kindStrategy][""] = aggOf(&single)
	}
	for k, cr := range j.criteria {
		if s.met[k].trades > 0 {
			b[kindMet][cr.id] = aggOf(&s.met[k])
		}
		if s.missed[k].trades > 0 {
			b[kindMissed][cr.id] = aggOf(&s.missed[k])
		}
	}
	for i, side := range []string{journal.SideLong, journal.SideShort} {
		if s.sides[i].trades > 0 {
			b[kindSide][side] = aggOf(&s.sides[i])
		}
	}
	return out
}
