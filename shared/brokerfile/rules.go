package brokerfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// FieldStatus is an order's or a row's status; rows whose status says the
// order did not fill (cancelled, rejected, expired, ...) are skipped.
const FieldStatus = "status"

// FieldAccount is the broker account of the row, for files of several
// accounts (Options.Accounts maps its values to the user's accounts).
const FieldAccount = "account"

// notFilled are the statuses of orders that did not fill: a row whose
// status column holds one is skipped and counted when neither the preset
// nor the mapping filters that column itself.
var notFilled = []string{"cancelled", "canceled", "cancel", "rejected", "expired", "failed", "working", "pending",
	"replaced", "inactive", "open", "pending cancel", "pending new", "new", "suspended", "cancelled by system",
	"cancelled by user", "canceled by system", "canceled by user", "rejected by exchange", "unfilled"}

// Filter skips rows by the value of one column: rows whose value is not in
// Keep (when Keep is given), and rows whose value is in Skip. Values match
// ignoring case, '-', '_' and repeated spaces.
type Filter struct {
	Column Column   `json:"column"`
	Keep   []string `json:"keep,omitempty"`
	Skip   []string `json:"skip,omitempty"`
}

// Vocabulary says what a file's words mean, for the words the built-in
// vocabularies do not know (or mean otherwise in this file).
type Vocabulary struct {
	// Sides maps a side word of the file to one the importer knows: buy,
	// sell, buy to open, buy to close, sell to open, sell to close (round
	// trips: long, short).
	Sides map[string]string `json:"sides,omitempty"`
	// OpenClose maps an open/close word of the file to open, close or auto
	// (auto: the running position decides).
	OpenClose map[string]string `json:"openClose,omitempty"`
}

// maxVocabulary bounds a mapping's vocabularies and filters.
const maxVocabulary = 100

// vocab is a checked vocabulary: normalised words to side and effect.
type vocab struct {
	sides   map[string][2]string // execution: side, effect
	dirs    map[string]string    // round trip: long or short
	effects map[string]string
}

// compileVocabulary checks v: every target must be a word the importer
// knows. field prefixes the problems' field names.
func compileVocabulary(v Vocabulary, field string, bad func(field, msg string)) vocab {
	out := vocab{sides: map[string][2]string{}, dirs: map[string]string{}, effects: map[string]string{}}
	if len(v.Sides)+len(v.OpenClose) > maxVocabulary {
		bad(field, fmt.Sprintf("may hold at most %d words", maxVocabulary))
		return out
	}
	for word, target := range v.Sides {
		k := normWords(word)
		a, okSide := actions[normWords(target)]
		d, okDir := directions[normWords(target)]
		switch {
		case k == "" || len(word) > maxColumnName:
			bad(field+".sides", fmt.Sprintf("%q is not a word of the file", clip(word)))
		case !okSide && !okDir:
			bad(field+".sides."+word, "must be buy, sell, buy to open, buy to close, sell to open, sell to close, long or short")
		default:
			if okSide {
				out.sides[k] = a
			}
			if okDir {
				out.dirs[k] = d
			}
		}
	}
	for word, target := range v.OpenClose {
		k := normWords(word)
		if k == "" || len(word) > maxColumnName {
			bad(field+".openClose", fmt.Sprintf("%q is not a word of the file", clip(word)))
			continue
		}
		switch normWords(target) {
		case "open":
			out.effects[k] = EffectOpen
		case "close":
			out.effects[k] = EffectClose
		case "auto":
			out.effects[k] = ""
		default:
			bad(field+".openClose."+word, "must be open, close or auto")
		}
	}
	return out
}

// defaults are a file's default asset type and futures multiplier.
type defaults struct {
	asset      string
	multiplier *decimal.Decimal // futures whose root has no built-in point value
}

// compileDefaults checks a default asset type and multiplier.
func compileDefaults(asset, multiplier, field string, bad func(field, msg string)) defaults {
	var d defaults
	if asset != "" {
		a, _, ok := parseAssetType(asset)
		if !ok {
			bad(field+"defaultAssetType", "must be "+instrument.AssetTypesText)
		}
		d.asset = a
	}
	if multiplier != "" {
		var ps journal.Problems
		m, ok := ps.Decimal(field+"multiplier", journal.Field{Set: true, Str: multiplier}, journal.MultiplierRule)
		switch {
		case !ok:
			for _, e := range apperrDetails(ps.Err()) {
				bad(e.Field, e.Message)
			}
		case d.asset != AssetFuture && d.asset != AssetFutureOption:
			bad(field+"multiplier", "applies only with defaultAssetType future or future_option (stocks have 1, options 100)")
		default:
			d.multiplier = &m
		}
	}
	return d
}

