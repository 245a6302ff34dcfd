package tax

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/instrument"
)

// describe writes what a lot of q units of t's instrument is, the way
// Form 8949's column (a) wants it: "100 sh AAPL", "2 AAPL 19 Jan 2024 190
// Call", "3 ESZ24 contracts", "1 ES Dec 2024 5000 call".
func describe(t Trade, q decimal.Decimal) string {
	n := q.String()
	switch t.AssetType {
	case instrument.AssetStock:
		return n + " sh " + t.Instrument
	case instrument.AssetOption:
		o, err := instrument.ParseOCC(t.Instrument)
		if err != nil {
			return n + " " + t.Instrument + " option"
		}
		right := "Call"
		if o.Right == "P" {
			right = "Put"
		}
		return n + " " + o.Underlying + " " + o.Expiry.Format("2 Jan 2006") + " " + o.Strike.String() + " " + right
	case instrument.AssetFuture:
		if q.Equal(decimal.NewFromInt(1)) {
			return n + " " + t.Instrument + " contract"
		}
		return n + " " + t.Instrument + " contracts"
	case instrument.AssetFutureOption:
		if o, err := instrument.ParseFutureOption(t.Instrument, time.Time{}, nil); err == nil {
			return n + " " + o.Label()
		}
		return n + " " + t.Instrument
	}
	return strings.TrimSpace(n + " " + t.Instrument)
}

// add sums a lot into f.
func (f *Figures) add(l Lot) {
	f.Lots++
	f.Proceeds = f.Proceeds.Add(l.Proceeds)
	f.Basis = f.Basis.Add(l.Basis)
	f.Adjustments = f.Adjustments.Add(l.Adjustment)
	f.Gain = f.Gain.Add(l.Gain)
}

// totals sums the period's lots the way the jurisdiction's return asks.
func totals(j Jurisdiction, lots []Lot) Totals {
	var t Totals
	for _, l := range lots {
		if !l.Section1256 {
			t.All.add(l)
		}
	}
	switch j {
	case US:
		t.ShortTerm, t.LongTerm = &Figures{}, &Figures{}
		lines := []ScheduleDLine{
			{Line: "1a", Label: "Short-term, box A, no adjustments (may go straight to Schedule D)"},
			{Line: "1b", Label: "Short-term, Form 8949 box A with adjustments"},
			{Line: "2", Label: "Short-term, Form 8949 box B"},
			{Line: "3", Label: "Short-term, Form 8949 box C"},
			{Line: "4", Label: "Short-term from Form 6781 (40% of Section 1256)"},
			{Line: "8a", Label: "Long-term, box D, no adjustments (may go straight to Schedule D)"},
			{Line: "8b", Label: "Long-term, Form 8949 box D with adjustments"},
			{Line: "9", Label: "Long-term, Form 8949 box E"},
			{Line: "10", Label: "Long-term, Form 8949 box F"},
			{Line: "11", Label: "Long-term from Form 6781 (60% of Section 1256)"},
		}
		at := func(line string) *Figures {
			for i := range lines {
				if lines[i].Line == line {
					return &lines[i].Figures
				}
			}
			return nil
		}
		for _, l := range lots {
			switch l.Term {
			case "short":
				t.ShortTerm.add(l)
			case "long":
				t.LongTerm.add(l)
			}
			line := map[string]string{"A": "1b", "B": "2", "C": "3", "D": "8b", "E": "9", "F": "10"}[l.Box]
			if l.Adjustment.IsZero() && l.Box == "A" {
				line = "1a"
			}
			if l.Adjustment.IsZero() && l.Box == "D" {
				line = "8a"
			}
			if f := at(line); f != nil {
				f.add(l)
			}
		}
		if s := section1256(lots); s != nil {
			at("4").Gain, at("11").Gain = s.ShortTerm, s.LongTerm
			at("4").Lots, at("11").Lots = s.Lots, s.Lots
		}
		t.ScheduleD = lines
	case UK:
		u := &UKTotals{}
		for _, l := range lots {
			u.Disposals++
			u.DisposalProceeds = u.DisposalProceeds.Add(l.Proceeds)
			u.AllowableCosts = u.AllowableCosts.Add(l.Basis)
			if l.Gain.IsPositive() {
				u.Gains = u.Gains.Add(l.Gain)
			} else {
				u.Losses = u.Losses.Sub(l.Gain)
			}
		}
		u.NetGain = u.Gains.Sub(u.Losses)
		t.UK = u
	}
	return t
}

// section1256 is Form 6781's summary of the period's Section 1256 lots, nil
// when there are none: 40% of the net short-term (rounded to cents), the
// rest long-term.
func section1256(lots []Lot) *Section1256 {
	s := &Section1256{Marked: []Marked{}}
	for _, l := range lots {
		if !l.Section1256 {
			continue
		}
		s.Lots++
		s.NetGain = s.NetGain.Add(l.Gain)
		if l.MarkToMarket && l.Mark != nil {
			s.Marked = append(s.Marked, Marked{Instrument: l.Instrument, Account: l.Account, Short: l.Short,
				Quantity: l.Quantity, Date: l.Sold, Mark: *l.Mark, Gain: l.Gain, Lot: l.ID})
		}
	}
	if s.Lots == 0 {
		return nil
	}
	s.ShortTerm = s.NetGain.Mul(decimal.New(4, -1)).Round(places)
	s.LongTerm = s.NetGain.Sub(s.ShortTerm)
	return s
}
