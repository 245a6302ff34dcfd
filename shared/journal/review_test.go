package journal_test

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

func dp(s string) *decimal.Decimal {
	d := decimal.RequireFromString(s)
	return &d
}

func str(d *decimal.Decimal) string {
	if d == nil {
		return "nil"
	}
	return d.String()
}

var t0 = time.Date(2025, 3, 3, 14, 30, 0, 0, time.UTC)

func compute(t *testing.T, tr journal.Trade) journal.Figures {
	t.Helper()
	f, err := journal.Compute(tr)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReview(t *testing.T) {
	// Long 100 at 50, stop 48, target 56, out at 53 after 2.5 hours.
	long := journal.Trade{Side: journal.SideLong, Multiplier: decimal.NewFromInt(1), StopLoss: dp("48"), Fills: []journal.Fill{
		{Type: journal.FillEntry, Price: decimal.RequireFromString("50"), Quantity: decimal.NewFromInt(100), FilledAt: t0},
		{Type: journal.FillExit, Price: decimal.RequireFromString("53"), Quantity: decimal.NewFromInt(100), FilledAt: t0.Add(150 * time.Minute)},
	}}
	r := journal.Review(long, compute(t, long), dp("56"), dp("49.25"), dp("54.5"), t0.Add(48*time.Hour))
	// Risk 2 a share (200), reward 6: 3.00. MAE 0.75 against: -75 = -0.38R
	// (0.375 rounds half away from zero). MFE 4.5: 450 = 2.25R.
	if r.Hold == nil || *r.Hold != 150*time.Minute || str(r.PlannedRR) != "3" ||
		r.MAE.Amount.String() != "-75" || str(r.MAE.R) != "-0.38" || r.MFE.Amount.String() != "450" || str(r.MFE.R) != "2.25" {
		t.Fatalf("long review %+v %s %+v %+v", r, str(r.PlannedRR), r.MAE, r.MFE)
	}

	// A short option: 2 contracts sold at 3.20, stop 4, target 1.60, still
	// open: the hold runs to now; x100 multiplier.
	short := journal.Trade{Side: journal.SideShort, Multiplier: decimal.NewFromInt(instrument.OptionMultiplier), StopLoss: dp("4"), Fills: []journal.Fill{
		{Type: journal.FillEntry, Price: decimal.RequireFromString("3.2"), Quantity: decimal.NewFromInt(2), FilledAt: t0},
	}}
	f := compute(t, short)
	r = journal.Review(short, f, dp("1.6"), dp("3.5"), dp("2.1"), t0.Add(time.Hour))
	// Risk 0.80, reward 1.60: 2.00. MAE 0.30 against x 2 x 100 = -60 of 160
	// risk: -0.38R. MFE 1.10 x 200 = 220: 1.38R (1.375).
	if *r.Hold != time.Hour || str(r.PlannedRR) != "2" || r.MAE.Amount.String() != "-60" || str(r.MAE.R) != "-0.38" ||
		r.MFE.Amount.String() != "220" || str(r.MFE.R) != "1.38" {
		t.Fatalf("short review %+v %s %+v %+v", r, str(r.PlannedRR), r.MAE, r.MFE)
	}
	// Unrealised at 2.75: (3.20 - 2.75) x 2 x 100 = 90; at 3.60: -80.
	if u, ok := journal.Unrealized(short, f, decimal.RequireFromString("2.75")); !ok || u.String() != "90" {
		t.Fatalf("unrealised short %s %v", u, ok)
	}
	if u, _ := journal.Unrealized(short, f, decimal.RequireFromString("3.6")); u.String() != "-80" {
		t.Fatalf("unrealised short at a loss %s", u)
	}

	// A stop on the wrong side gives no planned R:R; a draft no hold.
	wrong := long
	wrong.StopLoss = dp("51")
	if r := journal.Review(wrong, compute(t, wrong), dp("56"), nil, nil, t0); r.PlannedRR != nil || r.MAE != nil {
		t.Fatalf("wrong stop %+v", r)
	}
	draft := journal.Trade{Side: journal.SideLong, Multiplier: decimal.NewFromInt(1)}
	if r := journal.Review(draft, compute(t, draft), nil, dp("1"), nil, t0); r.Hold != nil || r.MAE != nil {
		t.Fatalf("draft %+v", r)
	}
}

// TestReviewQuoted: a USD/JPY lot in a dollar account prices its
// excursions in dollars at the first entry's rate, as its initial risk.
func TestReviewQuoted(t *testing.T) {
	// Long 100,000 at 150.00 (1 JPY = 0.0066 USD at the entry), stop
	// 149.00, out at 151.00 at another rate. Risk: 1.00 x 100,000 = 100,000
	// JPY = 660 USD. MAE 149.50: -0.50 x 100,000 = -50,000 JPY = -330 USD,
	// -0.5R. MFE 151.20: 120,000 JPY = 792 USD, 1.2R.
	rate := dp("0.0066")
	tr := journal.Trade{Side: journal.SideLong, Multiplier: decimal.NewFromInt(1), StopLoss: dp("149"), Quoted: true, Fills: []journal.Fill{
		{Type: journal.FillEntry, Price: decimal.RequireFromString("150"), Quantity: decimal.NewFromInt(100000), FilledAt: t0, Rate: rate},
		{Type: journal.FillExit, Price: decimal.RequireFromString("151"), Quantity: decimal.NewFromInt(100000), FilledAt: t0.Add(time.Hour), Rate: dp("0.0065")},
	}}
	f := compute(t, tr)
	r := journal.Review(tr, f, nil, dp("149.5"), dp("151.2"), t0)
	if str(f.InitialRisk) != "660" || r.MAE.Amount.String() != "-330" || str(r.MAE.R) != "-0.5" ||
		r.MFE.Amount.String() != "792" || str(r.MFE.R) != "1.2" {
		t.Fatalf("risk %s, MAE %+v %s, MFE %+v %s", str(f.InitialRisk), r.MAE, str(r.MAE.R), r.MFE, str(r.MFE.R))
	}
	// Without the entry's rate the money is in yen: no excursions yet.
	tr.Fills[0].Rate = nil
	if r := journal.Review(tr, compute(t, tr), nil, dp("149.5"), dp("151.2"), t0); r.MAE != nil || r.MFE != nil {
		t.Fatalf("no rate: %+v %+v", r.MAE, r.MFE)
	}
}

func TestUnrealizedAfterScaling(t *testing.T) {
	// Long 100 at 10, sell 50 at 12, buy 50 at 14: what is open cost
	// (50 x 10 + 50 x 14) / 100 = 12; at 13 it is up 100.
	tr := journal.Trade{Side: journal.SideLong, Multiplier: decimal.NewFromInt(1), Fills: []journal.Fill{
		{Type: journal.FillEntry, Price: decimal.NewFromInt(10), Quantity: decimal.NewFromInt(100), FilledAt: t0},
		{Type: journal.FillExit, Price: decimal.NewFromInt(12), Quantity: decimal.NewFromInt(50), FilledAt: t0.Add(time.Minute)},
		{Type: journal.FillEntry, Price: decimal.NewFromInt(14), Quantity: decimal.NewFromInt(50), FilledAt: t0.Add(2 * time.Minute)},
	}}
	f := compute(t, tr)
	if u, ok := journal.Unrealized(tr, f, decimal.NewFromInt(13)); !ok || u.String() != "100" {
		t.Fatalf("unrealised %s %v (open cost %s)", u, ok, str(f.OpenCost))
	}
	tr.Fills = append(tr.Fills, journal.Fill{Type: journal.FillExit, Price: decimal.NewFromInt(13), Quantity: decimal.NewFromInt(100), FilledAt: t0.Add(3 * time.Minute)})
	if _, ok := journal.Unrealized(tr, compute(t, tr), decimal.NewFromInt(13)); ok {
		t.Fatal("a closed position has unrealised P&L")
	}
}

// TestCheckExcursions: the excursions lie beyond every fill (low 48 and
// high 52 here): a long's MAE at or below its lowest, its MFE at or above
// its highest, a short's the other way round.
func TestCheckExcursions(t *testing.T) {
	for _, tc := range []struct {
		side                string
		low, high, mae, mfe *decimal.Decimal
		fields              []string
	}{
		{journal.SideLong, dp("48"), dp("52"), dp("47"), dp("55"), nil},
		{journal.SideLong, dp("48"), dp("52"), dp("48"), dp("52"), nil},
		{journal.SideLong, dp("50"), dp("50"), dp("50"), dp("50"), nil},
		{journal.SideLong, dp("48"), dp("52"), dp("49"), nil, []string{"maePrice"}}, // above the lowest fill
		{journal.SideLong, dp("48"), dp("52"), nil, dp("51"), []string{"mfePrice"}}, // below the highest
		{journal.SideLong, dp("48"), dp("52"), dp("51"), dp("49"), []string{"maePrice", "mfePrice"}},
		{journal.SideShort, dp("48"), dp("52"), dp("53"), dp("45"), nil},
		{journal.SideShort, dp("48"), dp("52"), dp("51"), dp("45"), []string{"maePrice"}}, // below the highest fill
		{journal.SideShort, dp("48"), dp("52"), nil, dp("48.5"), []string{"mfePrice"}},
		// A draft: only the order of the two.
		{journal.SideLong, nil, nil, dp("60"), dp("55"), []string{"mfePrice"}},
		{journal.SideShort, nil, nil, dp("60"), dp("55"), nil},
	} {
		err := journal.CheckExcursions(tc.side, tc.low, tc.high, tc.mae, tc.mfe)
		var got []string
		if e, ok := apperr.As(err); ok {
			for _, d := range e.Details {
				got = append(got, d.Field)
			}
		}
		if len(got) != len(tc.fields) || len(got) > 0 && got[0] != tc.fields[0] {
			t.Errorf("%s fills %s-%s mae %s mfe %s: %v, want %v", tc.side, str(tc.low), str(tc.high), str(tc.mae), str(tc.mfe), got, tc.fields)
		}
	}
}