// compileFilters checks a mapping's filters.
func compileFilters(fs []Filter, hasHeader bool, bad func(field, msg string)) []Filter {
	if len(fs) > maxVocabulary {
		bad("mapping.filters", fmt.Sprintf("may hold at most %d filters", maxVocabulary))
		return nil
	}
	out := make([]Filter, 0, len(fs))
	for i, f := range fs {
		name := fmt.Sprintf("mapping.filters[%d]", i)
		switch {
		case f.Column.Index < 0 || f.Column.Index == 0 && strings.TrimSpace(f.Column.Name) == "":
			bad(name+".column", "must be a header name or a column number from 1")
		case f.Column.Index == 0 && !hasHeader:
			bad(name+".column", "must be a column number: the file has no header row (hasHeader is false)")
		case len(f.Keep) == 0 && len(f.Skip) == 0:
			bad(name, "must give keep or skip values")
		case len(f.Keep)+len(f.Skip) > maxVocabulary:
			bad(name, fmt.Sprintf("may hold at most %d values", maxVocabulary))
		default:
			out = append(out, f)
		}
	}
	return out
}

// presetFilters turns a preset's Keep and Skip (per field) into filters on
// the field's columns.
func presetFilters(p *Preset) []Filter {
	var out []Filter
	fields := make([]string, 0, len(p.Keep)+len(p.Skip))
	for f := range p.Keep {
		fields = append(fields, f)
	}
	for f := range p.Skip {
		if !slices.Contains(fields, f) {
			fields = append(fields, f)
		}
	}
	slices.Sort(fields)
	for _, f := range fields {
		out = append(out, Filter{Column: Column{Name: "\x00" + f}, Keep: p.Keep[f], Skip: p.Skip[f]})
	}
	return out
}

// rowFilter is a filter bound to a column of the file.
type rowFilter struct {
	col        int // 0-based
	keep, skip map[string]bool
}

func wordSet(values []string) map[string]bool {
	if len(values) == 0 {
		return nil
	}
	set := make(map[string]bool, len(values))
	for _, v := range values {
		set[normWords(v)] = true
	}
	return set
}

// bindFilters binds the spec's filters to the file's columns, and adds the
// default status filter.
func (p *parser) bindFilters(index map[string]int) error {
	var problems []apperr.FieldError
	filtered := map[int]bool{}
	for i, f := range p.s.filters {
		col := -1
		switch {
		case strings.HasPrefix(f.Column.Name, "\x00"): // a preset's field
			if c, ok := p.bind[f.Column.Name[1:]]; ok {
				col = c
			}
		case f.Column.Index > 0:
			col = f.Column.Index - 1
		default:
			if c, ok := index[HeadKey(f.Column.Name)]; ok {
				col = c
			} else {
				problems = append(problems, apperr.FieldError{Field: fmt.Sprintf("mapping.filters[%d].column", i),
					Message: fmt.Sprintf("%s is not in the file's header; its header has %s", f.Column, p.headerList())})
			}
		}
		if col < 0 {
			continue
		}
		filtered[col] = true
		p.filters = append(p.filters, rowFilter{col: col, keep: wordSet(f.Keep), skip: wordSet(f.Skip)})
	}
	if col, ok := p.bind[FieldStatus]; ok && !filtered[col] {
		p.filters = append(p.filters, rowFilter{col: col, skip: wordSet(notFilled)})
	}
	return apperr.Fields(problems)
}

// filtered applies the filters to the current row.
func (p *parser) filtered() bool {
	for _, f := range p.filters {
		if f.col >= len(p.rec) {
			continue
		}
		v := normWords(p.rec[f.col])
		if f.keep != nil && !f.keep[v] || f.skip[v] {
			p.skipRow(p.columnName(f.col+1) + " " + strings.TrimSpace(p.rec[f.col]))
			return true
		}
	}
	return false
}

// skipRow counts the current row as skipped for reason.
func (p *parser) skipRow(reason string) {
	p.out.Skipped++
	p.reason[reason]++
}

// side reads a side word through the file's vocabulary, then the
// built-in one.
func (p *parser) side(s string) (side, effect string, ok bool) {
	if a, ok := p.s.vocab.sides[normWords(s)]; ok {
		return a[0], a[1], true
	}
	return parseAction(s)
}

// direction reads a round trip's side word.
func (p *parser) direction(s string) (string, bool) {
	if d, ok := p.s.vocab.dirs[normWords(s)]; ok {
		return d, true
	}
	d, ok := directions[normWords(s)]
	return d, ok
}

// effect reads an open/close word.
func (p *parser) effect(s string) (string, bool) {
	if e, ok := p.s.vocab.effects[normWords(s)]; ok {
		return e, true
	}
	return parseEffect(s)
}

func apperrDetails(err error) []apperr.FieldError {
	if e, ok := apperr.As(err); ok {
		return e.Details
	}
	return nil
}
