package performance

import (
	"encoding/json"
	"strconv"
	"time"
)

// MarshalJSON writes a block as encoding/json would (TestBlockJSON holds
// them byte for byte equal), without reflection over its tens of
// thousands of buckets: reflection was a fifth of a report's CPU time in Go.
func (b Block) MarshalJSON() ([]byte, error) {
	summary, err := json.Marshal(b.Summary)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 64+len(summary)+100*(len(b.ByDay)+len(b.ByMonth)+len(b.BySymbol)+len(b.ByTag)+len(b.EquityCurve)))
	out = append(out, `{"currency":`...)
	out = appendString(out, b.Currency)
	out = append(out, `,"summary":`...)
	out = append(out, summary...)
	out = append(out, `,"byDay":[`...)
	for i, d := range b.ByDay {
		out = appendSep(out, i, `{"date":`)
		out = appendString(out, d.Date)
		out = appendBucket(out, d.Bucket)
	}
	out = append(out, `],"byMonth":[`...)
	for i, m := range b.ByMonth {
		out = appendSep(out, i, `{"month":`)
		out = appendString(out, m.Month)
		out = appendBucket(out, m.Bucket)
	}
	out = append(out, `],"bySymbol":[`...)
	for i, s := range b.BySymbol {
		out = appendSep(out, i, `{"symbol":`)
		out = appendString(out, s.Symbol)
		out = appendBucket(out, s.Bucket)
	}
	out = append(out, `],"byTag":[`...)
	for i, t := range b.ByTag {
		out = appendSep(out, i, `{"tagId":`)
		out = appendString(out, t.TagID)
		out = append(out, `,"name":`...)
		out = appendString(out, t.Name)
		out = append(out, `,"category":`...)
		out = appendString(out, t.Category)
		out = appendBucket(out, t.Bucket)
	}
	out = append(out, `],"equityCurve":[`...)
	for i, p := range b.EquityCurve {
		out = appendSep(out, i, `{"closedAt":"`)
		out = p.ClosedAt.AppendFormat(out, time.RFC3339Nano)
		out = append(out, `","cumulativeNetPnl":`...)
		out = appendString(out, p.CumulativeNetPnl)
		out = append(out, '}')
	}
	return append(out, "]}"...), nil
}

// appendSep starts the i-th element of an array with open.
func appendSep(out []byte, i int, open string) []byte {
	if i > 0 {
		out = append(out, ',')
	}
	return append(out, open...)
}

// appendBucket writes a bucket's fields and closes its object.
func appendBucket(out []byte, b Bucket) []byte {
	out = append(out, `,"trades":`...)
	out = strconv.AppendInt(out, b.Trades, 10)
	out = append(out, `,"wins":`...)
	out = strconv.AppendInt(out, b.Wins, 10)
	out = append(out, `,"losses":`...)
	out = strconv.AppendInt(out, b.Losses, 10)
	out = append(out, `,"winRate":`...)
	if b.WinRate == nil {
		out = append(out, "null"...)
	} else {
		out = appendString(out, *b.WinRate)
	}
	out = append(out, `,"netPnl":`...)
	out = appendString(out, b.NetPnl)
	return append(out, '}')
}

// appendString writes s as a JSON string: as is when it is printable ASCII
// that encoding/json would not escape, through encoding/json otherwise.
func appendString(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(out, q...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}
