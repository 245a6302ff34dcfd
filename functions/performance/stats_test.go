package performance_test

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"time"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
)

// TestStatisticsMatchRecomputation builds random closed positions (four
// accounts in three currencies and four zones, ties on the close time,
// breakevens, positions without an R multiple, zero to three tags, a
// playbook or none with some of its criteria ticked, closes
// across the spring's DST changes, open and draft positions that never
// count, another user's journal) and checks that every figure of the
// report, for each kind of filter and with and without a display
// currency, equals the test's own recomputation (oracle_test.go).
func TestStatisticsMatchRecomputation(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		// The last seed runs behind a transaction pooler's settings (the
		// simple protocol, which sends text unless asked otherwise).
		pooler := seed == 4
		t.Run(fmt.Sprintf("Seed%d", seed), func(t *testing.T) {
			cfg := apitest.Config(t)
			cfg.DB.TransactionPooler = pooler
			srv := apitest.StartAt(t, cfg, func() time.Time { return clock }, functions.All)
			c, uid := signUp(t, srv, "random@example.com")
			o, ouid := signUp(t, srv, "other@example.com")
			rnd := rand.New(rand.NewPCG(seed, 17))
			accounts := []string{
				account(t, srv, uid, "USD", "America/New_York"),
				account(t, srv, uid, "EUR", "Europe/Berlin"),
				account(t, srv, uid, "GBP", "Europe/London"),
				account(t, srv, uid, "USD", "Asia/Tokyo"),
			}
			var tags []string
			for i, cat := range []string{"setup", "mistake", "emotion", "setup"} {
				tags = append(tags, tag(t, srv, uid, fmt.Sprintf("Tag %c", 'D'-i), cat))
			}
			// Three playbooks (the last followed by no position), their
			// criteria inserted in reverse of their checklist order.
			var bookIDs []string
			var crits [][]string
			ctx := context.Background()
			for _, name := range []string{"Opening drive", "Fade", "Unused"} {
				var id string
				if err := srv.App.DB.QueryRow(ctx, `INSERT INTO playbooks (user_id, name) VALUES ($1, $2) RETURNING id::text`, uid, name).Scan(&id); err != nil {
					t.Fatal(err)
				}
				var ids []string
				for k := range 3 {
					var c string
					if err := srv.App.DB.QueryRow(ctx, `INSERT INTO playbook_criteria (playbook_id, sort_order, text) VALUES ($1, $2, $3) RETURNING id::text`,
						id, 2-k, fmt.Sprintf("%s %d", name, 2-k)).Scan(&c); err != nil {
						t.Fatal(err)
					}
					ids = append(ids, c)
				}
				bookIDs, crits = append(bookIDs, id), append(crits, ids)
			}
			var follows, ticks [2][]string // position ids, and their playbooks or criteria
			symbols := []string{"AAPL", "MSFT", "SPY", "SAP", "AAPL  240119C00190000"}
			n := 900 + rnd.IntN(600) // the total's curve is sampled above 1,000
			var (
				ids, accs, syms, statuses []string
				closed                    []time.Time
				nets, fees                []string
				rs                        []*string
				links                     [][2]string
				// The review's figures: average entry, initial risk, stop and
				// target, typed and measured excursions (to the close, or to an
				// earlier close: stale), which of stop and target came first.
				avgs                                    []string
				risks, stops, targets, maes, mfes, hits []*string
				barsMAEs, barsMFEs                      []*string
				measuredTo                              []*time.Time
			)
			at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range n {
				if rnd.IntN(10) > 0 { // one in ten closes ties with the one before
					at = at.Add(time.Duration(rnd.IntN(240)) * time.Minute)
				}
				net := decimalString(rnd.IntN(20001)-10000, rnd.IntN(3)*2) // -100.00..100.00, with 0, 2 or 4 places
				if rnd.IntN(12) == 0 {
					net = "0"
				}
				fee := decimalString(rnd.IntN(500), 2)
				var r *string
				if rnd.IntN(4) > 0 {
					s := decimalString(rnd.IntN(8001)-4000, 3)
					r = &s
				}
				maybe := func(odds int, v string) *string {
					if rnd.IntN(odds) == 0 {
						return nil
					}
					return &v
				}
				price := func() string { return decimalString(500+rnd.IntN(30000), 2) }
				avgs = append(avgs, price())
				risks, stops, targets = append(risks, maybe(3, decimalString(rnd.IntN(5000), 2))), append(stops, maybe(3, price())),
					append(targets, maybe(3, price()))
				maes, mfes = append(maes, maybe(2, price())), append(mfes, maybe(2, price()))
				var measured *time.Time
				var bMAE, bMFE, hit *string
				if rnd.IntN(2) == 0 {
					to := at.Add(-time.Duration(rnd.IntN(2)) * time.Hour) // stale one time in two
					measured, bMAE, bMFE = &to, maybe(5, price()), maybe(5, price())
					hit = maybe(4, []string{"target", "stop", "none"}[rnd.IntN(3)])
				}
				barsMAEs, barsMFEs, hits, measuredTo = append(barsMAEs, bMAE), append(barsMFEs, bMFE), append(hits, hit), append(measuredTo, measured)
				status := "closed"
				if i%50 == 7 {
					status = []string{"open", "draft"}[i%2]
				}
				id := newID()
				ids, accs, syms, statuses = append(ids, id), append(accs, accounts[rnd.IntN(len(accounts))]), append(syms, symbols[rnd.IntN(len(symbols))]), append(statuses, status)
				closed, nets, fees, rs = append(closed, at), append(nets, net), append(fees, fee), append(rs, r)
				for _, g := range tags {
					if rnd.IntN(4) == 0 {
						links = append(links, [2]string{id, g})
					}
				}
				if b := rnd.IntN(3); b < 2 {
					follows[0], follows[1] = append(follows[0], id), append(follows[1], bookIDs[b])
					for _, c := range crits[b] {
						if rnd.IntN(2) == 0 {
							ticks[0], ticks[1] = append(ticks[0], id), append(ticks[1], c)
						}
					}
				}
			}
			if _, err := srv.App.DB.Exec(ctx, `
				INSERT INTO positions (id, user_id, account_id, symbol, asset_type, underlying, side, status, opened_at, closed_at,
					entry_quantity, exit_quantity, net_pnl, gross_pnl, fees, r_multiple,
					avg_entry_price, multiplier, initial_risk, stop_loss, target_price, mae_price, mfe_price,
					bars_mae_price, bars_mfe_price, bars_first_hit, bars_closed_at)
				SELECT x.id, $1, x.account, x.symbol, CASE WHEN x.symbol LIKE '% %' THEN 'option' ELSE 'stock' END,
					CASE WHEN x.symbol LIKE '% %' THEN 'AAPL' END,
					CASE WHEN (get_byte(uuid_send(x.id), 15) % 3) = 0 THEN 'short' ELSE 'long' END, x.status,
					x.at - (get_byte(uuid_send(x.id), 14) * interval '7 minutes'),
					CASE WHEN x.status = 'closed' THEN x.at END, 10, 10, x.net, x.net + x.fee, x.fee, x.r,
					x.avg, CASE WHEN x.symbol LIKE '% %' THEN 100 ELSE 1 END, x.risk, x.stop, x.target, x.mae, x.mfe,
					x.bmae, x.bmfe, x.hit, x.measured
				FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::timestamptz[], $7::numeric[], $8::numeric[], $9::numeric[],
					$10::numeric[], $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[], $15::numeric[], $16::numeric[],
					$17::numeric[], $18::text[], $19::timestamptz[])
					AS x(id, account, symbol, status, at, net, fee, r, avg, risk, stop, target, mae, mfe, bmae, bmfe, hit, measured)`,
				uid, ids, accs, syms, statuses, closed, nets, fees, rs, avgs, risks, stops, targets, maes, mfes,
				barsMAEs, barsMFEs, hits, measuredTo); err != nil {
				t.Fatal(err)
			}
			for _, l := range links {
				if _, err := srv.App.DB.Exec(ctx, `INSERT INTO position_tags (position_id, tag_id) VALUES ($1, $2)`, l[0], l[1]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := srv.App.DB.Exec(ctx, `UPDATE positions p SET playbook_id = x.b FROM unnest($1::uuid[], $2::uuid[]) AS x(id, b)
				WHERE p.id = x.id`, follows[0], follows[1]); err != nil {
				t.Fatal(err)
			}
			if _, err := srv.App.DB.Exec(ctx, `INSERT INTO position_criteria (position_id, criterion_id)
				SELECT * FROM unnest($1::uuid[], $2::uuid[])`, ticks[0], ticks[1]); err != nil {
				t.Fatal(err)
			}
			// Strategies: runs of two or three AAPL positions (shares and
			// the option) of one account, some with a planned risk; a
			// strategy with an open leg is not a trade yet.
			byAccount := map[string][]string{}
			for i, id := range ids {
				if strings.HasPrefix(syms[i], "AAPL") && statuses[i] != "draft" && rnd.IntN(3) == 0 {
					byAccount[accs[i]] = append(byAccount[accs[i]], id)
				}
			}
			for _, acc := range accounts {
				for legs := byAccount[acc]; len(legs) >= 2; {
					n := min(len(legs), 2+rnd.IntN(2))
					var risk *string
					if rnd.IntN(2) == 0 {
						r := decimalString(1000+rnd.IntN(50000), 2)
						risk = &r
					}
					if _, err := srv.App.DB.Exec(ctx, `WITH s AS (INSERT INTO strategies (user_id, account_id, planned_risk)
						VALUES ($1, $2, $3) RETURNING id) UPDATE positions SET strategy_id = (SELECT id FROM s) WHERE id = ANY($4::uuid[])`,
						uid, acc, risk, legs[:n]); err != nil {
						t.Fatal(err)
					}
					legs = legs[n:]
				}
			}
			// Prop-firm plans: the first account in evaluation, the third
			// funded (the plan's content is no filter's).
			for i, phase := range map[int]string{0: "evaluation", 2: "funded"} {
				if _, err := srv.App.DB.Exec(ctx, `INSERT INTO prop_firm_plans (account_id, user_id, phase, plan) VALUES ($1, $2, $3, '{}')`,
					accounts[i], uid, phase); err != nil {
					t.Fatal(err)
				}
			}
			// Positions and strategies written straight into the tables:
			// their derived rows as the journal store keeps them.
			rebuild(t, srv, uid)
			oacc := account(t, srv, ouid, "USD", "UTC")
			position(t, srv, ouid, oacc, pos{"AAPL", "1000", "1000", "0", nil, "2024-02-01T15:00:00Z", ""})

			queries := []string{"", "?status=closed", "?status=open",
				"?accountId=" + accounts[0], "?accountId=" + accounts[3],
				"?from=2024-02-01&to=2024-02-29", "?from=2024-03-10", "?to=2024-01-15", "?from=2024-03-31&to=2024-03-31",
				"?tagId=" + tags[0], "?tagId=" + tags[3], "?symbol=aapl", "?symbol=" + url.QueryEscape("AAPL  240119C00190000"),
				"?accountId=" + accounts[1] + "&from=2024-01-15&to=2024-03-15&tagId=" + tags[1],
				"?accountId=" + accounts[2] + "&symbol=SPY&tagId=" + tags[2],
				// The combinable filters: several values, tags out, side, asset type, the entry's weekday and hour.
				"?accountId=" + accounts[0] + "," + accounts[3], "?symbol=aapl&symbol=SPY", "?tagId=" + tags[0] + "," + tags[1],
				"?excludeTagId=" + tags[0] + "&excludeTagId=" + tags[2], "?tagId=" + tags[1] + "&excludeTagId=" + tags[3],
				"?side=short", "?assetType=option", "?assetType=stock&side=long", "?weekday=1,2,3", "?weekday=6,7", "?hour=9,10,23",
				"?accountId=" + accounts[1] + "&weekday=5&side=long&excludeTagId=" + tags[0],
				"?symbol=aapl&assetType=option&hour=0,1,2,3,4,5,6,7,8,9,10,11&from=2024-01-10",
				// Playbooks: one, two with another filter, one no position follows, one that is not there.
				"?playbookId=" + bookIDs[0], "?playbookId=" + bookIDs[0] + "," + bookIDs[1] + "&side=long&tagId=" + tags[0],
				"?playbookId=" + bookIDs[2], "?playbookId=" + newID(),
				"?strategy=custom", "?strategy=none", "?strategy=custom,none&side=long", "?strategy=iron-condor",
				"?strategy=custom&from=2024-02-01&to=2024-02-29&tagId=" + tags[0],
				// Results: each alone (breakevens are one in twelve), two, with a strategy's merged net, and with other filters.
				"?result=win", "?result=loss", "?result=breakeven", "?result=win,breakeven", "?result=loss&strategy=custom",
				"?result=breakeven&status=open", "?result=win&accountId=" + accounts[1] + "&side=long&tagId=" + tags[0],
				// Prop-firm accounts and their plans' phases.
				"?propFirm=true", "?propFirm=false", "?phase=evaluation", "?phase=evaluation,funded&side=long",
				"?propFirm=true&phase=funded&strategy=custom", "?propFirm=false&phase=funded",
			}
			checkReport(t, srv, c, uid, clock, queries...)
			checkReport(t, srv, o, ouid, clock, "")

			c.Do("PUT", "/api/users/me/display-currency", map[string]any{"currency": "USD"})
			checkReport(t, srv, c, uid, clock, "") // EUR/USD and GBP/USD missing
			for _, r := range []map[string]any{
				{"baseCurrency": "EUR", "quoteCurrency": "USD", "effectiveDate": "2024-01-01", "rate": "1.0835"},
				{"baseCurrency": "USD", "quoteCurrency": "GBP", "effectiveDate": "2024-01-01", "rate": "0.7913"}, // GBP through the inverse
			} {
				if res := c.Do("POST", "/api/exchange-rates", r); res.Status != 201 {
					t.Fatalf("%d %s", res.Status, res.Body)
				}
			}
			checkReport(t, srv, c, uid, clock, queries...)
		})
	}
}

// decimalString is n / 10^places as text.
func decimalString(n, places int) string {
	s := fmt.Sprintf("%d", n)
	if places == 0 {
		return s
	}
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for len(s) <= places {
		s = "0" + s
	}
	s = s[:len(s)-places] + "." + s[len(s)-places:]
	if neg {
		s = "-" + s
	}
	return s
}

// newID is a random (version 4) UUID.
func newID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
