// Package stats is the trading statistics of a journal: every figure GET
// /api/performance answers (the dashboard's tiles, calendar, breakdowns
// and equity curve), over the caller's closed positions narrowed by the
// journal's shared filter, per account currency and converted into the
// display currency. The assistant grounds its answers in the same report.
//
// There is one path: the closed trades are read from the packed records
// the journal store keeps (record.go defines them, store.go reads them),
// every sum is folded as a trade is read and every order-dependent figure
// over the trades in close order (fold.go), then all are assembled and
// formatted (report.go).
package stats

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/expenses"
	"tradejournal/shared/fx"
	"tradejournal/shared/fx/fxdb"
	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

// Compute is the report of u's closed positions in f. The total converts
// with the spot rates of today (now in the user's reporting zone), the
// dashboard's rates, not the rate of each close day.
//
// withSymbols asks for the breakdown by symbol (every option contract its
// own row: thousands for an options trader); the breakdown by underlying
// is always there.
func Compute(ctx context.Context, pool db.TxBeginner, u auth.User, f listquery.Filter, withSymbols bool, now time.Time) (Report, error) {
	rep, _, err := compute(ctx, pool, u, f, withSymbols, false, now)
	return rep, err
}

// ComputeNetOfExpenses is Compute with the expense charges of the same
// date range and accounts beside it, converted the same way, and the
// total's net P&L after them (shared/expenses: NetReport). The trades'
// figures are Compute's, unchanged.
func ComputeNetOfExpenses(ctx context.Context, pool db.TxBeginner, u auth.User, f listquery.Filter, withSymbols bool, now time.Time) (NetReport, error) {
	rep, exp, err := compute(ctx, pool, u, f, withSymbols, true, now)
	if err != nil {
		return NetReport{}, err
	}
	return net(rep, exp), nil
}

