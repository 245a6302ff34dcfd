package brokerfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
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
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if binary(head) != "" {
		return Detection{}, false
	}
	records := map[rune][][]string{}
	best, bestScore := Detection{}, -1
	for i := range presets {
		p := &presets[i]
		d, _ := utf8.DecodeRuneInString(p.Delimiter)
		recs, ok := records[d]
		if !ok {
			recs = headRecords(head, d)
			records[d] = recs
		}
		header := presetHeader(p, recs)
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

func generic(p *Preset) bool { return p.ID == "generic-execution" || p.ID == "generic-round-trip" }

// headRecords reads the complete records of head (the last one may be cut
// by the head's end, and is dropped), at most 400.
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
			if len(r) >= 2 && headKey(r[0]) == headKey(p.Section) && headKey(r[1]) == "header" {
				return r
			}
			continue
		case !inSection:
			inSection = title(r) && headKey(r[0]) == headKey(p.Section)
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
	index := map[string]bool{}
	for _, h := range header {
		index[headKey(h)] = true
	}
	has := func(names []string, synonymsToo bool) bool {
		for _, n := range names {
			if index[headKey(n)] {
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
	matched := 0
	for _, names := range p.Columns {
		if has(names, false) {
			matched++
		}
	}
	for _, f := range p.Required {
		if !has(p.Columns[f], generic(p)) {
			return matched, false
		}
	}
	return matched, true
}
