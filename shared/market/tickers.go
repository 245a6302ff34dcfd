// Package market is the market data of the journal: the SEC's public ticker
// list behind symbol autocomplete (RefreshSymbols, Index), and the delayed
// last-price lookup from the quote provider (Quotes). Handlers live in
// functions/symbols; this package holds the logic and the outbound calls.
package market

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Symbol is one listed security of the SEC file.
type Symbol struct {
	Ticker   string  `json:"ticker"`
	Name     string  `json:"name"`
	Exchange *string `json:"exchange"` // null when the SEC lists none
	CIK      int64   `json:"cik"`      // the SEC's Central Index Key
}

// tickerShape is what a stored ticker looks like; the quote route takes the
// same alphabet.
var tickerShape = regexp.MustCompile(`^[A-Z0-9.-]{1,10}$`)

// Limits on the SEC file: its real size is about 1 MB and 10,000 rows.
const (
	maxFileBytes = 32 << 20
	maxNameLen   = 200
	maxExchange  = 32
)

// tickerFile is company_tickers_exchange.json:
// {"fields":["cik","name","ticker","exchange"],"data":[[320193,"Apple Inc.","AAPL","Nasdaq"],...]}.
type tickerFile struct {
	Fields []string            `json:"fields"`
	Data   [][]json.RawMessage `json:"data"`
}

// ParseTickers reads the SEC ticker file. Columns are found by name in
// "fields", so a reordering does not break the load. Rows that do not fit
// (a ticker outside A-Z0-9.- or longer than 10, an empty name, a CIK that is
// not a positive whole number) are skipped and counted; a ticker listed twice
// keeps its first row. A file with no usable row is an error, so a broken
// download never replaces a good table.
func ParseTickers(r io.Reader) (symbols []Symbol, skipped int, err error) {
	lr := &io.LimitedReader{R: r, N: maxFileBytes + 1}
	dec := json.NewDecoder(lr)
	dec.UseNumber()
	var f tickerFile
	if err := dec.Decode(&f); err != nil {
		if lr.N <= 0 {
			return nil, 0, fmt.Errorf("ticker file is larger than %d bytes", maxFileBytes)
		}
		return nil, 0, fmt.Errorf("ticker file is not the expected JSON: %w", err)
	}
	col := map[string]int{}
	for i, name := range f.Fields {
		col[name] = i
	}
	for _, need := range []string{"cik", "name", "ticker", "exchange"} {
		if _, ok := col[need]; !ok {
			return nil, 0, fmt.Errorf("ticker file has no %q field (fields: %v)", need, f.Fields)
		}
	}
	seen := make(map[string]bool, len(f.Data))
	symbols = make([]Symbol, 0, len(f.Data))
	for _, row := range f.Data {
		s, ok := parseRow(row, col)
		if !ok || seen[s.Ticker] {
			skipped++
			continue
		}
		seen[s.Ticker] = true
		symbols = append(symbols, s)
	}
	if len(symbols) == 0 {
		return nil, skipped, errors.New("ticker file lists no usable row")
	}
	return symbols, skipped, nil
}

func parseRow(row []json.RawMessage, col map[string]int) (Symbol, bool) {
	field := func(name string) json.RawMessage {
		if i := col[name]; i < len(row) {
			return row[i]
		}
		return nil
	}
	var (
		s        Symbol
		cik      json.Number
		exchange *string
	)
	if json.Unmarshal(field("cik"), &cik) != nil || json.Unmarshal(field("name"), &s.Name) != nil ||
		json.Unmarshal(field("ticker"), &s.Ticker) != nil || json.Unmarshal(field("exchange"), &exchange) != nil {
		return s, false
	}
	n, err := cik.Int64()
	if err != nil || n <= 0 {
		return s, false
	}
	s.CIK = n
	s.Ticker = strings.ToUpper(strings.TrimSpace(s.Ticker))
	s.Name = strings.Join(strings.Fields(s.Name), " ")
	if !tickerShape.MatchString(s.Ticker) || s.Name == "" || utf8.RuneCountInString(s.Name) > maxNameLen || !utf8.ValidString(s.Name) {
		return s, false
	}
	if exchange != nil {
		if e := strings.TrimSpace(*exchange); e != "" && len(e) <= maxExchange {
			s.Exchange = &e
		}
	}
	return s, true
}
