package market

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
)

// Bounds of an uploaded bars file.
const (
	MaxUploadBytes = 8 << 20
	MaxUploadRows  = 100_000
	maxCellChars   = 40
)

// barColumns are the header names of each column, compared as
// brokerfile.HeadKey normalises them ("<TICKVOL>" is "tickvol",
// "Date/Time" "datetime").
var barColumns = map[string][]string{
	"datetime": {"datetime", "timestamp", "timeutc", "gmttime", "localtime", "opentime", "bartime"},
	"date":     {"date", "day"},
	"time":     {"time"},
	"open":     {"open", "o", "openprice"},
	"high":     {"high", "h", "highprice"},
	"low":      {"low", "l", "lowprice"},
	"close":    {"close", "c", "last", "closeprice", "lastprice"},
	"volume":   {"volume", "vol", "v", "tickvol", "tickvolume", "totalvolume"},
}

// barTimeLayouts are the times platforms write, tried in order (a time
// without a zone is read in the upload's zone).
var barTimeLayouts = []string{
	time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04",
	"2006.01.02 15:04:05", "2006.01.02 15:04", "01/02/2006 15:04:05", "01/02/2006 15:04", "20060102 150405",
	"20060102 15:04:05", "2006-01-02", "2006.01.02", "01/02/2006", "20060102",
}

// lineError is the 400 of a file's line n (1 is the header).
func lineError(n int, format string, args ...any) error {
	return apperr.Invalid("file", fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
}

// ParseBarsCSV reads a bars file as platforms export them: a header row
// naming the columns (a time, or a date and a time; open, high, low,
// close; an optional volume), separated by commas, semicolons or tabs,
// one bar a line in any order. In a file separated by semicolons (as
// European exports are) a decimal comma is read too: 101,25 is 101.25. Times without a zone are read in loc;
// unix seconds are read too. It returns the bars oldest first and their
// length (the smallest gap between two bars: whole minutes that divide a
// week, so some resolution joins them whole: uploadResolution). Anything
// unreadable is a 400 on the field "file" naming the line and the fix; at
// most MaxUploadRows bars.
func ParseBarsCSV(data []byte, loc *time.Location) ([]Bar, time.Duration, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, _, _ := bytes.Cut(data, []byte("\n"))
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = ','
	for _, c := range []rune{';', '\t'} {
		if bytes.Count(first, []byte(string(c))) > bytes.Count(first, []byte(string(r.Comma))) {
			r.Comma = c
		}
	}
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return nil, 0, apperr.Invalid("file", "is empty or not a CSV file: the first line names the columns (time, open, high, low, close, volume)")
	}
	col := map[string]int{}
	for i, h := range header {
		name := brokerfile.HeadKey(h)
		for k, syn := range barColumns {
			if _, dup := col[k]; !dup && slices.Contains(syn, name) {
				col[k] = i
			}
		}
	}
	if _, ok := col["datetime"]; !ok {
		if _, ok := col["date"]; !ok {
			col["datetime"], ok = col["time"]
			if !ok {
				return nil, 0, lineError(1, "no time column: name one time, date, datetime or timestamp")
			}
			delete(col, "time")
		}
	}
	for _, k := range []string{"open", "high", "low", "close"} {
		if _, ok := col[k]; !ok {
			return nil, 0, lineError(1, "no %s column: the header names time, open, high, low, close and optionally volume", k)
		}
	}
	var bars []Bar
	lines := map[time.Time]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.StartLine
			}
			return nil, 0, lineError(line, "is not a well-formed CSV row (a quote left open?)")
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if len(bars) == MaxUploadRows {
			return nil, 0, lineError(line, "the file has more than %d bars: upload a shorter span or a coarser resolution", MaxUploadRows)
		}
		b, err := barOf(rec, col, loc, line, r.Comma == ';')
		if err != nil {
			return nil, 0, err
		}
		if prev, dup := lines[b.Time]; dup {
			return nil, 0, lineError(line, "a second bar at %s (the first is on line %d)", b.Time.Format(time.RFC3339), prev)
		}
		lines[b.Time] = line
		bars = append(bars, b)
	}
	if len(bars) == 0 {
		return nil, 0, apperr.Invalid("file", "has a header but no bars")
	}
	slices.SortFunc(bars, func(a, b Bar) int { return a.Time.Compare(b.Time) })
	step := time.Duration(0)
	for i := 1; i < len(bars); i++ {
		if d := bars[i].Time.Sub(bars[i-1].Time); step == 0 || d < step {
			step = d
		}
	}
	if len(bars) == 1 {
		step = 24 * time.Hour // one bar: a day's, the widest a lone bar can be read as safely
	}
	if !ValidStep(step) {
		return nil, 0, apperr.Invalid("file", fmt.Sprintf("has bars %s apart at the closest: bars are whole minutes apart and a whole number of them make a week "+
			"(as 1, 2, 5, 15 or 30 minutes, 1 or 4 hours, or 1 day do)", step))
	}
	return bars, step, nil
}

