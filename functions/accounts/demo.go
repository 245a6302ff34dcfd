package accounts

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// demoTags are the tags the demo journal's positions carry.
var demoTags = []struct{ name, category string }{
	{"Breakout", "setup"}, {"Pullback", "setup"}, {"Opening range", "setup"},
	{"Chased entry", "mistake"}, {"Moved stop", "mistake"}, {"FOMO", "emotion"}, {"Patient", "emotion"},
}

// demoEnvelope answers POST /api/demo-journal.
type demoEnvelope struct {
	Account   Account `json:"account"`
	Positions int     `json:"positions"`
}

var errDemoLoaded = apperr.New(apperr.Conflict, "the demo journal is loaded already; remove it before loading it again")

// loadDemo loads the demo journal: an account marked demo, the demo tags
// the user lacks, three months of sample trades written through the
// journal store like any others (stocks, options, futures, a reversal, two
// open positions), and the features beyond trades (loadDemoFeatures). Its
// dates end yesterday, so the dashboard has a recent journal to show.
func (h handler) loadDemo(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	var acc Account
	tags := map[string]string{}
	err := db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		// The user's row lock keeps two loads from both finding no demo.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
			return db.Classify(err)
		}
		var loaded bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM accounts WHERE user_id = $1 AND demo)`, userID).Scan(&loaded); err != nil {
			return db.Classify(err)
		}
		if loaded {
			return errDemoLoaded
		}
		const ins = `INSERT INTO accounts (user_id, name, currency, timezone, starting_balance, balance, brokerage_id, demo)
			VALUES ($1, 'Demo account', 'USD', 'America/New_York', 25000, 25000, '00000000-0000-4000-8000-000000000002', true)
			RETURNING ` + accountColumns
		var err error
		if acc, err = scanAccount(tx.QueryRow(ctx, ins, userID)); err != nil {
			return nameTaken(err)
		}
		// As for a first account of one's own: its currency is the display one.
		if _, err := tx.Exec(ctx, `UPDATE users SET display_currency = 'USD' WHERE id = $1 AND display_currency IS NULL`, userID); err != nil {
			return db.Classify(err)
		}
		for _, t := range demoTags {
			const tagQ = `WITH n AS (INSERT INTO tags (user_id, name, category, demo) VALUES ($1, $2, $3, true)
					ON CONFLICT (user_id, lower(name)) DO NOTHING RETURNING id)
				SELECT id::text FROM n UNION ALL SELECT id::text FROM tags WHERE user_id = $1 AND lower(name) = lower($2) LIMIT 1`
			var id string
			if err := tx.QueryRow(ctx, tagQ, userID, t.name, t.category).Scan(&id); err != nil {
				return db.Classify(err)
			}
			tags[t.name] = id
		}
		return nil
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	days := demoDays(h.app.Now())
	positions := demoPositions(days, acc.ID, tags)
	ids, err := h.journal.CreatePositions(ctx, userID, positions)
	if err == nil {
		err = h.loadDemoFeatures(ctx, userID, acc.ID, days, positions, ids, tags)
	}
	if err != nil {
		// Nothing of the demo stays half-loaded.
		if rerr := h.deleteDemo(r, userID); rerr != nil {
			httpx.Logger(ctx).Warn("demo journal: clean-up after a failed load", "err", rerr)
		}
		httpx.Error(w, r, err)
		return
	}
	if acc, err = accountByID(ctx, h.app.DB, userID, acc.ID, false); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, demoEnvelope{Account: acc, Positions: len(ids)})
}

// removeDemo removes the demo journal: the demo account with everything in
// it (positions, fills, ledger, images, its strategy and its rule), the
// demo tags and playbook no position of another account uses, and the demo
// day entry the user has not written in. 404 when there is none.
func (h handler) removeDemo(w http.ResponseWriter, r *http.Request) {
	userID := auth.CurrentUser(r.Context()).ID
	if err := h.deleteDemo(r, userID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

func (h handler) deleteDemo(r *http.Request, userID string) error {
	ctx := r.Context()
	return db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM accounts WHERE user_id = $1 AND demo`, userID)
		if err != nil {
			return db.Classify(err)
		}
		if tag.RowsAffected() == 0 {
			return apperr.ErrNotFound
		}
		// The demo account's positions are gone: what another position
		// still uses is the user's now.
		for _, q := range []string{
			`DELETE FROM journal_days WHERE user_id = $1 AND demo`,
			`DELETE FROM tags t WHERE t.user_id = $1 AND t.demo
				AND NOT EXISTS (SELECT 1 FROM position_tags pt WHERE pt.tag_id = t.id)
				AND NOT EXISTS (SELECT 1 FROM journal_day_tags dt WHERE dt.tag_id = t.id AND dt.user_id = $1)`,
			`DELETE FROM playbooks b WHERE b.user_id = $1 AND b.demo
				AND NOT EXISTS (SELECT 1 FROM positions p WHERE p.playbook_id = b.id)`,
		} {
			if _, err := tx.Exec(ctx, q, userID); err != nil {
				return db.Classify(err)
			}
		}
		return nil
	})
}

