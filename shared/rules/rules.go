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
//   - A rule applies to a day with a position opened or closed in its
//     scope: every account or its one account, and with a tag scope only
//     the positions carrying the tag (a strategy carries its legs' tags).
//   - Each rule has a weight: critical 3, important 2 (the default, and
//     every rule's before weights existed), nice to have 1.
//   - The day's score is the weighted share of the rules that apply and
//     could be judged that were kept: the kept rules' weights over the
//     judged rules' weights, as a whole percent rounded down (100 only
//     when every rule was kept); no such rule leaves it null. With equal
//     weights it is the plain share of rules kept.
//   - A trade's score (TradeScores) is the same over the rules in its
//     scope: a rule is broken by the trade when one of its violations
//     names the trade (on any day), skipped when it could not be judged on
//     the trade's opening day, and kept otherwise (a loss rule judges an
//     open trade when it closes: kept so far).
package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"tradejournal/shared/instrument"
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
	// MaxWeeklyLoss: amount, the most the closes of a trading week (Monday
	// to Sunday on the account zone's calendar) may lose together; a day
	// breaks it with the first of its closes that leaves the week's sum
	// beyond the limit.
	MaxWeeklyLoss Type = "maxWeeklyLoss"
	// MaxOpenExposure: notional (entry value: price times quantity times
	// multiplier of the entries made so far) and/or risk (the open
	// positions' initial risk), the most the positions open at one moment
	// may hold together; judged at each entry, a position counting from
	// each entry until its close. A position's partial exit lowers it by
	// its share of the quantity then open (a strategy's legs' exits do not:
	// it counts until its close).
	MaxOpenExposure Type = "maxOpenExposure"
	// RequiredFields: fields, the list of what every position opened
	// records: stop, target, notes, tag (at least one), screenshot. One
	// rule with a list rather than a rule a field: one line on the rules
	// screen, and a trade missing two fields breaks it once. A strategy's
	// stop is its defined risk, its target its defined max profit, and its
	// notes, tags and screenshots any leg's.
	RequiredFields Type = "requiredFields"
	// AllowedMarkets: assetTypes and/or symbols; every position opened is
	// of a listed asset type and of a listed symbol (an option's or a
	// strategy's underlying), each list narrowing.
	AllowedMarkets Type = "allowedMarkets"
	// AllowedDirection: side, long or short, the only direction of the
	// positions opened (a strategy's: opened for a debit is long).
	AllowedDirection Type = "allowedDirection"
	// CooldownAfterLoss: minutes; no entry within that many minutes after
	// a losing close (an entry exactly that many minutes after keeps it),
	// the close on any day.
	CooldownAfterLoss Type = "cooldownAfterLoss"
)

// Weight is a rule's importance in the scores.
type Weight int

// The weights, and the default of a rule stored without one.
const (
	NiceToHave    Weight = 1
	Important     Weight = 2
	Critical      Weight = 3
	DefaultWeight        = Important
)

// weightNames are the weights as the API writes them.
var weightNames = map[Weight]string{NiceToHave: "niceToHave", Important: "important", Critical: "critical"}

// String is the weight as the API writes it.
func (w Weight) String() string { return weightNames[w] }

// MarshalText writes the weight's API name.
func (w Weight) MarshalText() ([]byte, error) {
	if _, ok := weightNames[w]; !ok {
		return nil, fmt.Errorf("rules: weight %d", int(w))
	}
	return []byte(w.String()), nil
}

// UnmarshalText reads a weight's API name.
func (w *Weight) UnmarshalText(b []byte) error {
	v, ok := ParseWeight(string(b))
	if !ok {
		return fmt.Errorf("rules: weight %q is not critical, important or niceToHave", b)
	}
	*w = v
	return nil
}

// ParseWeight reads a weight's API name.
func ParseWeight(s string) (Weight, bool) {
	for w, n := range weightNames {
		if n == s {
			return w, true
		}
	}
	return 0, false
}

// RequiredFieldNames are the fields a RequiredFields rule may list.
var RequiredFieldNames = []string{"stop", "target", "notes", "tag", "screenshot"}

