package brokerfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
)

// Parsed is what Parse read from a file.
type Parsed struct {
	Header   []string // the header row's cells; nil without a header
	Rows     int      // data rows read (blank lines and repeated headers aside)
	Skipped  int      // data rows that are not fills (a preset's filters)
	Fills    []Fill   // in file order
	Errors   []Problem
	Warnings []Problem
	// HasFees reports a fee or commission column.
	HasFees bool
	// Accounts counts the data rows of each value of the account column
	// (a file of several accounts), before fileAccount picks one.
	Accounts map[string]int
}

// Errors of a whole file. Each is a 4xx naming the part or option.
var (
	ErrEmpty      = apperr.Invalid("file", "is empty")
	ErrHeaderOnly = apperr.Invalid("file", "has a header row but no data rows")
)

// TooManyRows is the answer to a file with more than max data rows.
func TooManyRows(max int) error {
	return apperr.New(apperr.PayloadTooLarge, "the file has more than %d data rows (CSV_IMPORT_MAX_ROWS); split it into several imports", max)
}

// binary recognises files that are not text by their first bytes.
func binary(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "it is a ZIP archive or an Excel workbook (.xlsx); save or export it as CSV"
	case bytes.HasPrefix(head, []byte("\xd0\xcf\x11\xe0")):
		return "it is an Excel 97-2003 workbook (.xls); save it as CSV"
	case bytes.HasPrefix(head, []byte("%PDF")):
		return "it is a PDF; export the statement as CSV"
	case bytes.HasPrefix(head, []byte("\xff\xfe")), bytes.HasPrefix(head, []byte("\xfe\xff")):
		return "it is UTF-16 text; save it as UTF-8 CSV"
	case bytes.IndexByte(head, 0) >= 0:
		return "it holds binary data (NUL bytes)"
	}
	// Mostly control characters or invalid UTF-8: not a text file.
	bad := 0
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 && len(head)-i >= utf8.UTFMax || r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			bad++
		}
		i += size
	}
	if bad*10 > len(head) {
		return "it is not text"
	}
	return ""
}

// candidateDelimiters are the separators a file with the wrong delimiter
// most often uses.
var candidateDelimiters = []rune{',', ';', '\t', '|'}

func delimiterName(r rune) string {
	if r == '\t' {
		return "tab"
	}
	return strconv.QuoteRune(r)
}

// parser holds the state of one Parse.
type parser struct {
	s       *Spec
	out     *Parsed
	bind    map[string]int // field -> 0-based column; absent when the file lacks it
	rec     []string
	line    int
	filters []rowFilter
	reason  map[string]int // skipped rows by reason
	last    *time.Time     // the previous row's time (InheritTime)
	account string         // the current row's account (the account column)
	// A trade of paired rows (PairedRows): its number and entry quantity.
	pairNumber string
	pairQty    decimal.Decimal
	orderRow   int // the line of the current order's first row (InheritTime)
	// wrapped: the file's rows are each one quoted cell holding the whole
	// row (its header was), and are unwrapped (unwrap).
	wrapped bool
	// Round trips given as their buy and their sell (buySellColumns): the
	// times (and then the prices too), or the prices alone.
	buyTimes, buyPrices bool
	// The current row's instrument and its quantity cell's unit word
	// ("LOTS", "BTC"), and the funding rows read (markets.go).
	cur     Instrument
	unit    string
	funding []fundingRow
}

// Parse reads the file from src by spec s, row by row. It returns an error
// (a 4xx) when the file as a whole is unusable, or src's own error (the
// upload limit); otherwise every bad value is a located Problem in Parsed.
func Parse(src io.Reader, s *Spec) (*Parsed, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if why := binary(head); why != "" {
		return nil, apperr.Invalid("file", "is not a CSV text file: "+why)
	}
	if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
		head = head[3:]
	}
	if len(bytes.TrimSpace(head)) == 0 {
		// Only blank up to 4 KiB: empty if nothing follows either.
		if _, err := br.Peek(len(head) + 1); errors.Is(err, io.EOF) {
			return nil, ErrEmpty
		}
	}

	cr := csv.NewReader(br)
	cr.Comma = s.Delimiter
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	p := &parser{s: s, out: &Parsed{}, bind: map[string]int{}, reason: map[string]int{}}

	// The header: the first record, or the record after the section title.
	if s.HasHeader {
		if err := p.findHeader(cr); err != nil {
			return nil, err
		}
	} else if err := p.bindIndexes(); err != nil {
		return nil, err
	}

	first := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			p.out.Rows++
			if s.MaxRows > 0 && p.out.Rows > s.MaxRows {
				return nil, TooManyRows(s.MaxRows)
			}
			p.out.Errors = append(p.out.Errors, Problem{Row: pe.StartLine, Code: CodeMalformedRow,
				Message: fmt.Sprintf("the row is not valid CSV (line %d, character %d): %v", pe.Line, pe.Column, pe.Err)})
			continue
		}
		if err != nil {
			return nil, err // the source's own error: the upload limit
		}
		p.line, _ = cr.FieldPos(0)
		if first && !s.HasHeader && !p.wrapped {
			_, p.wrapped, _ = unwrap(rec, s.Delimiter)
		}
		if p.wrapped {
			inner, ok, err := unwrap(rec, s.Delimiter)
			if err != nil {
				p.out.Rows++
				if s.MaxRows > 0 && p.out.Rows > s.MaxRows {
					return nil, TooManyRows(s.MaxRows)
				}
				p.out.Errors = append(p.out.Errors, Problem{Row: p.line, Code: CodeMalformedRow,
					Message: fmt.Sprintf("the row is one quoted cell holding a row that is not valid CSV: %v", err)})
				continue
			}
			if ok {
				rec = inner
			}
		}
		p.rec = rec
		if blank(rec) {
			continue
		}
		if s.preset != nil && s.preset.SectionColumn {
			// A statement whose every line starts with its table's name
			// and the line's kind (IB's Activity Statement): our table's
			// data lines only.
			if len(rec) < 2 || HeadKey(rec[0]) != HeadKey(s.preset.Section) || HeadKey(rec[1]) != "data" {
				continue
			}
		} else if s.preset != nil && s.preset.Section != "" && title(rec) {
			break // the next table of the statement
		} else if s.preset != nil && s.preset.SkipNotes && title(rec) && len(p.out.Header) > 2 {
			p.skipRow("notes (one-cell rows)")
			p.out.Rows++
			continue
		}
		if p.out.Header != nil && sameAs(rec, p.out.Header) {
			continue // a repeated header (IB repeats it per account)
		}
		if first && !s.HasHeader {
			if err := p.checkDelimiter(rec); err != nil {
				return nil, err
			}
		}
		first = false
		p.out.Rows++
		if s.MaxRows > 0 && p.out.Rows > s.MaxRows {
			return nil, TooManyRows(s.MaxRows)
		}
		if p.otherAccount() || p.fundingRow() || p.filtered() {
			continue
		}
		if s.Shape == ShapeRoundTrip {
			p.roundTrip()
		} else {
			p.execution()
		}
	}
	if p.out.Rows == 0 {
		if s.HasHeader {
			return nil, ErrHeaderOnly
		}
		return nil, ErrEmpty
	}
	if s.Shape == ShapeRoundTrip {
		p.out.Fills = joinTrips(p.out.Fills)
	}
	oldestFirst(p.out.Fills)
	p.settleMarkets()
	if s.accountMap != nil {
		var unmapped []string
		for a := range p.out.Accounts {
			if _, ok := s.accountMap[a]; !ok {
				unmapped = append(unmapped, clip(a))
			}
		}
		if len(unmapped) > 0 {
			slices.Sort(unmapped)
			p.out.Errors = append(p.out.Errors, Problem{Field: FieldAccount, Code: CodeMultipleAccounts, Message: fmt.Sprintf(
				"the file's accounts %s are not in accountMap: send each to one of your accounts, or skip it",
				strings.Join(unmapped, ", "))})
		}
	} else if len(p.out.Accounts) > 1 && s.fileAccount == "" {
		p.out.Errors = append(p.out.Errors, Problem{Field: FieldAccount, Code: CodeMultipleAccounts, Message: fmt.Sprintf(
			"the file holds %d accounts (%s): import them one at a time, choosing the file's account (fileAccount) for each of yours",
			len(p.out.Accounts), accountList(p.out.Accounts))})
	}
	p.summarize()
	return p.out, nil
}