// compute is Compute, and with withExpenses the expenses of f's range and
// accounts, read in the same snapshot and converted with the same rates.
func compute(ctx context.Context, pool db.TxBeginner, u auth.User, f listquery.Filter, withSymbols, withExpenses bool,
	now time.Time) (Report, *Expenses, error) {
	display := ""
	if u.DisplayCurrency != nil {
		display = *u.DisplayCurrency
	}
	tx, err := pool.BeginTx(ctx, db.Snapshot)
	if err != nil {
		return Report{}, nil, classify("begin", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // read-only: nothing to undo

	day := fx.Today(now, u.Timezone)
	snap, err := fxdb.Load(ctx, tx, fxdb.Query{UserID: u.ID, Display: display, Day: day, Keep: 1})
	if err != nil {
		return Report{}, nil, err
	}
	var factors map[string]decimal.Decimal
	if display != "" {
		factors, _ = fx.Factors(snap.Balances, snap.Rates, display, day)
	}
	j, err := readJournal(ctx, tx, u.ID)
	if err != nil {
		return Report{}, nil, classify("accounts and tags", err)
	}
	fd := newFold(j, compile(f, j), withSymbols)
	if err := readClosed(ctx, tx, u.ID, f, fd); err != nil {
		return Report{}, nil, classify("closes", err)
	}
	r := newRaw()
	r.playbooks, r.criteria = j.playbooks, j.criteria
	if r.series, err = walkSeries(fd, factors, display); err != nil {
		return Report{}, nil, classify("walks", err)
	}
	for i, s := range fd.sums {
		if s.all.trades > 0 {
			r.currencies[j.currencies[i]] = s.raw(j, fd.strings)
		}
	}
	rep := build(r, display, factors)
	if !withExpenses {
		return rep, nil, nil
	}
	sums, err := expenses.Sums(ctx, tx, u.ID, f.From, f.To, f.AccountIDs, false)
	if err != nil {
		return Report{}, nil, err
	}
	exp := convertExpenses(sums, snap.Rates, display, day)
	return rep, &exp, nil
}

// walkSeries walks the closes of every currency, and, converted, of the
// total ("*") when display is set and every currency with a close has a
// factor into it.
func walkSeries(fd *fold, factors map[string]decimal.Decimal, display string) (map[string]seriesStats, error) {
	j := fd.journal
	series := map[string]seriesStats{totalSeries: {}}
	counts := make([]int64, len(j.currencies))
	for it := range fd.items.all {
		counts[it.cur]++
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
	for it := range fd.items.all {
		v := wideOf(it.net)
		walks[it.cur].step(it.at, &v)
	}
	for i, w := range walks {
		if w != nil {
			series[j.currencies[i]] = w.stats()
		}
	}
	if total && fd.items.n > 0 {
		s, err := walkTotal(fd, factors)
		if err != nil {
			return nil, err
		}
		series[totalSeries] = s
	}
	return series, nil
}

// walkTotal walks every close converted: its values are net P&L x factor,
// integers in units of 10^(exp-4), exp the lowest exponent of the factors
// (wide says why they fit).
func walkTotal(fd *fold, factors map[string]decimal.Decimal) (seriesStats, error) {
	j := fd.journal
	exp := int32(0)
	for _, c := range j.currencies {
		if f, ok := factors[c]; ok {
			exp = min(exp, f.Exponent())
		}
	}
	words := make([][3]uint64, len(j.currencies))
	for i, c := range j.currencies {
		f, ok := factors[c]
		if !ok {
			continue
		}
		s := f.Coefficient()
		s.Mul(s, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(f.Exponent()-exp)), nil))
		if s.Sign() <= 0 || s.BitLen() > 160 {
			return seriesStats{}, fmt.Errorf("a factor into %s past what a rate column holds: %s", c, f)
		}
		var b [24]byte
		s.FillBytes(b[:])
		words[i] = [3]uint64{binary.BigEndian.Uint64(b[16:]), binary.BigEndian.Uint64(b[8:]), binary.BigEndian.Uint64(b[:])}
	}
	w := newWalk(int64(fd.items.n), exp-4)
	for it := range fd.items.all {
		v := it.net.mulWide(words[it.cur])
		w.step(it.at, &v)
	}
	return w.stats(), nil
}

// entry is m's tally of k, added if new.
func entry(m map[string]*tally, k string) *tally {
	t, ok := m[k]
	if !ok {
		t = &tally{}
		m[k] = t
	}
	return t
}

// raw turns one currency's sums into decimals, keyed for the report: the
// calendar's weeks, months and years added up from its days.
func (s *sums) raw(j journalRows, strs []string) *currencyRaw {
	out := &currencyRaw{
		summary: aggRow{bucketAgg: aggOf(&s.all), gross: s.gross.decimal(), fees: s.fees.decimal(),
			hi: decimal.NullDecimal{Decimal: s.hi.decimal(), Valid: true}, lo: decimal.NullDecimal{Decimal: s.lo.decimal(), Valid: true},
			rSq: s.rSq},
		tags: map[string]tag{}, rBuckets: s.rBuckets, winners: s.winners, losers: s.losers,
		mae: excursionRawOf(&s.mae), mfe: excursionRawOf(&s.mfe),
		exits: [3]exitRaw{exitRawOf(&s.exits.kept), exitRawOf(&s.exits.target), exitRawOf(&s.exits.stop)},
	}
	for k := range out.breakdowns {
		out.breakdowns[k] = map[string]bucketAgg{}
	}
	b := &out.breakdowns
	weeks, months, years := map[string]*tally{}, map[string]*tally{}, map[string]*tally{}
	for i := range s.days.t {
		t := &s.days.t[i]
		if t.trades == 0 {
			continue
		}
		d := s.days.first + int64(i)
		date := dateOf(d)
		b[kindDay][date] = bucketAgg{trades: t.trades, wins: t.wins, losses: t.losses, net: t.net.decimal()} // a day shows no more
		y, w := time.Unix(d*86400, 0).UTC().ISOWeek()
		entry(weeks, fmt.Sprintf("%04d-W%02d", y, w)).merge(t)
		entry(months, date[:7]).merge(t)
		entry(years, date[:4]).merge(t)
	}
	for kind, m := range map[int]map[string]*tally{kindWeek: weeks, kindMonth: months, kindYear: years} {
		for k, t := range m {
			b[kind][k] = aggOf(t)
		}
	}
	for kind, ts := range map[int][]tally{kindSymbol: s.symbols, kindUnderlying: s.underlyings, kindAsset: s.assets} {
		for i := range ts {
			if ts[i].trades > 0 {
				b[kind][strs[i]] = aggOf(&ts[i])
			}
		}
	}
	for k := range s.tags {
		if s.tags[k].trades > 0 {
			tg := j.tags[k]
			b[kindTag][tg.id] = aggOf(&s.tags[k])
			out.tags[tg.id] = tg
		}
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
			b[kindStrategy][strs[i]] = aggOf(&s.strategies[i])
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
