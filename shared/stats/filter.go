package stats

import (
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/journal"
)

// filter is a journal.Filter compiled for the records: the same rules as
// its SQL (journal.Filter.SQL), which the positions list applies; the
// statistics tests check both against one plain reading of the filter.
// Accounts and dates narrow the rows read (readClosed); the rest is here.
type filter struct {
	none      bool            // nothing can match (a status other than closed, or only unknown tags or playbooks asked for)
	symbols   map[string]bool // nil: any
	anyTags   []int32         // nil: any; else at least one of these
	noTags    []int32
	playbooks []bool          // nil: any; else by playbook index, whether taken
	kinds     map[string]bool // nil: any; else the strategies' kinds taken, and journal.NoStrategy for a position in none
	side      int8            // -1 any, 0 long, 1 short
	assets    map[string]bool
	weekdays  [8]bool // ISO 1..7
	hours     [24]bool
	byWeekday bool
	byHour    bool
}

func compile(f journal.Filter, j journalRows) filter {
	out := filter{side: -1}
	if f.Status != "" && f.Status != journal.StatusClosed {
		out.none = true
	}
	tags := func(ids []string) []int32 {
		list := []int32{}
		for _, s := range ids {
			var id pgtype.UUID
			if id.Scan(s) != nil {
				continue
			}
			if t, ok := j.tagIndex[id.Bytes]; ok {
				list = append(list, t)
			}
		}
		return list
	}
	if len(f.TagIDs) > 0 {
		if out.anyTags = tags(f.TagIDs); len(out.anyTags) == 0 {
			out.none = true
		}
	}
	out.noTags = tags(f.ExcludeTagIDs)
	if len(f.PlaybookIDs) > 0 {
		out.playbooks = make([]bool, len(j.playbooks))
		known := false
		for _, s := range f.PlaybookIDs {
			var id pgtype.UUID
			if id.Scan(s) != nil {
				continue
			}
			if k, ok := j.bookIndex[id.Bytes]; ok {
				out.playbooks[k], known = true, true
			}
		}
		if !known { // only unknown playbooks asked for
			out.none = true
		}
	}
	if len(f.Strategies) > 0 {
		out.kinds = map[string]bool{}
		for _, k := range f.Strategies {
			out.kinds[k] = true
		}
	}
	if len(f.Symbols) > 0 {
		out.symbols = map[string]bool{}
		for _, s := range f.Symbols {
			out.symbols[s] = true
		}
	}
	switch f.Side {
	case journal.SideLong:
		out.side = 0
	case journal.SideShort:
		out.side = 1
	}
	if len(f.AssetTypes) > 0 {
		out.assets = map[string]bool{}
		for _, a := range f.AssetTypes {
			out.assets[a] = true
		}
	}
	for _, d := range f.Weekdays {
		out.weekdays[d], out.byWeekday = true, true
	}
	for _, h := range f.Hours {
		out.hours[h], out.byHour = true, true
	}
	return out
}

// takes reports whether the filter keeps c, whose fields up to its
// strategy kind and its entry are read (the decoder has matched its
// symbol and underlying with the filter's symbols).
func (f *filter) takes(c *closed, fd *fold) bool {
	if f.playbooks != nil && (c.playbook < 0 || !f.playbooks[c.playbook]) {
		return false
	}
	if f.side >= 0 && c.long != (f.side == 0) {
		return false
	}
	if f.kinds != nil && !f.kinds[fd.strategyKind(c)] {
		return false
	}
	if f.assets != nil && !f.assets[fd.strings[c.assetType]] {
		return false
	}
	if f.byWeekday && !f.weekdays[isoWeekday(c.entry)] {
		return false
	}
	if f.byHour && !f.hours[hourOf(c.entry)] {
		return false
	}
	if f.anyTags == nil && len(f.noTags) == 0 {
		return true
	}
	if f.anyTags != nil && !containsAny(c.tags, f.anyTags) {
		return false
	}
	return !containsAny(c.tags, f.noTags)
}

func containsAny(have, want []int32) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

// isoWeekday is the ISO weekday (1 Monday .. 7 Sunday) of local seconds.
func isoWeekday(local int64) int {
	return int(floorMod(floorDiv(local, 86400)+3, 7)) + 1 // 1970-01-01 was a Thursday
}

// hourOf is the hour of the day of local seconds.
func hourOf(local int64) int { return int(floorMod(local, 86400) / 3600) }

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// strategyKind is c's strategy kind, journal.NoStrategy for a position.
func (fd *fold) strategyKind(c *closed) string {
	if c.strategy == 0 {
		return journal.NoStrategy
	}
	return fd.strings[c.strategy-1]
}