// Types lists every rule type, in the order the web app offers them.
var Types = []Type{MaxTradesPerDay, MaxDailyLoss, MaxRiskPerTrade, StopRequired, MaxConsecutiveLosses,
	AllowedHours, MaxPositionSize, NoTradingDays, MinPlannedRR, MaxWeeklyLoss, MaxOpenExposure, RequiredFields,
	AllowedMarkets, AllowedDirection, CooldownAfterLoss}

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
	Risk     *decimal.Decimal `json:"risk,omitempty"`
	Fields   []string         `json:"fields,omitempty"`
	// AssetTypes are instrument.AssetTypes; Symbols upper case.
	AssetTypes []string `json:"assetTypes,omitempty"`
	Symbols    []string `json:"symbols,omitempty"`
	Side       string   `json:"side,omitempty"`
	Minutes    int      `json:"minutes,omitempty"`
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
	MaxWeeklyLoss:        {required: []string{"amount"}},
	MaxOpenExposure:      {anyOf: []string{"notional", "risk"}},
	RequiredFields:       {required: []string{"fields"}},
	AllowedMarkets:       {anyOf: []string{"assetTypes", "symbols"}},
	AllowedDirection:     {required: []string{"side"}},
	CooldownAfterLoss:    {required: []string{"minutes"}},
}

// MaxCount bounds the count parameters, MaxMinutes a cooldown (a day),
// MaxSymbols a list of symbols.
const (
	MaxCount   = 1000
	MaxMinutes = 1440
	MaxSymbols = 100
)

var (
	ratioRule = journal.DecimalRule{MinOpen: true, Max: decimal.NewFromInt(1000), Places: 4, Message: "must be greater than 0 and at most 1000"}
	symbol    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9./:_ -]{0,31}$`)
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
		case "amount", "notional", "risk":
			if d, ok := decimalField(&p, field, v, journal.AmountRule); ok {
				*pick(&out, name) = &d
			}
		case "minutes":
			n, err := strconv.Atoi(string(bytes.TrimSpace(v)))
			if err != nil || n < 1 || n > MaxMinutes {
				p.Add(field, fmt.Sprintf("must be a whole number of minutes from 1 to %d", MaxMinutes))
				continue
			}
			out.Minutes = n
		case "side":
			if json.Unmarshal(v, &out.Side) != nil || out.Side != "long" && out.Side != "short" {
				p.Add(field, "must be long or short")
			}
		case "fields":
			out.Fields = list(&p, field, v, len(RequiredFieldNames), func(s string) bool { return slices.Contains(RequiredFieldNames, s) },
				"must list one or more of "+strings.Join(RequiredFieldNames, ", "))
		case "assetTypes":
			out.AssetTypes = list(&p, field, v, len(instrument.AssetTypes), instrument.ValidAssetType,
				"must list one or more of "+instrument.AssetTypesText)
		case "symbols":
			out.Symbols = list(&p, field, v, MaxSymbols, symbol.MatchString,
				fmt.Sprintf("must list 1 to %d symbols, like \"AAPL\"", MaxSymbols))
			for i, s := range out.Symbols {
				out.Symbols[i] = strings.ToUpper(s)
			}
			slices.Sort(out.Symbols)
			out.Symbols = slices.Compact(out.Symbols)
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
			if json.Unmarshal(v, &c) != nil || !journal.ValidClock(c) {
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
	switch name {
	case "amount":
		return &p.Amount
	case "risk":
		return &p.Risk
	}
	return &p.Notional
}

// list reads a list of 1 to most strings, each one ok, without repeats
// (in the order given); a problem is message.
func list(p *journal.Problems, field string, v json.RawMessage, most int, ok func(string) bool, message string) []string {
	var items []string
	if json.Unmarshal(v, &items) != nil || len(items) == 0 || len(items) > most || !allOf(items, ok) {
		p.Add(field, message)
		return nil
	}
	out := make([]string, 0, len(items))
	for _, s := range items {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func allOf(items []string, ok func(string) bool) bool {
	for _, s := range items {
		if !ok(s) {
			return false
		}
	}
	return true
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