// The demo's playbook: the opening-range setup its positions tagged so
// follow, with the checklist a trader ticks.
var (
	demoPlaybookName = "Opening range breakout"
	demoCriteria     = []string{"First 5-minute range marked before the entry", "Break on above-average volume",
		"Stop under the other side of the range", "Target at least 2R away"}
)

// loadDemoFeatures adds what the journal does beyond trades, so that a
// demo shows every screen filled: a playbook with criteria that the
// opening-range trades follow (those without a mistake tag ticked every
// criterion), an options strategy (an SPY iron condor of four legs), a
// trading rule of the demo account (one trade a day, broken on the days
// of an option or a future beside the stock trade) and a day's entry in
// the journal on the day of the reversal. The playbook, the follows and the
// strategy are the journal store's writes like any others, so the
// statistics' rows take them in. What is demo is known the plain way:
// the strategy and the rule belong to the demo account and go with it;
// the playbook and the day entry, which belong to no account, carry the
// demo flag (migrations/0039), as the demo tags do.
func (h handler) loadDemoFeatures(ctx context.Context, userID, accountID string, days []time.Time,
	positions []journalstore.NewPosition, ids []string, tags map[string]string) error {
	pb, err := h.demoPlaybook(ctx, userID)
	if err != nil {
		return err
	}
	for i, p := range positions {
		if *p.AssetType != instrument.AssetStock || p.TagIDs[0] != tags["Opening range"] {
			continue
		}
		met := pb.Criteria
		if len(p.TagIDs) > 1 && p.TagIDs[1] != tags["Patient"] { // a mistake: half the plan kept
			met = met[:len(met)/2]
		}
		follow := journalstore.PositionPlaybook{PlaybookID: &pb.ID, CriterionIDs: []string{}}
		for _, c := range met {
			follow.CriterionIDs = append(follow.CriterionIDs, c.ID)
		}
		if _, err := h.journal.SetPositionPlaybook(ctx, userID, ids[i], follow); err != nil {
			return err
		}
	}
	name := "SPY iron condor"
	if _, err := h.journal.CreateStrategy(ctx, userID, journalstore.StrategyInput{AccountID: &accountID, Name: &name,
		Legs: demoCondor(days[len(days)-20])}); err != nil {
		return err
	}
	day := days[len(days)-6] // the reversal's
	return db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		const rule = `INSERT INTO trading_rules (user_id, type, params, account_id) VALUES ($1, 'maxTradesPerDay', '{"count": 1}', $2)`
		if _, err := tx.Exec(ctx, rule, userID, accountID); err != nil {
			return db.Classify(err)
		}
		date := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		// A day the user has written about already stays theirs.
		var written bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM journal_days WHERE user_id = $1 AND day = $2)`, userID, date).Scan(&written); err != nil || written {
			return db.Classify(err)
		}
		now, mood := h.app.Now(), 4
		entry := dayjournal.Stored{Date: date, Mood: &mood, CreatedAt: now, UpdatedAt: now, Demo: true,
			Plan:   "AMD gapped up into last week's high. Long only above the morning high with the stop under VWAP; one trade, then done.",
			Review: "The long failed at the high, and I flipped short on the break of VWAP instead of standing aside. It worked, but it was not the plan.",
			Notes:  "Next time a failed breakout means flat, not a reversal: the rule is one trade a day."}
		return h.days.Write(ctx, tx, userID, entry)
	})
}

// demoPlaybook creates the demo playbook, or takes the user's own of the
// same name (it stays theirs, as a demo tag does).
func (h handler) demoPlaybook(ctx context.Context, userID string) (journalstore.Playbook, error) {
	criteria := make([]journalstore.CriterionInput, len(demoCriteria))
	for i, c := range demoCriteria {
		criteria[i].Text = c
	}
	desc := "Trade the break of the first five minutes' range **with volume**, stop on the other side of the range."
	pb, err := h.journal.CreatePlaybook(ctx, userID, journalstore.PlaybookInput{Name: &demoPlaybookName, Description: &desc,
		Criteria: &criteria, Demo: true})
	if e, ok := apperr.As(err); ok && e.Code == apperr.Conflict {
		var id string
		if err := h.app.DB.QueryRow(ctx, `SELECT id::text FROM playbooks WHERE user_id = $1 AND lower(name) = lower($2)`,
			userID, demoPlaybookName).Scan(&id); err != nil {
			return pb, db.Classify(err)
		}
		return h.journal.Playbook(ctx, userID, id)
	}
	return pb, err
}

// demoCondor is a short SPY iron condor of two contracts a leg, opened on
// day and closed three trading days later for about two thirds of its
// credit, expiring the Friday after.
func demoCondor(day time.Time) []journalstore.NewPosition {
	expiry := day.AddDate(0, 0, (int(time.Friday)-int(day.Weekday())+7)%7+7)
	at := func(d time.Time, h, m int) *string {
		s := d.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute).UTC().Format(time.RFC3339)
		return &s
	}
	closed := day.AddDate(0, 0, 3)
	if wd := closed.Weekday(); wd == time.Saturday || wd == time.Sunday {
		closed = closed.AddDate(0, 0, 2)
	}
	legs := []struct {
		right, side string
		strike      int
		open, close string
	}{
		{"P", journal.SideLong, 515, "1.10", "0.40"}, {"P", journal.SideShort, 520, "1.80", "0.60"},
		{"C", journal.SideShort, 560, "1.70", "0.50"}, {"C", journal.SideLong, 565, "0.95", "0.25"},
	}
	option, entry, exit, qty := instrument.AssetOption, journal.FillEntry, journal.FillExit, "2"
	out := make([]journalstore.NewPosition, len(legs))
	for i, l := range legs {
		symbol := fmt.Sprintf("SPY   %s%s%08d", expiry.Format("060102"), l.right, l.strike*1000)
		out[i] = journalstore.NewPosition{Symbol: &symbol, AssetType: &option, Side: &l.side, Fills: []journal.FillInput{
			{Type: &entry, Price: journal.S(l.open), Quantity: journal.S(qty), FilledAt: at(day, 10, 5)},
			{Type: &exit, Price: journal.S(l.close), Quantity: journal.S(qty), FilledAt: at(closed, 14, 30)}}}
	}
	return out
}

// demoStocks are the demo's stocks with a plausible price.
var demoStocks = []struct {
	symbol string
	price  float64
}{
	{"AAPL", 190}, {"MSFT", 410}, {"NVDA", 120}, {"AMD", 160}, {"TSLA", 240}, {"SPY", 540}, {"QQQ", 460}, {"META", 500}, {"AMZN", 185},
}

var demoNotes = []string{
	"Waited for the first 5-minute range to break on volume; took it on the retest.",
	"Entered early, before the level held. Should have waited for the close above.",
	"Clean pullback to the 20 EMA on the hourly; scaled out into strength.",
	"Stopped out on a news spike. The plan was fine; size was too big for the volatility.",
	"Gap and go. Took half at 2R and trailed the rest.",
}

// demoDays are the demo journal's trading days in New York, oldest first:
// the weekdays of the 90 days before now's date, at most 62.
func demoDays(now time.Time) []time.Time {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		ny = time.UTC
	}
	var days []time.Time // trading days, oldest first, ending yesterday
	for d := now.In(ny).AddDate(0, 0, -90); len(days) < 62; d = d.AddDate(0, 0, 1) {
		day := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, ny)
		if !day.Before(time.Date(now.In(ny).Year(), now.In(ny).Month(), now.In(ny).Day(), 0, 0, 0, 0, ny)) {
			break
		}
		if wd := day.Weekday(); wd != time.Saturday && wd != time.Sunday {
			days = append(days, day)
		}
	}
	return days
}

// demoPositions makes the demo journal's positions, the same for everyone
// (a fixed seed), dated over days (demoDays).
func demoPositions(days []time.Time, accountID string, tags map[string]string) []journalstore.NewPosition {
	rng := rand.New(rand.NewPCG(2024, 7))
	at := func(day time.Time, minutes int) string {
		return day.Add(9*time.Hour + 35*time.Minute + time.Duration(minutes)*time.Minute).UTC().Format(time.RFC3339)
	}
	money := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	fill := func(typ string, price float64, qty int, when string) journal.FillInput {
		return journal.FillInput{Type: &typ, Price: journal.S(money(price)), Quantity: journal.S(fmt.Sprint(qty)), FilledAt: &when}
	}
	str := func(s string) *string { return &s }
	stock, option, future := instrument.AssetStock, instrument.AssetOption, instrument.AssetFuture
	var out []journalstore.NewPosition

	for i, day := range days {
		s := demoStocks[rng.IntN(len(demoStocks))]
		price := s.price * (0.95 + rng.Float64()*0.1)
		side, sign := journal.SideLong, 1.0
		if rng.IntN(10) < 3 {
			side, sign = journal.SideShort, -1
		}
		risk := price * (0.004 + rng.Float64()*0.006)
		qty := 10 * (5 + rng.IntN(16))
		win := rng.IntN(100) < 55
		r := 0.4 + rng.Float64()*2.4
		if !win {
			r = -(0.3 + rng.Float64()*0.9)
		}
		start := rng.IntN(300)
		fills := []journal.FillInput{fill(journal.FillEntry, price, qty, at(day, start))}
		if rng.IntN(4) == 0 { // a scale-in
			fills = append(fills, fill(journal.FillEntry, price+sign*risk*0.3, qty/2, at(day, start+8)))
			qty += qty / 2
		}
		exit := price + sign*r*risk
		if win && rng.IntN(2) == 0 { // half at 1R, the rest at the target
			fills = append(fills, fill(journal.FillExit, price+sign*risk, qty/2, at(day, start+25)))
			fills = append(fills, fill(journal.FillExit, exit, qty-qty/2, at(day, start+30+rng.IntN(60))))
		} else {
			fills = append(fills, fill(journal.FillExit, exit, qty, at(day, start+15+rng.IntN(90))))
		}
		if i >= len(days)-2 { // the last two stay open
			fills = fills[:1]
		}
		p := journalstore.NewPosition{AccountID: &accountID, Symbol: str(s.symbol), AssetType: &stock, Side: &side,
			StopLoss: journal.S(money(price - sign*risk)), TargetPrice: journal.S(money(price + sign*2*risk)), Fills: fills}
		setup := []string{"Breakout", "Pullback", "Opening range"}[rng.IntN(3)]
		p.TagIDs = []string{tags[setup]}
		if !win && rng.IntN(2) == 0 {
			p.TagIDs = append(p.TagIDs, tags[[]string{"Chased entry", "Moved stop"}[rng.IntN(2)]], tags["FOMO"])
		} else if win && rng.IntN(3) == 0 {
			p.TagIDs = append(p.TagIDs, tags["Patient"])
		}
		if rng.IntN(4) == 0 {
			p.Notes = str(demoNotes[rng.IntN(len(demoNotes))])
		}
		out = append(out, p)
	}

	// A few SPY options, expiring the Friday after the trade.
	for k := range 6 {
		day := days[5+k*9]
		expiry := day.AddDate(0, 0, (int(time.Friday)-int(day.Weekday())+7)%7+7)
		right, strike := "C", 540+5*rng.IntN(6)
		if k%2 == 1 {
			right, strike = "P", 520+5*rng.IntN(6)
		}
		symbol := fmt.Sprintf("SPY   %s%s%08d", expiry.Format("060102"), right, strike*1000)
		premium := 1.5 + rng.Float64()*2.5
		contracts := 1 + rng.IntN(5)
		exit := premium * (0.5 + rng.Float64()*1.2)
		out = append(out, journalstore.NewPosition{AccountID: &accountID, Symbol: &symbol, AssetType: &option, Side: str(journal.SideLong),
			StopLoss: journal.S(money(premium * 0.5)), TagIDs: []string{tags["Breakout"]},
			Fills: []journal.FillInput{fill(journal.FillEntry, premium, contracts, at(day, 30)), fill(journal.FillExit, exit, contracts, at(day, 120))}})
	}

	// Micro E-mini S&P futures, the front quarterly contract of the day.
	for k := range 4 {
		day := days[10+k*12]
		quarter := ((int(day.Month())-1)/3 + 1) * 3 // the contract month: Mar, Jun, Sep, Dec
		symbol := fmt.Sprintf("MES%c%02d", "HMUZ"[quarter/3-1], day.Year()%100)
		price := 5400 + rng.Float64()*400
		side, sign := journal.SideLong, 1.0
		if k%2 == 1 {
			side, sign = journal.SideShort, -1
		}
		move := (rng.Float64()*16 - 6) * sign
		out = append(out, journalstore.NewPosition{AccountID: &accountID, Symbol: &symbol, AssetType: &future, Side: &side,
			StopLoss: journal.S(money(price - sign*6)), TagIDs: []string{tags["Opening range"]},
			Fills: []journal.FillInput{fill(journal.FillEntry, price, 2, at(day, 5)), fill(journal.FillExit, price+move, 2, at(day, 50))}})
	}

	// A reversal: long 100 AMD, a sale of 200 that closes it and opens a
	// short of 100, covered later that day.
	day := days[len(days)-6]
	out = append(out, journalstore.NewPosition{AccountID: &accountID, Symbol: str("AMD"), AssetType: &stock, Side: str(journal.SideLong),
		StopLoss: journal.S("158.50"), TagIDs: []string{tags["Pullback"]},
		Notes: str("Long failed at the morning high; flipped short on the break of VWAP."),
		Fills: []journal.FillInput{fill(journal.FillEntry, 160.20, 100, at(day, 20)), fill(journal.FillExit, 159.10, 200, at(day, 65)),
			fill(journal.FillEntry, 157.40, 100, at(day, 140))}})
	return out
}