// blank reports a record of empty cells only.
func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// title reports a statement's table title: one non-empty cell, the first.
func title(rec []string) bool {
	if strings.TrimSpace(rec[0]) == "" {
		return false
	}
	for _, c := range rec[1:] {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

func sameAs(rec, header []string) bool {
	if len(rec) != len(header) {
		return false
	}
	for i := range rec {
		if HeadKey(rec[i]) != HeadKey(header[i]) {
			return false
		}
	}
	return true
}

// findHeader reads up to the header and binds the fields to its columns.
func (p *parser) findHeader(cr *csv.Reader) error {
	section := ""
	if p.s.preset != nil {
		section = p.s.preset.Section
	}
	seen := false
	var first []string // a preset's first record, when it is not a header
	firstWrapped := false
	looked := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) && first != nil {
			rec, err = first, nil
			first = nil
			looked = p.s.preset.headerLines()
		}
		if errors.Is(err, io.EOF) {
			if section != "" && seen {
				return apperr.Invalid("file", fmt.Sprintf("has no %q table: is it a %s export?", section, p.s.preset.Name))
			}
			return ErrEmpty
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			if section != "" {
				seen = true
				continue // statements hold other tables before ours
			}
			return apperr.Invalid("file", fmt.Sprintf("the header row is not valid CSV (line %d): %v", pe.Line, pe.Err))
		}
		if err != nil {
			return err
		}
		if blank(rec) {
			continue
		}
		wrapped := false
		if inner, ok, _ := unwrap(rec, p.s.Delimiter); ok {
			rec, wrapped = inner, true
		}
		seen = true
		if section != "" && p.s.preset.SectionColumn {
			if len(rec) < 2 || HeadKey(rec[0]) != HeadKey(section) || HeadKey(rec[1]) != "header" {
				continue
			}
		} else if section != "" {
			if !(title(rec) && HeadKey(rec[0]) == HeadKey(section)) {
				continue
			}
			// The header follows the title.
			for {
				rec, err = cr.Read()
				if errors.Is(err, io.EOF) {
					return apperr.Invalid("file", fmt.Sprintf("the %q table has no header row", section))
				}
				if err != nil {
					var pe *csv.ParseError
					if errors.As(err, &pe) {
						return apperr.Invalid("file", fmt.Sprintf("the header row is not valid CSV (line %d): %v", pe.Line, pe.Err))
					}
					return err
				}
				if !blank(rec) {
					break
				}
			}
			wrapped = false
			if inner, ok, _ := unwrap(rec, p.s.Delimiter); ok {
				rec, wrapped = inner, true
			}
		}
		// A preset's export may start with lines about the account (E*TRADE's
		// "For Account:"): the header is the first of the first
		// headerSearch records that has the preset's required columns.
		if section == "" && p.s.preset != nil && !p.s.preset.headerOK(rec) {
			if first == nil {
				first, firstWrapped = slices.Clone(rec), wrapped
			}
			if looked++; looked < p.s.preset.headerLines() {
				continue
			}
			rec, wrapped = first, firstWrapped
		}
		p.wrapped = wrapped
		p.out.Header = slices.Clone(rec)
		for i := range p.out.Header {
			p.out.Header[i] = strings.TrimSpace(strings.TrimPrefix(p.out.Header[i], "\ufeff"))
		}
		return p.bindHeader()
	}
}

// unwrap reads a record that is one cell holding a whole delimited row
// ("Date,Symbol,Side,Qty,Price" in quotes, as some exports and spreadsheet
// re-saves write every line) as that row. ok is false for any other record
// (several cells, or one without the delimiter, a note); err is the cell's
// own CSV error.
func unwrap(rec []string, delim rune) (inner []string, ok bool, err error) {
	if len(rec) != 1 || !strings.ContainsRune(rec[0], delim) {
		return nil, false, nil
	}
	cr := csv.NewReader(strings.NewReader(rec[0]))
	cr.Comma, cr.FieldsPerRecord = delim, -1
	inner, err = cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, false, err
	}
	if _, more := cr.Read(); !errors.Is(more, io.EOF) || len(inner) < 2 {
		return nil, false, nil // a cell of several lines: a note, not a row
	}
	return inner, true, nil
}

// headerSearch bounds the records a preset's header is looked for in.
const headerSearch = 30

// headerLines is how many records p's header is looked for in.
func (p *Preset) headerLines() int {
	if p.HeaderLines > 0 {
		return p.HeaderLines
	}
	return headerSearch
}

// headerOK reports whether rec has every column p requires (by name or
// synonym).
func (p *Preset) headerOK(rec []string) bool {
	_, ok := signature(p, rec)
	return ok
}

// checkDelimiter refuses a first row of one cell that holds another
// delimiter: the file is separated by something else.
func (p *parser) checkDelimiter(rec []string) error {
	if len(rec) != 1 {
		return nil
	}
	for _, d := range candidateDelimiters {
		if d != p.s.Delimiter && strings.ContainsRune(rec[0], d) && strings.Count(rec[0], string(d)) >= 2 {
			field := "file"
			if p.s.preset == nil {
				field = "mapping.delimiter"
			}
			cell := rec[0]
			if len(cell) > 80 {
				cell = cell[:80] + "..."
			}
			return apperr.Invalid(field, fmt.Sprintf("the first row is one column (%q): the file seems to be separated by %s, not %s",
				cell, delimiterName(d), delimiterName(p.s.Delimiter)))
		}
	}
	return nil
}

