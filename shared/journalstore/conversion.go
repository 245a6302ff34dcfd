package journalstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"tradejournal/shared/db"
	"tradejournal/shared/fx"
	"tradejournal/shared/journal"
)

// convert gives every fill of the quoted runs (forex, crypto, CFDs) the
// rate that turns its quote currency into its account's, unless the
// trader or the broker's file gave one, and computes their positions'
// figures again with them (journal.Compute converts each exit at its
// fill's rate). The rate of a fill is, in order:
//   - 1 when the quote is the account's currency (EUR/USD in a dollar
//     account; a CFD in the account's currency);
//   - 1/price when the account's currency is the pair's base (USD/JPY in a
//     dollar account: the fill's own price is the rate), to 12 places;
//   - the trader's stored exchange rate of the quote into the account's
//     currency in force on the fill's UTC day, direct or inverted (fx.Spot);
//   - none: the position awaits a rate (journal.Figures.AwaitingRate).
//
// A fee charged in another coin or currency (a crypto fill's fee in the
// base, the quote or BNB) gets its rate the same way, found again on every
// write: in the quote at the fill's rate, in the base at price x rate,
// otherwise the stored rate of that asset into the account's currency on
// the fill's day; without one the position awaits a rate, as for an exit.
//
// Runs that are not quoted lose any rate a former asset type left.
func (w *writeTx) convert(ctx context.Context, runs []*run) error {
	var quoted []*run
	for _, ru := range runs {
		if ru.inst.quoted() {
			quoted = append(quoted, ru)
			continue
		}
		for k := range ru.placed {
			p := &ru.placed[k]
			for i := range p.legs {
				p.legs[i].Rate, p.rateGiven[i] = nil, false
			}
		}
	}
	if len(quoted) == 0 {
		return nil
	}
	currencies, rates, err := w.readRates(ctx, quoted)
	if err != nil {
		return err
	}
	for _, ru := range quoted {
		in := ru.inst
		account := currencies[in.accountID]
		for k := range ru.placed {
			p := &ru.placed[k]
			trade := journal.Trade{Side: p.side, Multiplier: in.multiplier, StopLoss: p.stop, Quoted: true,
				Fills: make([]journal.Fill, len(p.legs))}
			for i := range p.legs {
				l := &p.legs[i]
				if !p.rateGiven[i] {
					l.Rate = fx.FillRate(rates, in.base, in.quote, account, l.Price, l.FilledAt)
				}
				l.FeeRate = fx.FeeRate(rates, l.FeeAsset, in.base, in.quote, account, l.Rate, l.Price, l.FilledAt)
				trade.Fills[i] = l.Fill
			}
			fig, err := journal.Compute(trade)
			if err != nil {
				return err // the same fills computed without rates a moment ago
			}
			p.figures = fig
		}
	}
	return nil
}

// readRates reads the currencies of the runs' accounts and the user's
// stored rates of the pairs of their quotes, in one round trip.
func (w *writeTx) readRates(ctx context.Context, runs []*run) (map[string]string, []fx.Rate, error) {
	var accounts, quotes []string
	for _, ru := range runs {
		accounts = append(accounts, ru.inst.accountID)
		if ru.inst.quote != "" {
			quotes = append(quotes, ru.inst.quote)
		}
		for _, e := range ru.execs {
			if e.FeeAsset != "" {
				quotes = append(quotes, e.FeeAsset)
			}
		}
	}
	const q = `SELECT 'a', id::text, currency::text, NULL::date, NULL::numeric FROM accounts
			WHERE user_id = $1 AND id = ANY($2::uuid[])
		UNION ALL
		SELECT base_currency::text, quote_currency::text, NULL, effective_date, rate FROM exchange_rates
			WHERE user_id = $1 AND (base_currency::text = ANY($3::text[]) OR quote_currency::text = ANY($3::text[]))`
	rows, err := w.Query(ctx, q, w.userID, accounts, quotes)
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	currencies := map[string]string{}
	var rates []fx.Rate
	var (
		a, b  string
		c     *string
		date  *time.Time
		value decimal.NullDecimal
	)
	_, err = pgx.ForEachRow(rows, []any{&a, &b, &c, &date, &value}, func() error {
		if a == "a" && date == nil {
			currencies[b] = *c
			return nil
		}
		rates = append(rates, fx.Rate{Base: a, Quote: b, Date: *date, Value: value.Decimal})
		return nil
	})
	return currencies, rates, db.Classify(err)
}

// ConvertAwaiting derives again every run of the user's that holds a
// position awaiting a rate (journal.Figures.AwaitingRate), so an exchange
// rate just stored converts the exits it covers: the exchange-rate write
// calls it after its own commit. It returns how many positions it wrote.
func (s *Store) ConvertAwaiting(ctx context.Context, userID string) (int, error) {
	n := 0
	err := s.write(ctx, userID, func(w *writeTx) error {
		rows, err := w.Query(ctx, `SELECT id::text FROM positions WHERE user_id = $1 AND awaiting_rate ORDER BY id`, userID)
		if err != nil {
			return db.Classify(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return db.Classify(err)
		}
		done := map[string]bool{}
		var runs []*run
		for _, id := range ids {
			if done[id] {
				continue
			}
			ru, err := lockRun(ctx, w, userID, id)
			if err != nil {
				return err
			}
			for _, m := range ru.members {
				done[m.id] = true
			}
			if err := ru.derive(""); err != nil {
				return err
			}
			runs = append(runs, ru)
			n += len(ru.members)
		}
		if len(runs) == 0 {
			return nil
		}
		b := w.batch()
		if _, err := w.writeRuns(ctx, b, runs); err != nil {
			return err
		}
		return b.flush(ctx)
	})
	return n, err
}
