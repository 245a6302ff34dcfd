package brokerfile

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// DetectBytes is how much of a file Detect reads: the head that holds the
// header (or a statement's tables before the trade table).
const DetectBytes = 64 << 10

// Detection is the preset whose layout a file's head matches best.
type Detection struct {
	PresetID string `json:"presetId"`
	// Matched counts the preset's fields found in the header.
	Matched int `json:"matched"`
}

// Detect picks the preset whose header signature matches the head of a
// file best: every required column present (or, for a statement, its
// table's title line followed by such a header), then the most of its
// columns named outright. The generic presets count a column found under
// a synonym as well, and lose ties. ok is false when no preset fits.
func Detect(head []byte) (Detection, bool) {
	recordsOf, ok := textHead(head)
	if !ok {
		return Detection{}, false
	}
	best, bestScore := Detection{}, -1
	for i := range presets {
		p := &presets[i]
		header := presetHeader(p, recordsOf(p))
		if header == nil {
			continue
		}
		matched, ok := signature(p, header)
		if !ok {
			continue
		}
		score := matched * 4
		if p.Section != "" {
			score += 8 // the title line is a strong mark
		}
		if generic(p) {
			score-- // a broker's own preset wins a tie
		}
		if score > bestScore {
			best, bestScore = Detection{PresetID: p.ID, Matched: matched}, score
		}
	}
	return best, bestScore >= 0
}

// textHead reads a file's head (its byte-order mark aside) as records, once
// per delimiter a preset asks for; ok is false for a file that is not text.
func textHead(head []byte) (recordsOf func(p *Preset) [][]string, ok bool) {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if binary(head) != "" {
		return nil, false
	}
	records := map[rune][][]string{}
	return func(p *Preset) [][]string {
		d, _ := utf8.DecodeRuneInString(p.Delimiter)
		recs, ok := records[d]
		if !ok {
			recs = headRecords(head, d)
			records[d] = recs
		}
		return recs
	}, true
}

func generic(p *Preset) bool { return p.ID == "generic-execution" || p.ID == "generic-round-trip" }

// headRecords reads the complete records of head (the last one may be cut
// by the head's end, and is dropped), at most 400; a record wrapped whole
// in quotes is unwrapped (unwrap).
func headRecords(head []byte, delim rune) [][]string {
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && len(head) == DetectBytes {
		head = head[:i+1]
	}
	cr := csv.NewReader(bytes.NewReader(head))
	cr.Comma, cr.FieldsPerRecord, cr.LazyQuotes = delim, -1, true
	var out [][]string
	for len(out) < 400 {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			continue
		}
		if inner, ok, _ := unwrap(rec, delim); ok {
			rec = inner
		}
		out = append(out, rec)
	}
	return out
}

// presetHeader finds the record Parse would take for p's header: the first
// non-blank record, or the first after p's section title.
func presetHeader(p *Preset, recs [][]string) []string {
	inSection := p.Section == ""
	looked := 0
	for _, r := range recs {
		switch {
		case blank(r):
			continue
		case p.SectionColumn:
			if len(r) >= 2 && HeadKey(r[0]) == HeadKey(p.Section) && HeadKey(r[1]) == "header" {
				return r
			}
			continue
		case !inSection:
			inSection = title(r) && HeadKey(r[0]) == HeadKey(p.Section)
			continue
		case p.Section == "" && !p.headerOK(r):
			if looked++; looked < p.headerLines() {
				continue
			}
			return nil
		}
		return r
	}
	return nil
}

// signature counts p's fields named in header, and reports whether every
// required one is.
func signature(p *Preset, header []string) (int, bool) {
	matched, missing := columnsOf(p, header)
	return matched, len(missing) == 0
}

// columnsOf counts the preset's fields named outright in header, and
// lists the required fields header lacks (by the preset's first name for
// each; the generic presets take a synonym as well).
func columnsOf(p *Preset, header []string) (matched int, missing []string) {
	index := map[string]bool{}
	for k := range headerIndex(header) {
		index[k] = true
	}
	has := func(names []string, synonymsToo bool) bool {
		for _, n := range names {
			if index[HeadKey(n)] {
				return true
			}
			if synonymsToo {
				for _, k := range synonymsOf(n) {
					if index[k] {
						return true
					}
				}
			}
		}
		return false
	}
	for _, names := range p.Columns {
		if has(names, false) {
			matched++
		}
	}
	for _, f := range p.Required {
		if names := p.Columns[f]; !has(names, generic(p)) && len(names) > 0 {
			missing = append(missing, names[0])
		}
	}
	return matched, missing
}

// Near is a preset a file's header came close to, and the columns it
// lacks for it.
type Near struct {
	Name    string
	Missing []string
}

// Closest names the presets (at most n) whose columns a file's head,
// which no preset fits (Detect), comes nearest: the fewest required
// columns missing from its first line, then the most named. A preset of
// a statement whose section title is not there is not near.
func Closest(head []byte, n int) []Near {
	recordsOf, ok := textHead(head)
	if !ok {
		return nil
	}
	type near struct {
		Near
		matched int
	}
	var all []near
	for i := range presets {
		p := &presets[i]
		if p.Section != "" {
			continue
		}
		recs := recordsOf(p)
		k := slices.IndexFunc(recs, func(r []string) bool { return !blank(r) })
		if k < 0 {
			return nil
		}
		matched, missing := columnsOf(p, recs[k])
		if matched > 0 {
			all = append(all, near{Near{p.Name, missing}, matched})
		}
	}
	slices.SortStableFunc(all, func(a, b near) int {
		return cmp.Or(cmp.Compare(len(a.Missing), len(b.Missing)), cmp.Compare(b.matched, a.matched))
	})
	out := make([]Near, 0, n)
	for _, a := range all[:min(n, len(all))] {
		out = append(out, a.Near)
	}
	return out
}

// Undetected is what to tell of a file no preset fits when the trader
// chose none: the presets it came closest to and the columns each lacks.
func Undetected(head []byte) string {
	const next = "choose the preset of your broker's export, or map the columns yourself"
	near := Closest(head, 2)
	if len(near) == 0 {
		return "no preset recognises this file's first line as a header; " + next
	}
	parts := make([]string, len(near))
	for i, n := range near {
		parts[i] = n.Name
		switch len(n.Missing) {
		case 0:
		case 1:
			parts[i] += " (it has no " + n.Missing[0] + " column)"
		default:
			parts[i] += " (it has no " + strings.Join(n.Missing, ", ") + " columns)"
		}
	}
	return "no preset recognises this file's header; the closest are " + strings.Join(parts, " and ") + "; " + next
}