// bindHeader finds each field's column in the header.
func (p *parser) bindHeader() error {
	if err := p.checkDelimiter(p.out.Header); err != nil {
		return err
	}
	index := headerIndex(p.out.Header)
	var problems []apperr.FieldError
	fields := make([]string, 0, len(p.s.columns))
	for f := range p.s.columns {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		for _, c := range p.s.columns[f] {
			if c.Index > 0 {
				if c.Index > len(p.out.Header) {
					problems = append(problems, apperr.FieldError{Field: "mapping.columns." + f,
						Message: fmt.Sprintf("column %d does not exist: the header has %d columns", c.Index, len(p.out.Header))})
				}
				p.bind[f] = c.Index - 1
				break
			}
			if i, ok := index[HeadKey(c.Name)]; ok {
				p.bind[f] = i
				break
			}
		}
	}
	// A preset's field none of whose names is in the header: their
	// synonyms, in a second pass so that no field takes a column another
	// field names outright.
	if p.s.preset != nil {
		for _, f := range fields {
			if _, ok := p.bind[f]; !ok {
				p.bindSynonym(f, index)
			}
		}
	}
	p.bindZone(index)
	required := requiredOf[p.s.Shape]
	if p.s.preset != nil {
		required = p.s.preset.Required
	}
	for _, f := range required {
		if _, ok := p.bind[f]; ok || f == FieldDate && p.s.tradeDate != nil {
			continue
		}
		if p.s.preset != nil {
			problems = append(problems, apperr.FieldError{Field: "file", Message: fmt.Sprintf(
				"is not a %s file: it has no %s column (for %s); its header has %s",
				p.s.preset.Name, quoteList(p.s.preset.Columns[f], " or "), f, p.headerList())})
		} else {
			problems = append(problems, apperr.FieldError{Field: "mapping.columns." + f, Message: fmt.Sprintf(
				"%s is not in the file's header; its header has %s", p.s.columns[f][0], p.headerList())})
		}
	}
	// A mapped optional column that is missing is an error as well: the
	// user named it.
	if p.s.preset == nil {
		for _, f := range fields {
			if _, ok := p.bind[f]; !ok && !slices.Contains(required, f) {
				problems = append(problems, apperr.FieldError{Field: "mapping.columns." + f, Message: fmt.Sprintf(
					"%s is not in the file's header; its header has %s", p.s.columns[f][0], p.headerList())})
			}
		}
	}
	if err := apperr.Fields(problems); err != nil {
		return err
	}
	if err := p.bindFilters(index); err != nil {
		return err
	}
	if p.s.fileAccount != "" && !p.has(FieldAccount) {
		return apperr.Invalid("fileAccount", "applies to a file with an account column; this file has none (map one as account)")
	}
	if p.s.accountMap != nil && !p.has(FieldAccount) {
		return apperr.Invalid("accountMap", "applies to a file with an account column; this file has none (map one as account)")
	}
	p.out.HasFees = p.has(FieldFees) || p.has(FieldCommission)
	for _, f := range p.s.extraFees {
		p.out.HasFees = p.out.HasFees || p.has(f)
	}
	p.buyTimes, p.buyPrices = p.buySellColumns()
	return nil
}

// Words that start the names of a round trip's buy and sell columns
// ("Buy Price", "boughtTimestamp", "Sold At", "Sale Price").
var (
	buyWords  = []string{"buy", "bought", "purchase"}
	sellWords = []string{"sell", "sold", "sale"}
)

// buySellColumns reports a round trip given as its buy and its sell
// rather than its entry and its exit: the preset says so (BuySell), or the
// header names the entry date column as the buy's and the exit date
// column as the sell's (times: the earlier of the two opened the trade,
// so a sell before the buy is a short), or so names the price columns
// alone (prices: a short's entry is the sell's price).
func (p *parser) buySellColumns() (times, prices bool) {
	if p.s.preset != nil && p.s.preset.BuySell {
		return true, true
	}
	named := func(field string, words []string) bool {
		k := HeadKey(p.columnName(p.column(field)))
		return slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(k, w) })
	}
	times = named(FieldEntryDate, buyWords) && named(FieldExitDate, sellWords)
	prices = times || named(FieldEntryPrice, buyWords) && named(FieldExitPrice, sellWords)
	return times, prices
}

// bindIndexes binds a headerless file's fields to their column numbers.
func (p *parser) bindIndexes() error {
	for f, cs := range p.s.columns {
		p.bind[f] = cs[0].Index - 1
	}
	p.out.HasFees = p.has(FieldFees) || p.has(FieldCommission)
	return p.bindFilters(nil)
}

func (p *parser) headerList() string {
	h := p.out.Header
	more := ""
	if len(h) > 25 {
		h, more = h[:25], fmt.Sprintf(" and %d more", len(p.out.Header)-25)
	}
	return quoteList(h, ", ") + more
}

func quoteList(list []string, sep string) string {
	q := make([]string, len(list))
	for i, s := range list {
		if len(s) > 60 {
			s = s[:60] + "..."
		}
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, sep)
}

// column is the 1-based column of field, or 0.
func (p *parser) column(field string) int {
	if i, ok := p.bind[field]; ok {
		return i + 1
	}
	return 0
}

// bindSynonym binds field to the first free column whose header is a
// synonym of one of the field's names.
func (p *parser) bindSynonym(field string, index map[string]int) {
	for _, c := range p.s.columns[field] {
		if c.Index > 0 {
			continue
		}
		for _, k := range synonymsOf(c.Name) {
			if i, ok := index[k]; ok && !p.bound(i) {
				p.bind[field] = i
				return
			}
		}
	}
}

// bound reports a column some field is bound to.
func (p *parser) bound(col int) bool {
	for _, i := range p.bind {
		if i == col {
			return true
		}
	}
	return false
}

func (p *parser) has(field string) bool {
	_, ok := p.bind[field]
	return ok
}

// cell returns the trimmed value of field in the current row and its
// 1-based column; "" and the column when the row is too short; "" and 0
// when the file has no such column.
func (p *parser) cell(field string) (string, int) {
	i, ok := p.bind[field]
	if !ok {
		return "", 0
	}
	if i >= len(p.rec) {
		return "", i + 1
	}
	return strings.TrimSpace(p.rec[i]), i + 1
}

func (p *parser) columnName(col int) string {
	if col >= 1 && col <= len(p.out.Header) {
		return p.out.Header[col-1]
	}
	if col >= 1 {
		return "column " + strconv.Itoa(col)
	}
	return ""
}

// problem records an error (warn false) or a warning at the current row.
func (p *parser) problem(warn bool, field string, col int, code, msg string) {
	pr := Problem{Row: p.line, Column: col, ColumnName: p.columnName(col), Field: field, Code: code, Message: msg, Account: p.account}
	if warn {
		p.out.Warnings = append(p.out.Warnings, pr)
	} else {
		if sym, _ := p.cell(FieldSymbol); sym != "" {
			if inst, _, m := parseSymbol(p.withQuote(sym), p.s.defaults.asset, p.s.Now, p.s.defaults.multiplier); m == "" {
				pr.Symbol = p.contract(inst).Symbol
			}
		}
		p.out.Errors = append(p.out.Errors, pr)
	}
}

