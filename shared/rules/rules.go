// Package rules is the trading rules a user sets and their evaluation: the
// rule types with typed, validated parameters, and the compliance of each
// trading day (Evaluate). Pure functions of values: no clock, no database,
// no HTTP. The route group functions/rules stores the rules; the journal
// store reads the trades they judge (journalstore.RuleTrades: a strategy
// one trade); shared/stats gives the figures of the days.
//
// The decisions every rule shares:
//   - A position belongs to the trading day of its first entry fill in its
//     account's trading-day zone (a "trade" of that day), and to the day of
//     its close there (the dashboard calendar's byDay dates a close the
//     same way). Every rule but the daily loss judges the positions opened
//     on the day; the daily loss judges the positions closed on it.
//   - A rule applies to a day with a position opened or closed in its
//     scope (every account, or its one account).
//   - Money limits are in the rule's account's currency when the rule is
//     limited to one account, and otherwise in the user's display
//     currency, each position's amount converted with the factors of the
//     statistics' total (fx.Factors: the spot rates of today). Without a
//     display currency, or without a rate, such a rule is skipped for the
//     day, with the reason.
//   - The day's score is the share of the rules that apply and could be
//     judged that were kept, as a whole percent rounded down (100 only when
//     every rule was kept); no such rule leaves it null.
package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/shopspring/decimal"

	"tradejournal/shared/journal"
)

// Type names a kind of rule.
type Type string

// The rule types and their parameters (Params):
const (
	// MaxTradesPerDay: count, the most positions opened on a day.
	MaxTradesPerDay Type = "maxTradesPerDay"
	// MaxDailyLoss: amount, the most the day's closes may lose together.
	MaxDailyLoss Type = "maxDailyLoss"
	// MaxRiskPerTrade: amount (money) and/or percent (of the account's
	// balance at the start of the trading day of the position's first
	// entry), the most a
	// position's initial risk (entry to stop, times quantity) may be.
	MaxRiskPerTrade Type = "maxRiskPerTrade"
	// StopRequired: no parameter; every position opened has a stop loss.
	StopRequired Type = "stopRequired"
	// MaxConsecutiveLosses: count; after count losing closes in a row on
	// one day, no further entry that day.
	MaxConsecutiveLosses Type = "maxConsecutiveLosses"
	// AllowedHours: from and to ("HH:MM", from before to); every entry
	// fill at or after from and before to on the account zone's clock.
	AllowedHours Type = "allowedHours"
	// MaxPositionSize: quantity and/or notional (money: entry price times
	// quantity times multiplier, summed over the entry fills).
	MaxPositionSize Type = "maxPositionSize"
	// NoTradingDays: weekdays (ISO, 1 Monday to 7 Sunday) without new
	// positions.
	NoTradingDays Type = "noTradingDays"
	// MinPlannedRR: ratio, the least planned reward to risk: |target -
	// entry| / |entry - stop| with the first entry fill's price.
	MinPlannedRR Type = "minPlannedRR"
)

// Types lists every rule type, in the order the web app offers them.
var Types = []Type{MaxTradesPerDay, MaxDailyLoss, MaxRiskPerTrade, StopRequired, MaxConsecutiveLosses,
	AllowedHours, MaxPositionSize, NoTradingDays, MinPlannedRR}

// Params are a rule's parameters; each type uses the fields its doc names
// and no other. Money and ratios are decimals written as JSON strings.
type Params struct {
	Count    int              `json:"count,omitempty"`
	Amount   *decimal.Decimal `json:"amount,omitempty"`
	Percent  *decimal.Decimal `json:"percent,omitempty"`
	Quantity *decimal.Decimal `json:"quantity,omitempty"`
	Notional *decimal.Decimal `json:"notional,omitempty"`
	Ratio    *decimal.Decimal `json:"ratio,omitempty"`
	From     string           `json:"from,omitempty"`
	To       string           `json:"to,omitempty"`
	Weekdays []int            `json:"weekdays,omitempty"`
}

// spec is what one type's parameters must hold: every field of required,
// at least one of anyOf.
type spec struct{ required, anyOf []string }

