package stats

import (
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/journal"
	"tradejournal/shared/listquery"
)

// compile makes f's in-memory match (listquery.Filter.Compile, written
// beside its SQL) for the journal read: ids become the indexes the
// records carry.
func compile(f listquery.Filter, j journalRows) listquery.Match {
	index := func(m map[[16]byte]int32) listquery.Index {
		return func(s string) (int32, bool) {
			var id pgtype.UUID
			if id.Scan(s) != nil {
				return 0, false
			}
			k, ok := m[id.Bytes]
			return k, ok
		}
	}
	m := f.Compile(index(j.accountIDs), index(j.tagIndex), index(j.bookIndex))
	if f.Status != "" && f.Status != journal.StatusClosed {
		m.None = true // the records are closed trades: none is read
	}
	return m
}

// candidate is c as the filter's match reads it (its symbol and
// underlying matched apart, by the decoder; its result only once its
// figures are read).
func (fd *fold) candidate(c *closed) listquery.Candidate {
	kind := listquery.NoStrategy
	if c.strategy > 0 {
		kind = fd.strings[c.strategy-1]
	}
	return listquery.Candidate{Account: c.account, Status: journal.StatusClosed, Day: c.day, Tags: c.tags, Playbook: c.playbook,
		Long: c.long, AssetType: fd.strings[c.assetType], Strategy: kind, Result: journal.ResultOf(c.net.sign()), Weekday: c.weekday, Hour: c.hour,
		Phase: fd.journal.accounts[c.account].phase}
}

// isoWeekday is the ISO weekday (1 Monday .. 7 Sunday) of local seconds.
func isoWeekday(local int64) int {
	return int(floorMod(floorDiv(local, 86400)+3, 7)) + 1 // 1970-01-01 was a Thursday
}

// hourOf is the hour of the day of local seconds.
func hourOf(local int64) int { return int(floorMod(local, 86400) / 3600) }

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