// missing reports an empty required cell (or a row too short to have it).
func (p *parser) missing(field string, col int) {
	if col == 0 {
		p.problem(false, field, 0, CodeMissingValue, "the file has no "+field+" column")
		return
	}
	if col > len(p.rec) {
		p.problem(false, field, col, CodeMissingValue, fmt.Sprintf("the row has %d columns, so no %s (column %d)", len(p.rec), field, col))
		return
	}
	p.problem(false, field, col, CodeMissingValue, field+" is empty")
}

var dateHint = map[string]string{
	DateISO:         "YYYY-MM-DD",
	DateUS:          "MM/DD/YYYY",
	DateEU:          "DD/MM/YYYY or DD.MM.YYYY",
	DateISODateTime: "YYYY-MM-DDTHH:MM:SS",
}

// when reads the instant of a date field and an optional time field.
func (p *parser) when(dateField, timeField string) (time.Time, bool) {
	v, col := p.cell(dateField)
	tv, tcol := p.cell(timeField)
	if p.s.tradeDate != nil && dateField == FieldDate {
		return p.onTradeDate(tv, tcol)
	}
	if v == "" {
		if p.s.preset != nil && p.s.preset.InheritTime && p.last != nil && tv == "" {
			return *p.last, true
		}
		if col == 0 {
			return time.Time{}, false
		}
		p.missing(dateField, col)
		return time.Time{}, false
	}
	// Schwab's "03/03/2025 as of 02/28/2025": the first date is the trade's.
	if i := strings.Index(strings.ToLower(v), " as of "); i > 0 {
		v = strings.TrimSpace(v[:i])
	}
	datePart, rest := splitDate(v)
	d, ok := parseDateToken(datePart, p.s.DateFormat)
	if !ok {
		p.problem(false, dateField, col, CodeInvalidDate, fmt.Sprintf("%q is not a date in the %s format (%s)", clip(v), p.s.DateFormat, dateHint[p.s.DateFormat]))
		return time.Time{}, false
	}
	clockText, clockCol, clockField := rest, col, dateField
	if tv != "" {
		clockText, clockCol, clockField = tv, tcol, timeField
	}
	var c clock
	if clockText != "" {
		if c, ok = parseClock(clockText); !ok {
			p.problem(false, clockField, clockCol, CodeInvalidTime, fmt.Sprintf("%q is not a time of day like 09:35:12, 9:35 AM or 093512 (optionally with a zone: Z, -05:00, EST, UTC+02)", clip(clockText)))
			return time.Time{}, false
		}
	} else if p.s.DateFormat == DateISODateTime {
		p.problem(false, dateField, col, CodeInvalidDate, fmt.Sprintf("%q has no time; the iso-datetime format is YYYY-MM-DDTHH:MM:SS", clip(v)))
		return time.Time{}, false
	}
	if c.loc == nil {
		if c.loc, ok = p.rowZone(); !ok {
			return time.Time{}, false
		}
	}
	t := at(d, c, p.s.Location)
	if t.Before(journal.Earliest) || t.After(p.s.Now.Add(24*time.Hour)) {
		p.problem(false, dateField, col, CodeOutOfRange, fmt.Sprintf("%s is not between 1970 and tomorrow", t.Format(time.RFC3339)))
		return time.Time{}, false
	}
	p.last = &t
	return t, true
}

// onTradeDate reads a time of day on the file's trading day (tradeDate):
// a file that has times but no dates.
func (p *parser) onTradeDate(tv string, col int) (time.Time, bool) {
	if tv == "" {
		p.missing(FieldTime, col)
		return time.Time{}, false
	}
	c, ok := parseClock(tv)
	if !ok {
		p.problem(false, FieldTime, col, CodeInvalidTime, fmt.Sprintf("%q is not a time of day like 09:35:12, 9:35 AM or 093512", clip(tv)))
		return time.Time{}, false
	}
	if c.loc == nil {
		if c.loc, ok = p.rowZone(); !ok {
			return time.Time{}, false
		}
	}
	d := p.s.tradeDate
	t := at(ymd{d.Year(), d.Month(), d.Day()}, c, p.s.Location)
	if t.Before(journal.Earliest) || t.After(p.s.Now.Add(24*time.Hour)) {
		p.problem(false, FieldTime, col, CodeOutOfRange, fmt.Sprintf("%s is not between 1970 and tomorrow: check the trading day (tradeDate)", t.Format(time.RFC3339)))
		return time.Time{}, false
	}
	p.last = &t
	return t, true
}

// fieldZone is the column of the zone of a row's times, when the file
// writes it apart from them.
const fieldZone = "zone"

// zoneHeaders are the header names of a column holding the zone of the
// row's times ("GMT-04", "UTC+02", "EST").
var zoneHeaders = []string{"Time Zone", "Timezone", "TZ", "Zone", "UTC Offset", "GMT Offset"}

// bindZone binds the zone column, when the header has one that no field
// took.
func (p *parser) bindZone(index map[string]int) {
	if p.has(fieldZone) {
		return
	}
	for _, name := range zoneHeaders {
		if i, ok := index[HeadKey(name)]; ok && !p.bound(i) {
			p.bind[fieldZone] = i
			return
		}
	}
}