var specs = map[Type]spec{
	MaxTradesPerDay:      {required: []string{"count"}},
	MaxDailyLoss:         {required: []string{"amount"}},
	MaxRiskPerTrade:      {anyOf: []string{"amount", "percent"}},
	StopRequired:         {},
	MaxConsecutiveLosses: {required: []string{"count"}},
	AllowedHours:         {required: []string{"from", "to"}},
	MaxPositionSize:      {anyOf: []string{"quantity", "notional"}},
	NoTradingDays:        {required: []string{"weekdays"}},
	MinPlannedRR:         {required: []string{"ratio"}},
}

// MaxCount bounds the count parameters.
const MaxCount = 1000

var (
	ratioRule = journal.DecimalRule{MinOpen: true, Max: decimal.NewFromInt(1000), Places: 4, Message: "must be greater than 0 and at most 1000"}
	clock     = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)
)

// ValidType reports whether t is a rule type.
func ValidType(t string) bool { _, ok := specs[Type(t)]; return ok }

// ParseParams reads and checks the parameters of a rule of type t from a
// JSON object (null or absent: none). Problems name the field as
// "params.<name>".
func ParseParams(t Type, raw json.RawMessage) (Params, error) {
	var p journal.Problems
	s, ok := specs[t]
	if !ok {
		p.Add("type", "must be one of "+typeList())
		return Params{}, p.Err()
	}
	fields := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &fields); err != nil {
			p.Add("params", "must be an object")
			return Params{}, p.Err()
		}
	}
	allowed := append(slices.Clone(s.required), s.anyOf...)
	var out Params
	for _, name := range sortedKeys(fields) {
		v := fields[name]
		field := "params." + name
		if !slices.Contains(allowed, name) {
			p.Add(field, "is not a setting of this rule")
			continue
		}
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(fields, name)
			continue
		}
		switch name {
		case "count":
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil || n < 1 || n > MaxCount {
				p.Add(field, fmt.Sprintf("must be a whole number from 1 to %d", MaxCount))
				continue
			}
			out.Count = n
		case "amount", "notional":
			if d, ok := decimalField(&p, field, v, journal.AmountRule); ok {
				*pick(&out, name) = &d
			}
		case "percent":
			if d, ok := decimalField(&p, field, v, journal.PercentRule); ok {
				out.Percent = &d
			}
		case "quantity":
			if d, ok := decimalField(&p, field, v, journal.QuantityRule); ok {
				out.Quantity = &d
			}
		case "ratio":
			if d, ok := decimalField(&p, field, v, ratioRule); ok {
				out.Ratio = &d
			}
		case "from", "to":
			var c string
			if json.Unmarshal(v, &c) != nil || !clock.MatchString(c) {
				p.Add(field, "must be a time of day HH:MM, like \"09:30\"")
				continue
			}
			if name == "from" {
				out.From = c
			} else {
				out.To = c
			}
		case "weekdays":
			var days []int
			if json.Unmarshal(v, &days) != nil || len(days) == 0 || len(days) > 7 {
				p.Add(field, "must list weekdays from 1 (Monday) to 7 (Sunday)")
				continue
			}
			for _, d := range days {
				if d < 1 || d > 7 {
					p.Add(field, "must list weekdays from 1 (Monday) to 7 (Sunday)")
					break
				}
			}
			slices.Sort(days)
			out.Weekdays = slices.Compact(days)
		}
	}
	for _, name := range s.required {
		if _, ok := fields[name]; !ok && !p.Has("params."+name) {
			p.Add("params."+name, "is required")
		}
	}
	if len(s.anyOf) > 0 && !slices.ContainsFunc(s.anyOf, func(n string) bool { _, ok := fields[n]; return ok }) {
		p.Add("params."+s.anyOf[0], "or params."+s.anyOf[1]+" is required")
	}
	if out.From != "" && out.To != "" && out.From >= out.To {
		p.Add("params.to", "must be later than params.from")
	}
	if err := p.Err(); err != nil {
		return Params{}, err
	}
	return out, nil
}

func pick(p *Params, name string) **decimal.Decimal {
	if name == "amount" {
		return &p.Amount
	}
	return &p.Notional
}

func decimalField(p *journal.Problems, field string, v json.RawMessage, r journal.DecimalRule) (decimal.Decimal, bool) {
	var f journal.Field
	_ = f.UnmarshalJSON(bytes.TrimSpace(v)) // never fails
	return p.RequiredDecimal(field, f, r)
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func typeList() string {
	s := ""
	for i, t := range Types {
		if i > 0 {
			s += ", "
		}
		s += string(t)
	}
	return s
}