// barOf reads one row (line) of the file; decimalComma reads 101,25 as
// 101.25.
func barOf(rec []string, col map[string]int, loc *time.Location, line int, decimalComma bool) (Bar, error) {
	cell := func(k string) (string, bool) {
		i, ok := col[k]
		if !ok || i >= len(rec) {
			return "", false
		}
		return strings.TrimSpace(rec[i]), true
	}
	var b Bar
	at, _ := cell("datetime")
	if _, ok := col["datetime"]; !ok {
		d, _ := cell("date")
		at = d
		if t, ok := cell("time"); ok && t != "" {
			at = d + " " + t
		}
	}
	t, ok := parseBarTime(at, loc)
	if !ok {
		return b, lineError(line, "%q is not a time: write it as 2024-03-05 14:30 (or with seconds, or ISO 8601 with a zone)", clip(at))
	}
	b.Time = t
	for _, f := range []struct {
		name string
		dst  *decimal.Decimal
	}{{"open", &b.Open}, {"high", &b.High}, {"low", &b.Low}, {"close", &b.Close}, {"volume", &b.Volume}} {
		s, ok := cell(f.name)
		if f.name == "volume" && (!ok || s == "") {
			continue
		}
		num := s
		if decimalComma {
			num = strings.Replace(s, ",", ".", 1)
		}
		d, err := decimal.NewFromString(num)
		if len(s) > maxCellChars || err != nil || strings.ContainsAny(s, "eE") {
			hint := "with a point for decimals, as 101.25"
			if decimalComma {
				hint = "as 101.25 or 101,25, without a thousands separator"
			}
			return b, lineError(line, "the %s %q is not a number (write it %s)", f.name, clip(s), hint)
		}
		if d.Exponent() < -10 || d.GreaterThanOrEqual(decimal.New(1, 15)) {
			return b, lineError(line, "the %s %s is out of range (at most 10 decimal places, below 10^15)", f.name, d)
		}
		if f.name == "volume" && d.IsNegative() || f.name != "volume" && !d.IsPositive() {
			return b, lineError(line, "the %s %s must be positive", f.name, d)
		}
		*f.dst = d
	}
	switch {
	case b.High.LessThan(b.Low):
		return b, lineError(line, "the high %s is below the low %s", b.High, b.Low)
	case b.Open.GreaterThan(b.High) || b.Close.GreaterThan(b.High):
		return b, lineError(line, "the open or close is above the high %s", b.High)
	case b.Open.LessThan(b.Low) || b.Close.LessThan(b.Low):
		return b, lineError(line, "the open or close is below the low %s", b.Low)
	}
	return b, nil
}

// parseBarTime reads s by barTimeLayouts in loc, or as unix seconds; a
// time before 1970 or past 2100 is refused.
func parseBarTime(s string, loc *time.Location) (time.Time, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) >= 9 && len(s) <= 10 {
		return time.Unix(n, 0).UTC(), true
	}
	for _, l := range barTimeLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			t = t.UTC()
			return t, t.Year() >= 1970 && t.Year() < 2100
		}
	}
	return time.Time{}, false
}

// clip shortens what a message quotes of a cell.
func clip(s string) string {
	if len(s) > maxCellChars {
		return strings.ToValidUTF8(s[:maxCellChars], "") + "…"
	}
	return s
}

// ValidStep reports whether bars of length step can be uploaded: whole
// minutes that divide a week, so some resolution joins them whole
// (uploadResolution).
func ValidStep(step time.Duration) bool {
	return step >= time.Minute && step%time.Minute == 0 && (7*24*time.Hour)%step == 0
}