// rowZone reads the zone of the current row's times when the file writes
// it in a cell of its own: its zone column, or else a value after the
// header's last column ("..., GMT-04"; any other value there is not the
// importer's). nil: the file's zone. ok is false after a located problem (a
// zone column's value that is not a zone).
func (p *parser) rowZone() (*time.Location, bool) {
	if v, col := p.cell(fieldZone); col > 0 {
		if v == "" {
			return nil, true
		}
		loc, ok := parseZone(strings.ToUpper(v))
		if !ok || len(v) > 40 {
			p.problem(false, fieldZone, col, CodeInvalidTime, fmt.Sprintf("%q is not a time zone (UTC+02, GMT-04, -05:00, EST, ...)", clip(v)))
			return nil, false
		}
		return loc, true
	}
	if h := len(p.out.Header); h > 0 {
		for i := len(p.rec) - 1; i >= h; i-- {
			v := strings.TrimSpace(p.rec[i])
			if v == "" {
				continue
			}
			if loc, ok := parseZone(strings.ToUpper(v)); ok && len(v) <= 40 {
				return loc, true
			}
			break
		}
	}
	return nil, true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Bounds of the journal's columns (journal.PriceRule, QuantityRule,
// FeeRule).
var (
	maxPrice    = decimal.RequireFromString("99999999")
	maxQuantity = decimal.RequireFromString("1000000000")
	maxFee      = decimal.RequireFromString("9999999.99")
)

// number reads a decimal field. present reports a non-empty cell that
// parsed; fine is false when a problem was recorded (a bad number, or an
// empty required cell).
func (p *parser) number(field string, required bool) (d decimal.Decimal, present, fine bool) {
	v, col := p.cell(field)
	if v == "" {
		if required {
			p.missing(field, col)
			return decimal.Zero, false, false
		}
		return decimal.Zero, false, true
	}
	d, ok := parseNumber(v, p.s.NumberFormat)
	if !ok {
		hint := "1234.56 or 1,234.56"
		if p.s.NumberFormat == NumberEU {
			hint = "1234,56 or 1.234,56"
		}
		p.problem(false, field, col, CodeInvalidNumber, fmt.Sprintf("%q is not a number in the %s format (%s)", clip(v), p.s.NumberFormat, hint))
		return decimal.Zero, false, false
	}
	return d, true, true
}

// fit rounds d to places, warning when that changes it.
func (p *parser) fit(field string, d decimal.Decimal, places int32) decimal.Decimal {
	if d.Exponent() >= -places {
		return d
	}
	r := d.Round(places)
	if !r.Equal(d) {
		_, col := p.cell(field)
		p.problem(true, field, col, CodeRounded, fmt.Sprintf("%s has more than %d decimal places; rounded to %s", d.String(), places, r.String()))
	}
	return r
}

// price reads a price field: >= 0, <= 99999999, 8 places. A price of 0 is
// an exit of something worthless (an option that expired, as the app's own
// export writes it); an entry at 0 is refused by journal.Compute, on its row.
func (p *parser) price(field string) (decimal.Decimal, bool) {
	d, ok, _ := p.number(field, true)
	if !ok {
		return d, false
	}
	_, col := p.cell(field)
	if d.Sign() < 0 {
		d = d.Neg() // a sell written as a negative price
	}
	d = p.fit(field, d, places(p.cur.AssetType))
	if d.GreaterThan(maxPrice) {
		p.problem(false, field, col, CodeOutOfRange, fmt.Sprintf("%s must be at most 99999999", field))
		return d, false
	}
	return d, true
}

// descriptionPrice is the price at the end of a fill's description
// ("Sold 1 /ESZ4 EW4X4 11/22/24 Call 5900.00 @ 62.5").
var descriptionPrice = regexp.MustCompile(`@\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*$`)

// describedPrice reads the fill price from the description, for a preset
// whose price column may hold something else (PriceInDescription).
func (p *parser) describedPrice() (decimal.Decimal, bool) {
	if p.s.preset == nil || !p.s.preset.PriceInDescription {
		return decimal.Decimal{}, false
	}
	desc, _ := p.cell(FieldDescription)
	m := descriptionPrice.FindStringSubmatch(desc)
	if m == nil {
		return decimal.Decimal{}, false
	}
	d, ok := parseNumber(m[1], NumberUS)
	if !ok || d.GreaterThan(maxPrice) {
		return decimal.Decimal{}, false
	}
	return p.fit(FieldPrice, d, 8), true
}

// fieldPriceMultiplier is the column of the multiplier a price was
// multiplied by (PriceTimesMultiplier).
const fieldPriceMultiplier = "priceMultiplier"

// perUnit divides a price written per contract (price x multiplier, as
// tastytrade writes it) by the row's multiplier.
func (p *parser) perUnit(price decimal.Decimal) (decimal.Decimal, bool) {
	m, present, fine := p.number(fieldPriceMultiplier, false)
	if !fine || !present {
		return price, fine
	}
	if !m.IsPositive() {
		_, col := p.cell(fieldPriceMultiplier)
		p.problem(false, fieldPriceMultiplier, col, CodeOutOfRange, "the multiplier must be greater than 0")
		return price, false
	}
	return p.fit(FieldPrice, price.DivRound(m, 12).Truncate(12), 8), true
}

// fees reads the fees and commission cells: their magnitudes add up (a
// broker may print charges as negative amounts). given is false when both
// are empty.
func (p *parser) fees() (total decimal.Decimal, given, ok bool) {
	ok = true
	for _, f := range append([]string{FieldFees, FieldCommission}, p.s.extraFees...) {
		d, present, fine := p.number(f, false)
		if !fine {
			ok = false
		}
		if present {
			given = true
			total = total.Add(d.Abs())
		}
	}
	if !ok {
		return decimal.Zero, false, false
	}
	field := FieldFees
	if !p.has(FieldFees) {
		field = FieldCommission
	}
	total = p.fit(field, total, 4)
	if total.GreaterThan(maxFee) {
		_, col := p.cell(field)
		p.problem(false, field, col, CodeOutOfRange, "fees must be at most 9999999.99")
		return total, given, false
	}
	return total, given, true
}

// rowInstrument reads the symbol (and the option fields) of the current
// row (instrument, markets.go, settles a pair's contract).
func (p *parser) rowInstrument(traded time.Time) (Instrument, bool) {
	sym, col := p.cell(FieldSymbol)
	sym = p.withQuote(sym)
	if col == 0 && p.s.symbol != "" {
		sym = p.s.symbol // a file that names no symbol: the options' (checked by Resolve)
	}
	if inst, ok := p.described(sym); ok {
		return inst, true
	}
	if sym == "" {
		p.missing(FieldSymbol, col)
		return Instrument{}, false
	}
	assetText, assetCol := p.cell(FieldAssetType)
	asset, right := "", ""
	if assetText != "" {
		var ok bool
		asset, right, ok = parseAssetType(assetText)
		if !ok {
			if other := unsupportedWord(assetText); other {
				p.problem(false, FieldAssetType, assetCol, CodeUnsupportedAsset, fmt.Sprintf("%q is not an asset the journal records (stocks, options, futures, futures options, forex, crypto and CFDs)", clip(assetText)))
			} else {
				p.problem(false, FieldAssetType, assetCol, CodeInvalidValue, fmt.Sprintf("%q is not an asset type (stock, option, call, put, future, future option, forex, crypto, cfd)", clip(assetText)))
			}
			return Instrument{}, false
		}
	}
	if asset == "" {
		asset = p.s.defaults.asset
	}
	expiry, expCol := p.cell(FieldExpiry)
	strike, strikeCol := p.cell(FieldStrike)
	rightText, rightCol := p.cell(FieldRight)
	if rightText != "" {
		r, ok := parseRight(rightText)
		if !ok {
			p.problem(false, FieldRight, rightCol, CodeInvalidValue, fmt.Sprintf("%q is not an option right (C, P, call or put)", clip(rightText)))
			return Instrument{}, false
		}
		right = r
		if asset == "" || asset == AssetStock && expiry != "" {
			asset = AssetOption
		}
	}
	if asset == AssetFutureOption || right != "" && (strings.HasPrefix(strings.TrimSpace(sym), "/") || strings.HasPrefix(expiry, "/")) {
		return p.futureOption(sym, col, expiry, expCol, strike, strikeCol, right, traded)
	}
	if expiry != "" && (asset == AssetOption || asset == "") {
		// An option given as its underlying, expiry, strike and right.
		d, ok := parseDateToken(expiry, p.s.DateFormat)
		if !ok {
			p.problem(false, FieldExpiry, expCol, CodeInvalidDate, fmt.Sprintf("%q is not an expiry date (%s, or like 19 JAN 24)", clip(expiry), dateHint[p.s.DateFormat]))
			return Instrument{}, false
		}
		k, ok := parseNumber(strike, p.s.NumberFormat)
		if !ok || !k.IsPositive() {
			if strike == "" {
				p.missing(FieldStrike, strikeCol)
			} else {
				p.problem(false, FieldStrike, strikeCol, CodeInvalidNumber, fmt.Sprintf("%q is not a strike price", clip(strike)))
			}
			return Instrument{}, false
		}
		if right == "" {
			p.missing(FieldRight, rightCol)
			return Instrument{}, false
		}
		inst, msg := optionFrom(sym, d, right, k)
		if msg != "" {
			p.problem(false, FieldSymbol, col, CodeInvalidSymbol, msg)
			return Instrument{}, false
		}
		return inst, true
	}
	if merrillCode(strings.ToUpper(sym)) && (asset == "" || asset == AssetOption) {
		return p.merrillOption(sym, col)
	}
	inst, code, msg := parseSymbol(sym, asset, traded, p.s.defaults.multiplier)
	if msg != "" {
		p.problem(false, FieldSymbol, col, code, msg)
		return Instrument{}, false
	}
	return inst, true
}

// merrillOption reads an option in Merrill's code (TSLA#B1326C425000),
// which Merrill writes with the contract spelled out in the description
// ("CALL TSLA 00425.000 EXP 02/13/26"): the code, or the description when
// the code does not read; a description of the same root that writes
// another option is a problem, as is a row that neither places.
func (p *parser) merrillOption(sym string, col int) (Instrument, bool) {
	code, coded := parseMerrillOption(strings.ToUpper(sym))
	root, _, _ := strings.Cut(strings.ToUpper(sym), "#")
	desc, descCol := p.cell(FieldDescription)
	written, ok := parseOptionText(desc)
	ok = ok && strings.TrimSpace(written.Symbol[:6]) == root
	switch {
	case coded && ok && written.Symbol != code.Symbol:
		p.problem(false, FieldSymbol, col, CodeInvalidSymbol, fmt.Sprintf("the option code %q is %s, but the description %q writes %s",
			clip(sym), code.Symbol, clip(desc), written.Symbol))
		return Instrument{}, false
	case coded:
		return code, true
	case ok:
		return written, true
	}
	msg := fmt.Sprintf("%q is not an option in %s", clip(sym), merrillForm)
	if descCol > 0 {
		msg += fmt.Sprintf("; nor does the description %q write out one of %s (like \"CALL TSLA 00425.000 EXP 02/13/26\")", clip(desc), clip(root))
	}
	p.problem(false, FieldSymbol, col, CodeInvalidSymbol, msg)
	return Instrument{}, false
}

// futureOption reads a futures option: the whole contract in the symbol
// cell (tastytrade's "./ESZ4 EW4X4 241122C5900"), or the future there with
// the option's fields in their columns. thinkorswim writes the series code
// where an expiry would be ("/EW4X24", which says the expiry); a real date
// there is the expiry.
func (p *parser) futureOption(sym string, col int, expiry string, expCol int, strike string, strikeCol int, right string, traded time.Time) (Instrument, bool) {
	text := sym
	var given *time.Time
	if expiry != "" {
		if d, ok := parseDateToken(expiry, p.s.DateFormat); ok {
			t := time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC)
			given = &t
		} else if right != "" {
			text += " " + expiry
		} else {
			p.problem(false, FieldExpiry, expCol, CodeInvalidDate, fmt.Sprintf("%q is neither an expiry date (%s) nor an option series code (/EW4X24)", clip(expiry), dateHint[p.s.DateFormat]))
			return Instrument{}, false
		}
	}
	if right != "" {
		k, ok := parseNumber(strike, p.s.NumberFormat)
		if !ok || !k.IsPositive() {
			if strike == "" {
				p.missing(FieldStrike, strikeCol)
			} else {
				p.problem(false, FieldStrike, strikeCol, CodeInvalidNumber, fmt.Sprintf("%q is not a strike price", clip(strike)))
			}
			return Instrument{}, false
		}
		text += " " + right + k.String()
	}
	inst, code, msg := futureOptionSymbol(text, traded, given, p.s.defaults.multiplier)
	if msg != "" {
		p.problem(false, FieldSymbol, col, code, msg)
		return Instrument{}, false
	}
	return inst, true
}

// described reads an option written only in the row's description (the
// symbol cell empty or the underlying alone), when the row does not type
// itself as something else.
func (p *parser) described(sym string) (Instrument, bool) {
	desc, _ := p.cell(FieldDescription)
	if desc == "" {
		return Instrument{}, false
	}
	if a, _ := p.cell(FieldAssetType); a != "" {
		if asset, _, ok := parseAssetType(a); !ok || asset != AssetOption {
			return Instrument{}, false
		}
	}
	inst, ok := parseOptionText(desc)
	if !ok {
		return Instrument{}, false
	}
	sym = strings.ToUpper(strings.TrimSpace(sym))
	if sym != "" && sym != strings.TrimSpace(inst.Symbol[:6]) {
		return Instrument{}, false
	}
	return inst, true
}

// unsupportedWord reports asset-type words of things the journal does not
// record.
func unsupportedWord(s string) bool {
	switch normWords(s) {
	case "bond", "bonds", "fund", "funds", "mutual fund", "warrant", "warrants", "index", "cmdty", "bill", "note":
		return true
	}
	return false
}

// otherAccount counts the current row's account and skips it when the
// options picked another of the file's accounts.
func (p *parser) otherAccount() bool {
	v, col := p.cell(FieldAccount)
	p.account = v
	if col == 0 {
		return false
	}
	if v == "" {
		if p.s.accountMap == nil {
			return false
		}
		p.problem(false, FieldAccount, col, CodeMissingValue, "account is empty: a file split across your accounts needs every row's account")
		return true
	}
	if p.out.Accounts == nil {
		p.out.Accounts = map[string]int{}
	}
	if _, seen := p.out.Accounts[v]; seen || len(p.out.Accounts) < maxAccounts {
		p.out.Accounts[v]++
	}
	if id, ok := p.s.accountMap[v]; ok && id == "" {
		p.skipRow("account " + clip(v) + " (skipped)")
		return true
	}
	if p.s.fileAccount == "" || v == p.s.fileAccount {
		return false
	}
	p.skipRow("account " + clip(v))
	return true
}

// maxAccounts bounds the account values a file's rows are counted by.
const maxAccounts = 100

func accountList(accounts map[string]int) string {
	names := make([]string, 0, len(accounts))
	for a, n := range accounts {
		names = append(names, fmt.Sprintf("%s: %d rows", clip(a), n))
	}
	slices.Sort(names)
	if len(names) > 10 {
		names = append(names[:10], "...")
	}
	return strings.Join(names, "; ")
}

// nonTrade skips the current row when its side is not a trade word and
// the file's rows may be other records (SkipNonTrades).
func (p *parser) nonTrade(known func(string) bool) bool {
	if !p.s.skipNonTrades || !p.has(FieldSide) {
		return false
	}
	v, col := p.cell(FieldSide)
	if known(v) {
		return false
	}
	if v == "" {
		v = "(empty)"
	}
	p.skipRow(p.columnName(col) + " " + v)
	return true
}

// unsupported skips the current row when it trades an asset the journal
// does not record (bonds, funds; a coin-margined crypto contract) and the
// preset says to skip those (SkipUnsupported); a coin-margined contract is
// refused otherwise (an unsupported asset-type word is refused by
// instrument).
func (p *parser) unsupported() bool {
	sym, _ := p.cell(FieldSymbol)
	what, col := p.inverse(sym)
	if a, _ := p.cell(FieldAssetType); what == "" && a != "" && unsupportedWord(a) {
		what = strings.ToLower(a)
	}
	if what == "" {
		return false
	}
	if p.s.preset == nil || !p.s.preset.SkipUnsupported {
		if col > 0 {
			p.problem(false, fieldSettle, col, CodeUnsupportedAsset, fmt.Sprintf("%q is %s: the journal records linear contracts, whose P&L is in the quote", clip(strings.ToUpper(sym)), what))
			return true
		}
		return false
	}
	p.skipRow(fmt.Sprintf("%s (%s, not supported)", clip(strings.ToUpper(sym)), what))
	return true
}

// execution turns the current row into one fill.
func (p *parser) execution() {
	if p.nonTrade(func(s string) bool { _, _, ok := p.side(s); return ok }) || p.unsupported() {
		return
	}
	order := p.orderID()
	ok := true
	t, fine := p.when(FieldDate, FieldTime)
	ok = ok && fine
	inst, fine := p.instrument(t)
	ok = ok && fine

	qty, qtyCol, fine := p.rowQuantity()
	ok = ok && fine

	side, effect := "", ""
	sideText, sideCol := p.cell(FieldSide)
	switch {
	case sideText != "":
		var known bool
		side, effect, known = p.side(sideText)
		if !known {
			p.problem(false, FieldSide, sideCol, CodeInvalidSide, fmt.Sprintf("%q is not a side (buy, sell, BOT, SLD, Buy to Open, Sell Short, Buy to Cover, ...)", clip(sideText)))
			ok = false
		} else if qty.IsNegative() && side == Buy {
			p.problem(false, FieldSide, sideCol, CodeInvalidSide, fmt.Sprintf("the side is %s but the quantity %s is negative", sideText, qty.String()))
			ok = false
		}
	case qty.IsNegative():
		side = Sell
	default:
		side = Buy
	}
	if e, col := p.cell(FieldEffect); e != "" {
		declared, known := p.effect(e)
		switch {
		case !known:
			p.problem(false, FieldEffect, col, CodeInvalidValue, fmt.Sprintf("%q is not an open/close indicator (O, C, Open, Close, To Open, To Close)", clip(e)))
			ok = false
		case effect != "" && declared != "" && declared != effect:
			p.problem(false, FieldEffect, col, CodeEffectMismatch, fmt.Sprintf("%q contradicts the side %q", e, sideText))
			ok = false
		case declared != "":
			effect = declared
		}
	}

	price, described := p.describedPrice()
	if !described {
		price, fine = p.price(FieldPrice)
		ok = ok && fine
		if fine && p.s.preset != nil && p.s.preset.PriceTimesMultiplier {
			price, fine = p.perUnit(price)
			ok = ok && fine
		}
	}
	fees, feeAsset, given, fine := p.rowFees(inst)
	ok = ok && fine
	profit, fine := p.profit(inst)
	ok = ok && fine
	rate, fine := p.rowRate(inst)
	ok = ok && fine
	mult, fine := p.rowMultiplier(inst)
	ok = ok && fine

	if !ok {
		return
	}
	qty = p.quantity(qty.Abs(), inst, qtyCol)
	if qty.IsZero() {
		return
	}
	p.out.Fills = append(p.out.Fills, Fill{
		Row: p.line, Symbol: inst.Symbol, AssetType: inst.AssetType, Multiplier: mult,
		Side: side, Effect: effect, Price: price, Quantity: qty, Fees: fees, FeesGiven: given,
		FilledAt: t, QtyColumn: qtyCol, SymbolColumn: p.column(FieldSymbol), SideColumn: sideCol, Account: p.account,
		OrderID: order, FeeAsset: feeAsset, profit: profit, Quote: cfdQuote(inst), Rate: rate,
	})
}

// fieldOrderID is a preset's column of the broker's order id.
const fieldOrderID = "orderId"

// maxOrderID bounds an order id; a longer one is not an id.
const maxOrderID = 64

// orderID answers the broker's order the current row filled: the preset's
// order id column, or in a statement whose spread legs follow their
// order's first row with an empty time (InheritTime) that row's line. A
// cell that cannot be an id (too long, control characters) is no id: it
// only groups legs, so the row still imports, grouped by time. Nor is an
// id of zeros: IB's API gives 0 for executions that no IB order made, and
// those must not group as one order.
func (p *parser) orderID() string {
	if p.s.preset != nil && p.s.preset.InheritTime {
		if v, _ := p.cell(FieldDate); v != "" || p.orderRow == 0 {
			p.orderRow = p.line
		}
		return "row " + strconv.Itoa(p.orderRow)
	}
	v, _ := p.cell(fieldOrderID)
	if !validOrderID(v) || strings.Trim(v, "0") == "" {
		return ""
	}
	return v
}

// validOrderID reports an id the staged form can hold: at most maxOrderID
// bytes of valid UTF-8 without control characters (tabs, line breaks).
func validOrderID(v string) bool {
	return len(v) <= maxOrderID && utf8.ValidString(v) && !strings.ContainsFunc(v, unicode.IsControl)
}

// quantity checks a positive quantity against the journal's column and
// whole contracts for options; it returns 0 (with an error) when it does
// not fit.
func (p *parser) quantity(q decimal.Decimal, inst Instrument, col int) decimal.Decimal {
	if lotWord(p.unit) || p.unit == "" && p.s.markets.lots {
		q = q.Mul(lotUnits(inst)) // lots of a forex pair: units of its base
	}
	q = p.fit(FieldQuantity, q, places(inst.AssetType))
	switch {
	case !q.IsPositive() || q.GreaterThan(maxQuantity):
		p.problem(false, FieldQuantity, col, CodeOutOfRange, "quantity must be greater than 0 and at most 1000000000")
		return decimal.Zero
	case instrument.Contracts(inst.AssetType) && !q.Equal(q.Truncate(0)):
		p.problem(false, FieldQuantity, col, CodeOutOfRange, fmt.Sprintf("%s is not a whole number of contracts", q.String()))
		return decimal.Zero
	}
	return q
}

// roundTrip turns the current row into an entry and an exit fill.
func (p *parser) roundTrip() {
	if p.nonTrade(func(s string) bool { _, ok := p.direction(s); return ok }) || p.unsupported() {
		return
	}
	ok := true
	entry, fine := p.when(FieldEntryDate, FieldEntryTime)
	ok = ok && fine
	exit, fine := p.when(FieldExitDate, FieldExitTime)
	ok = ok && fine
	// A buy and a sell: the earlier opened the position, so a sell before
	// the buy is a short.
	timed := ""
	if p.buyTimes && ok {
		switch {
		case exit.Before(entry):
			entry, exit, timed = exit, entry, journal.SideShort
		case entry.Before(exit):
			timed = journal.SideLong
		}
	}
	if ok && exit.Before(entry) {
		_, col := p.cell(FieldExitDate)
		p.problem(false, FieldExitDate, col, CodeOutOfRange, fmt.Sprintf("the exit (%s) is before the entry (%s)", exit.Format(time.RFC3339), entry.Format(time.RFC3339)))
		ok = false
	}
	inst, fine := p.instrument(entry)
	ok = ok && fine
	qty, qtyCol, fine := p.nonZeroQuantity()
	ok = ok && fine
	entryPrice, fine := p.price(FieldEntryPrice)
	ok = ok && fine
	exitPrice, fine := p.price(FieldExitPrice)
	ok = ok && fine
	fees, feeAsset, given, fine := p.rowFees(inst)
	ok = ok && fine
	pnl, pnlGiven, fine := p.number(FieldPnL, false)
	ok = ok && fine

	direction := timed
	sideText, sideCol := p.cell(FieldSide)
	if sideText != "" {
		d, known := p.direction(sideText)
		switch {
		case !known:
			p.problem(false, FieldSide, sideCol, CodeInvalidSide, fmt.Sprintf("%q is not a direction (long, short, L, S, buy, sell)", clip(sideText)))
			ok = false
		case timed != "" && d != timed:
			p.problem(false, FieldSide, sideCol, CodeInvalidSide, fmt.Sprintf("%q contradicts the row's times: the %s came first, so it is %s",
				clip(sideText), map[string]string{journal.SideLong: "buy", journal.SideShort: "sell"}[timed], timed))
			ok = false
		}
		direction = d
	}
	if !ok {
		return
	}
	if direction == "" {
		direction = journal.SideLong
		why := "the file has no side: taken as long"
		// A buy price and a sell price give the same P&L either way: their
		// P&L does not tell the direction.
		if pnlGiven && !pnl.IsZero() && !exitPrice.Equal(entryPrice) && !p.buyPrices {
			if pnl.IsNegative() == exitPrice.GreaterThan(entryPrice) {
				direction = journal.SideShort
			}
			why = "the file has no side: " + direction + " from the sign of its P&L"
		} else if qty.IsNegative() {
			direction = journal.SideShort
			why = "the file has no side: short from the negative quantity"
		}
		_, col := p.cell(FieldSide)
		p.problem(true, FieldSide, col, CodeDirectionInferred, why)
	}
	entryFill, _ := p.cell(fieldEntryFill)
	exitFill, _ := p.cell(fieldExitFill)
	if p.buyPrices && direction == journal.SideShort {
		// A short opens with its sell.
		entryPrice, exitPrice = exitPrice, entryPrice
		entryFill, exitFill = exitFill, entryFill
	}
	qty = p.quantity(qty.Abs(), inst, qtyCol)
	if qty.IsZero() {
		return
	}
	in, out := Buy, Sell
	if direction == journal.SideShort {
		in, out = Sell, Buy
	}
	// The row's fees are split between its two fills (half on the entry,
	// rounded to 4 places, the rest on the exit), so the ledger books them
	// when they were paid.
	half := fees.Div(decimal.NewFromInt(2)).Round(feePlaces(feeAsset))
	base := Fill{Row: p.line, Symbol: inst.Symbol, AssetType: inst.AssetType, Multiplier: inst.Multiplier,
		Quantity: qty, FeesGiven: given, Trip: p.line, QtyColumn: qtyCol, SymbolColumn: p.column(FieldSymbol), SideColumn: sideCol,
		Account: p.account, FeeAsset: feeAsset, Quote: cfdQuote(inst)}
	e, x := base, base
	e.Side, e.Effect, e.Price, e.FilledAt, e.Fees, e.fillID = in, EffectOpen, entryPrice, entry, half, fillID(entryFill)
	x.Side, x.Effect, x.Price, x.FilledAt, x.Fees, x.fillID = out, EffectClose, exitPrice, exit, fees.Sub(half), fillID(exitFill)
	if pnlGiven {
		x.profit = p.tripProfit(inst, pnl)
	}
	p.out.Fills = append(p.out.Fills, e, x)
}

// The columns of the broker's ids of the fills a round-trip row pairs.
const (
	fieldEntryFill = "entryFillId"
	fieldExitFill  = "exitFillId"
)

// fillID is a fill id cell, or "" when it cannot be one (it only joins
// the rows that share a fill; without it they join by time and price).
func fillID(v string) string {
	if !validOrderID(v) || strings.Trim(v, "0") == "" {
		return ""
	}
	return v
}

// oldestFirst puts the rows of a file listed newest first (its first fill
// later than its last) in time order, keeping the fills of one row (a
// round trip's entry and exit) in theirs, so that fills of equal times
// (files with dates only) group in the order they happened.
func oldestFirst(fills []Fill) {
	if len(fills) < 2 || !fills[0].FilledAt.After(fills[len(fills)-1].FilledAt) {
		return
	}
	slices.Reverse(fills)
	for i := 0; i < len(fills); {
		j := i + 1
		for j < len(fills) && fills[j].Row == fills[i].Row {
			j++
		}
		slices.Reverse(fills[i:j])
		i = j
	}
}

// summarize adds the file-level warnings.
func (p *parser) summarize() {
	if p.out.Skipped > 0 {
		reasons := make([]string, 0, len(p.reason))
		for r, n := range p.reason {
			reasons = append(reasons, fmt.Sprintf("%s: %d", r, n))
		}
		slices.Sort(reasons)
		if len(reasons) > 10 {
			reasons = append(reasons[:10], "...")
		}
		p.out.Warnings = append(p.out.Warnings, Problem{Code: CodeRowsSkipped, Message: fmt.Sprintf(
			"%d rows are not fills and were skipped (%s)", p.out.Skipped, strings.Join(reasons, "; "))})
	}
}

// rowQuantity reads the row's quantity: its own, or in a file of paired
// rows (PairedRows) the entry's for the exit row, whose cell holds the
// trade's profit instead.
func (p *parser) rowQuantity() (decimal.Decimal, int, bool) {
	if p.s.preset == nil || !p.s.preset.PairedRows {
		return p.nonZeroQuantity()
	}
	n, nCol := p.cell("tradeNumber")
	_, col := p.cell(FieldQuantity)
	if n != "" && n != p.pairNumber {
		qty, col, ok := p.nonZeroQuantity()
		p.pairNumber, p.pairQty = n, decimal.Zero
		if ok {
			p.pairQty = qty.Abs()
		}
		return qty, col, ok
	}
	if p.pairQty.IsZero() {
		p.problem(false, "tradeNumber", nCol, CodeMissingValue, "an exit row without its trade's entry row (numbered in #) above it")
		return decimal.Zero, col, false
	}
	qty := p.pairQty
	p.pairNumber, p.pairQty = "", decimal.Zero // one exit a trade
	return qty, col, true
}

// nonZeroQuantity reads the row's quantity, which may be signed but not 0,
// and its column.
func (p *parser) nonZeroQuantity() (decimal.Decimal, int, bool) {
	qty, fine, unit := p.quantityCell()
	p.unit = unit
	_, col := p.cell(FieldQuantity)
	if fine && qty.IsZero() {
		p.problem(false, FieldQuantity, col, CodeOutOfRange, "quantity must not be 0")
		return qty, col, false
	}
	return qty, col, fine
}
