package brokerfile

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/journal"
)

func TestParseNumber(t *testing.T) {
	cases := []struct {
		in, format, want string // want "" means refused
	}{
		{"1234.56", NumberUS, "1234.56"},
		{"1,234.56", NumberUS, "1234.56"},
		{"1,234,567", NumberUS, "1234567"},
		{"-19,312.00", NumberUS, "-19312"},
		{"+100", NumberUS, "100"},
		{"$190.50", NumberUS, "190.5"},
		{"-$1,234.50", NumberUS, "-1234.5"},
		{"$(25.00)", NumberUS, "-25"},
		{"(25.00)", NumberUS, "-25"},
		{"@1.25", NumberUS, "1.25"},
		{".5", NumberUS, "0.5"},
		{" 42 ", NumberUS, "42"},
		{"1.234,56", NumberEU, "1234.56"},
		{"1 234,56", NumberEU, "1234.56"},
		{"1234,5", NumberEU, "1234.5"},
		{"-0,0001", NumberEU, "-0.0001"},
		{"€12,50", NumberEU, "12.5"},
		// Wrong format or not a number.
		{"190,50", NumberUS, ""},
		{"1,23.4", NumberUS, ""},
		{"12,3456", NumberUS, ""},
		{"1.234", NumberUS, "1.234"}, // in the us format a dot is the decimal mark
		{"190.5", NumberEU, ""},
		{"1.2.3", NumberUS, ""},
		{"1e5", NumberUS, ""},
		{"NaN", NumberUS, ""},
		{"", NumberUS, ""},
		{"-", NumberUS, ""},
		{"5.", NumberUS, ""},
		{"1,", NumberUS, ""},
		{",123", NumberUS, ""},
		{"12 34", NumberUS, ""},
		{"0x10", NumberUS, ""},
	}
	for _, tc := range cases {
		d, ok := parseNumber(tc.in, tc.format)
		switch {
		case tc.want == "" && ok:
			t.Errorf("parseNumber(%q, %s) = %s, want refused", tc.in, tc.format, d)
		case tc.want != "" && (!ok || !d.Equal(decimal.RequireFromString(tc.want))):
			t.Errorf("parseNumber(%q, %s) = %s %v, want %s", tc.in, tc.format, d, ok, tc.want)
		}
	}
}

func TestDates(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	cases := []struct {
		date, clock, format string
		want                time.Time // zero: refused
	}{
		{"2024-01-19", "09:35:12", DateISO, time.Date(2024, 1, 19, 9, 35, 12, 0, ny)},
		{"2024-01-19T09:35:12Z", "", DateISODateTime, time.Date(2024, 1, 19, 9, 35, 12, 0, time.UTC)},
		{"2024-01-19 09:35:12.250", "", DateISODateTime, time.Date(2024, 1, 19, 9, 35, 12, 250e6, ny)},
		{"2024-01-19T09:35:12-05:00", "", DateISODateTime, time.Date(2024, 1, 19, 14, 35, 12, 0, time.UTC)},
		{"20240122;093512", "", DateISO, time.Date(2024, 1, 22, 9, 35, 12, 0, ny)},
		{"20240122", "", DateISO, time.Date(2024, 1, 22, 0, 0, 0, 0, ny)},
		{"01/19/2024", "9:35 AM", DateUS, time.Date(2024, 1, 19, 9, 35, 0, 0, ny)},
		{"1/19/24 09:35:12", "", DateUS, time.Date(2024, 1, 19, 9, 35, 12, 0, ny)},
		{"1/29/2024 1:02:37 PM", "", DateUS, time.Date(2024, 1, 29, 13, 2, 37, 0, ny)},
		{"1/29/2024 12:02:37 AM", "", DateUS, time.Date(2024, 1, 29, 0, 2, 37, 0, ny)},
		{"01/30/2024 14:58:04 EST", "", DateUS, time.Date(2024, 1, 30, 19, 58, 4, 0, time.UTC)},
		{"07/30/2024 14:58:04 EDT", "", DateUS, time.Date(2024, 7, 30, 18, 58, 4, 0, time.UTC)},
		{"07/30/2024 14:58:04 ET", "", DateUS, time.Date(2024, 7, 30, 18, 58, 4, 0, time.UTC)},
		{"19/01/2024", "09:35", DateEU, time.Date(2024, 1, 19, 9, 35, 0, 0, ny)},
		{"19.01.2024 09:35:12", "", DateEU, time.Date(2024, 1, 19, 9, 35, 12, 0, ny)},
		{"19 JAN 24", "", DateUS, time.Date(2024, 1, 19, 0, 0, 0, 0, ny)},
		{"Jan 19, 2024 9:30 AM", "", DateEU, time.Date(2024, 1, 19, 9, 30, 0, 0, ny)},
		{"2024-01-19", "093512", DateISO, time.Date(2024, 1, 19, 9, 35, 12, 0, ny)},
		// Offsets written after UTC or GMT, in the cell or after a comma.
		{"2024-03-01 09:30:00 UTC+02", "", DateISO, time.Date(2024, 3, 1, 7, 30, 0, 0, time.UTC)},
		{"2024-03-01 09:30:00 GMT-04", "", DateISO, time.Date(2024, 3, 1, 13, 30, 0, 0, time.UTC)},
		{"2024-03-01", "09:30:00 UTC-5", DateISO, time.Date(2024, 3, 1, 14, 30, 0, 0, time.UTC)},
		{"03/01/2024 9:30 AM UTC+5:30", "", DateUS, time.Date(2024, 3, 1, 4, 0, 0, 0, time.UTC)},
		{"2024-03-01 09:30:00 GMT+0100", "", DateISO, time.Date(2024, 3, 1, 8, 30, 0, 0, time.UTC)},
		{"2024-03-01 09:30:00 UTC +02:00", "", DateISO, time.Date(2024, 3, 1, 7, 30, 0, 0, time.UTC)},
		{"2024-03-01 09:30:00, GMT-04", "", DateISO, time.Date(2024, 3, 1, 13, 30, 0, 0, time.UTC)},
		{"2024-03-01 09:30:00,GMT-04", "", DateISO, time.Date(2024, 3, 1, 13, 30, 0, 0, time.UTC)},
		{"2024-03-01T09:30:00 UTC", "", DateISODateTime, time.Date(2024, 3, 1, 9, 30, 0, 0, time.UTC)},
		// Refused.
		{"19/01/2024", "", DateUS, time.Time{}},
		{"01/19/2024", "", DateEU, time.Time{}},
		{"01/19/2024", "", DateISO, time.Time{}},
		{"2024-02-30", "", DateISO, time.Time{}},
		{"2024-01-19", "", DateISODateTime, time.Time{}},
		{"2024-01-19", "25:00", DateISO, time.Time{}},
		{"2024-01-19", "13:00 PM", DateISO, time.Time{}},
		{"2024-01-19", "09:35 XYZ", DateISO, time.Time{}},
		{"2024-03-01 09:30:00 UTC+15", "", DateISO, time.Time{}},
		{"2024-03-01 09:30:00 GMT-", "", DateISO, time.Time{}},
		{"2024-03-01 09:30:00 UTC+2x", "", DateISO, time.Time{}},
		{"2024-03-01 09:30:00 UTC+02:60", "", DateISO, time.Time{}},
		{"2024-03-01 09:30:00 UTC++2", "", DateISO, time.Time{}},
		{"2024-03-01 09:30:00 -5", "", DateISO, time.Time{}},
		{"yesterday", "", DateISO, time.Time{}},
		{"2024/1/19/1", "", DateISO, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.date+" "+tc.clock+" "+tc.format, func(t *testing.T) {
			s := &Spec{DateFormat: tc.format, Location: ny, Now: now, Shape: ShapeExecution}
			p := &parser{s: s, out: &Parsed{}, bind: map[string]int{FieldDate: 0, FieldTime: 1}, rec: []string{tc.date, tc.clock}}
			got, ok := p.when(FieldDate, FieldTime)
			if tc.want.IsZero() {
				if ok {
					t.Fatalf("got %s, want refused", got)
				}
				if len(p.out.Errors) != 1 {
					t.Fatalf("errors %+v", p.out.Errors)
				}
				return
			}
			if !ok || !got.Equal(tc.want) {
				t.Fatalf("got %s %v (%+v), want %s", got, ok, p.out.Errors, tc.want.UTC())
			}
		})
	}
}

// parse runs Parse on text with a mapping of the generic columns.
func parse(t *testing.T, text string, opts Options) (*Parsed, error) {
	t.Helper()
	if opts.PresetID == "" && opts.Mapping == nil {
		opts.PresetID = "generic-execution"
	}
	s, err := Resolve(opts, "America/New_York", now, 20)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	return Parse(strings.NewReader(text), s)
}

func fieldOf(t *testing.T, err error) (string, string) {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok {
		t.Fatalf("error %v is not an apperr", err)
	}
	if len(e.Details) == 0 {
		return string(e.Code), ""
	}
	return string(e.Code), e.Details[0].Field + ": " + e.Details[0].Message
}

// TestBadFiles: each unusable file is one precise error for the request.
func TestBadFiles(t *testing.T) {
	header := "Date,Time,Symbol,Side,Quantity,Price\n"
	row := "2024-01-16,09:31:05,AAPL,Buy,100,184.25\n"
	cases := []struct {
		name, text string
		opts       Options
		code       string
		detail     string // a substring of "field: message"
	}{
		{"Empty", "", Options{}, "VALIDATION_ERROR", "file: is empty"},
		{"OnlyBOM", "\ufeff", Options{}, "VALIDATION_ERROR", "file: is empty"},
		{"BlankLines", "\n\n  \r\n", Options{}, "VALIDATION_ERROR", "file: is empty"},
		{"HeaderOnly", header, Options{}, "VALIDATION_ERROR", "file: has a header row but no data rows"},
		{"HeaderAndBlankRows", header + ",,,,,\n\n", Options{}, "VALIDATION_ERROR", "file: has a header row but no data rows"},
		{"PNG", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", Options{}, "VALIDATION_ERROR", "binary data"},
		{"XLSX", "PK\x03\x04\x14\x00\x06\x00", Options{}, "VALIDATION_ERROR", "Excel workbook"},
		{"PDF", "%PDF-1.7\n", Options{}, "VALIDATION_ERROR", "PDF"},
		{"UTF16", "\xff\xfeD\x00a\x00", Options{}, "VALIDATION_ERROR", "UTF-16"},
		{"WrongDelimiter", "Date;Time;Symbol;Side;Quantity;Price\n2024-01-16;09:31:05;AAPL;Buy;100;184.25\n", Options{},
			"VALIDATION_ERROR", `separated by ';', not ','`},
		{"WrongDelimiterMapping", "Date\tSymbol\tQuantity\tPrice\n2024-01-16\tAAPL\t100\t1\n",
			Options{Mapping: &Mapping{Columns: map[string]Column{"date": {Name: "Date"}, "symbol": {Name: "Symbol"}, "quantity": {Name: "Quantity"}, "price": {Name: "Price"}}}},
			"VALIDATION_ERROR", `mapping.delimiter: the first row is one column`},
		{"MissingColumn", "Date,Time,Symbol,Side,Quantity\n" + "2024-01-16,09:31:05,AAPL,Buy,100\n", Options{},
			"VALIDATION_ERROR", `file: is not a Generic: one fill per row file: it has no "Price" or "Fill Price" or "Avg Price" column (for price)`},
		{"MappedColumnMissing", header + row,
			Options{Mapping: &Mapping{Columns: map[string]Column{"date": {Name: "Date"}, "symbol": {Name: "Ticker"}, "quantity": {Name: "Quantity"}, "price": {Name: "Price"}}}},
			"VALIDATION_ERROR", `mapping.columns.symbol: "Ticker" is not in the file's header`},
		{"ColumnNumberPastHeader", header + row,
			Options{Mapping: &Mapping{Columns: map[string]Column{"date": {Index: 1}, "symbol": {Index: 3}, "quantity": {Index: 5}, "price": {Index: 9}}}},
			"VALIDATION_ERROR", `mapping.columns.price: column 9 does not exist`},
		{"TooManyRows", header + strings.Repeat(row, 21), Options{}, "PAYLOAD_TOO_LARGE", ""},
		{"SectionMissing", "Cash Balance\nDATE,TIME\n1/22/24,09:35:12\n", Options{PresetID: "thinkorswim"},
			"VALIDATION_ERROR", `file: has no "Account Trade History" table`},
		{"BadHeaderQuote", "Date,\"Sym\"bol,Quantity,Price\n" + row, Options{}, "VALIDATION_ERROR", "file: the header row is not valid CSV"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.text, tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			code, detail := fieldOf(t, err)
			if code != tc.code || !strings.Contains(detail, tc.detail) {
				t.Fatalf("got %s %q (%v), want %s containing %q", code, detail, err, tc.code, tc.detail)
			}
		})
	}
}

// TestExactlyMaxRows: the cap counts data rows, not the header.
func TestExactlyMaxRows(t *testing.T) {
	text := "Date,Time,Symbol,Side,Quantity,Price\n"
	for i := range 20 {
		text += fmt.Sprintf("2024-01-16,09:%02d:00,AAPL,%s,100,184.25\n", i, []string{"Buy", "Sell"}[i%2])
	}
	p, err := parse(t, text, Options{})
	if err != nil || p.Rows != 20 || len(p.Fills) != 20 {
		t.Fatalf("%v %+v", err, p)
	}
}

// TestCSVShapes: BOM, CRLF, quoted fields with commas and line breaks,
// other delimiters, headerless files by column number.
func TestCSVShapes(t *testing.T) {
	t.Run("BOMAndCRLF", func(t *testing.T) {
		p, err := parse(t, "\ufeffDate,Time,Symbol,Side,Quantity,Price\r\n2024-01-16,09:31:05,AAPL,Buy,\"1,000\",184.25\r\n", Options{})
		if err != nil || len(p.Fills) != 1 || p.Fills[0].Quantity.String() != "1000" || p.Header[0] != "Date" {
			t.Fatalf("%v %+v", err, p)
		}
	})
	t.Run("QuotedNewlines", func(t *testing.T) {
		text := "Date,Time,Symbol,Side,Quantity,Price,Notes\n" +
			"2024-01-16,09:31:05,AAPL,Buy,100,184.25,\"a note\non two lines, with a comma\"\n" +
			"2024-01-16,10:31:05,AAPL,Sell,100,oops,\"\"\n"
		p, err := parse(t, text, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The second record starts on line 4: errors name the line a
		// record starts on.
		if len(p.Fills) != 1 || len(p.Errors) != 1 || p.Errors[0].Row != 4 || p.Errors[0].Column != 6 || p.Errors[0].ColumnName != "Price" ||
			p.Errors[0].Field != FieldPrice || p.Errors[0].Code != CodeInvalidNumber {
			t.Fatalf("%+v %+v", p.Fills, p.Errors)
		}
	})
	t.Run("SemicolonEU", func(t *testing.T) {
		text := "Datum;Zeit;Symbol;Seite;Anzahl;Kurs;Gebühr\n19.01.2024;09:31:05;SAP;Kauf;10;172,50;4,90\n"
		yes := true
		m := &Mapping{HasHeader: &yes, Delimiter: ";", Columns: map[string]Column{
			"date": {Name: "datum"}, "time": {Name: "Zeit"}, "symbol": {Name: "Symbol"}, "side": {Name: "Seite"},
			"quantity": {Name: "Anzahl"}, "price": {Name: "Kurs"}, "fees": {Name: "Gebühr"}}}
		p, err := parse(t, text, Options{Mapping: m, DateFormat: DateEU, NumberFormat: NumberEU, Timezone: "Europe/Berlin"})
		if err != nil {
			t.Fatal(err)
		}
		// "Kauf" is not a side word we know: a located error.
		if len(p.Errors) != 1 || p.Errors[0].Code != CodeInvalidSide || p.Errors[0].ColumnName != "Seite" {
			t.Fatalf("%+v", p.Errors)
		}
	})
	t.Run("HeaderlessTabs", func(t *testing.T) {
		no := false
		m := &Mapping{HasHeader: &no, Delimiter: "tab", Columns: map[string]Column{
			"date": {Index: 1}, "symbol": {Index: 2}, "quantity": {Index: 3}, "price": {Index: 4}}}
		p, err := parse(t, "2024-01-16 09:31:05\tAAPL\t100\t184.25\n2024-01-16 09:41:05\tAAPL\t-100\t185\n2024-01-16\tAAPL\n", Options{Mapping: m})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Fills) != 2 || p.Fills[0].Side != Buy || p.Fills[1].Side != Sell || p.Header != nil {
			t.Fatalf("%+v", p.Fills)
		}
		if len(p.Errors) != 2 || p.Errors[0].Code != CodeMissingValue || p.Errors[0].Row != 3 {
			t.Fatalf("%+v", p.Errors)
		}
	})
	t.Run("MalformedRow", func(t *testing.T) {
		p, err := parse(t, "Date,Time,Symbol,Side,Quantity,Price\n2024-01-16,09:31:05,AA\"PL,Buy,100,1\n2024-01-16,09:31:05,AAPL,Buy,100,1\n", Options{})
		if err != nil || len(p.Errors) != 1 || p.Errors[0].Code != CodeMalformedRow || p.Errors[0].Row != 2 || len(p.Fills) != 1 {
			t.Fatalf("%v %+v", err, p)
		}
	})
	t.Run("RepeatedHeader", func(t *testing.T) {
		text := "Date,Time,Symbol,Side,Quantity,Price\n2024-01-16,09:31:05,AAPL,Buy,100,1\ndate,time,symbol,side,quantity,price\n2024-01-16,09:32:05,AAPL,Sell,100,1\n"
		p, err := parse(t, text, Options{})
		if err != nil || p.Rows != 2 || len(p.Fills) != 2 || len(p.Errors) != 0 {
			t.Fatalf("%v %+v", err, p)
		}
	})
}

// TestRowErrors: every bad value is located by row, column and field.
func TestRowErrors(t *testing.T) {
	text := "Date,Time,Symbol,Side,Quantity,Price,Fees\n" +
		"2024-13-01,09:31:05,AAPL,Buy,100,184.25,1\n" + // 2 bad date
		"2024-01-16,9h31,AAPL,Buy,100,184.25,1\n" + // 3 bad time
		"2024-01-16,09:31:05,,Buy,100,184.25,1\n" + // 4 empty symbol
		"2024-01-16,09:31:05,AAPL,Hold,100,184.25,1\n" + // 5 bad side
		"2024-01-16,09:31:05,AAPL,Buy,0,184.25,1\n" + // 6 zero quantity
		"2024-01-16,09:31:05,AAPL,Buy,100,-0,1\n" + // 7 zero price: read, refused by the plan (an entry)
		"2024-01-16,09:31:05,AAPL,Buy,100,184.25,lots\n" + // 8 bad fee
		"2024-01-16,09:31:05,AAPL  240119X00190000,Buy,1,1.5,1\n" + // 9 bad symbol
		"2099-01-16,09:31:05,AAPL,Buy,100,184.25,1\n" + // 10 future date
		"2024-01-16,09:31:05,AAPL  240119C00190000,Buy,1.5,1.5,1\n" + // 11 half a contract
		"2024-01-16,09:31:05,AAPL,Buy,-100,184.25,1\n" + // 12 buy with negative quantity
		"2024-01-16,09:31:05,AAPL,Buy,100,184.123456789,1.00001\n" // 13 rounded (warnings)
	p, err := parse(t, text, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		row  int
		col  string
		code string
	}{
		{2, "Date", CodeInvalidDate}, {3, "Time", CodeInvalidTime}, {4, "Symbol", CodeMissingValue}, {5, "Side", CodeInvalidSide},
		{6, "Quantity", CodeOutOfRange}, {8, "Fees", CodeInvalidNumber}, {9, "Symbol", CodeInvalidSymbol},
		{10, "Date", CodeOutOfRange}, {11, "Quantity", CodeOutOfRange}, {12, "Side", CodeInvalidSide},
	}
	if len(p.Errors) != len(want) {
		t.Fatalf("%d errors: %+v", len(p.Errors), p.Errors)
	}
	for i, w := range want {
		e := p.Errors[i]
		if e.Row != w.row || e.ColumnName != w.col || e.Code != w.code || e.Message == "" || e.Field == "" {
			t.Errorf("error %d: %+v, want %+v", i, e, w)
		}
	}
	if len(p.Fills) != 2 || p.Fills[1].Price.String() != "184.12345679" || p.Fills[1].Fees.String() != "1" || codes(p.Warnings)[0] != CodeRounded {
		t.Fatalf("%+v %+v", p.Fills, p.Warnings)
	}
	// A price of 0 is an exit of something worthless; as an entry the plan refuses it on its row.
	plan := Build(p.Fills, Journal{}, BuildOptions{})
	if len(plan.Errors) != 1 || plan.Errors[0].Row != 7 || !strings.Contains(plan.Errors[0].Message, "price") {
		t.Fatalf("an entry at 0: %+v", plan.Errors)
	}
}

func TestResolve(t *testing.T) {
	cases := []struct {
		name  string
		opts  Options
		field string
	}{
		{"Neither", Options{}, "presetId"},
		{"Both", Options{PresetID: "webull", Mapping: &Mapping{}}, "presetId"},
		{"UnknownPreset", Options{PresetID: "robinhood-crypto"}, "presetId"},
		{"BadShape", Options{PresetID: "webull", RowShape: "daily"}, "rowShape"},
		{"ShapeAgainstPreset", Options{PresetID: "webull", RowShape: ShapeRoundTrip}, "rowShape"},
		{"BadDateFormat", Options{PresetID: "webull", DateFormat: "dmy"}, "dateFormat"},
		{"BadNumberFormat", Options{PresetID: "webull", NumberFormat: "fr"}, "numberFormat"},
		{"BadZone", Options{PresetID: "webull", Timezone: "Mars/Olympus"}, "timezone"},
		{"BadDelimiter", Options{Mapping: &Mapping{Delimiter: "ab", Columns: map[string]Column{}}}, "mapping.delimiter"},
		{"QuoteDelimiter", Options{Mapping: &Mapping{Delimiter: `"`, Columns: map[string]Column{}}}, "mapping.delimiter"},
		{"UnknownField", Options{Mapping: &Mapping{Columns: map[string]Column{"colour": {Name: "x"}}}}, "mapping.columns.colour"},
		{"RoundTripFieldOnExecution", Options{Mapping: &Mapping{Columns: map[string]Column{"entryPrice": {Name: "x"}}}}, "mapping.columns.entryPrice"},
		{"MissingRequired", Options{Mapping: &Mapping{Columns: map[string]Column{"symbol": {Name: "Symbol"}}}}, "mapping.columns.date"},
		{"ZeroColumn", Options{Mapping: &Mapping{Columns: map[string]Column{"symbol": {Index: -1}}}}, "mapping.columns.symbol"},
		{"NameWithoutHeader", Options{Mapping: &Mapping{HasHeader: new(bool), Columns: map[string]Column{"symbol": {Name: "Symbol"}}}}, "mapping.columns.symbol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(tc.opts, "America/New_York", now, 10)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.Validation {
				t.Fatalf("err %v", err)
			}
			found := false
			for _, d := range e.Details {
				found = found || d.Field == tc.field
			}
			if !found {
				t.Fatalf("details %+v lack %s", e.Details, tc.field)
			}
		})
	}
}

// fill makes an execution fill for grouping tests.
func fill(row int, sym, side, effect, qty, price string, minute int) Fill {
	return Fill{Row: row, Symbol: sym, AssetType: AssetStock, Multiplier: decimal.NewFromInt(1), Side: side, Effect: effect,
		Quantity: decimal.RequireFromString(qty), Price: decimal.RequireFromString(price), FeesGiven: true,
		FilledAt: time.Date(2024, 1, 16, 14, 30+minute, 0, 0, time.UTC), QtyColumn: 5}
}

func TestGrouping(t *testing.T) {
	t.Run("ScaleInPartialExitsAndReopen", func(t *testing.T) {
		fills := []Fill{
			fill(2, "AAPL", Buy, "", "100", "10", 0),
			fill(3, "AAPL", Buy, "", "50", "11", 1),
			fill(4, "AAPL", Sell, "", "120", "12", 2),
			fill(5, "AAPL", Sell, "", "30", "12", 3), // back to zero: closed
			fill(6, "AAPL", Sell, "", "40", "13", 4), // opens a short
		}
		plan := Build(fills, Journal{}, BuildOptions{})
		if len(plan.Errors) != 0 || len(plan.Positions) != 2 {
			t.Fatalf("%+v %+v", plan.Errors, plan.Positions)
		}
		if p := plan.Positions[0]; p.Side != "long" || p.Figures.Status != "closed" || len(p.Fills) != 4 ||
			!slicesEqual(p.Types, []string{"entry", "entry", "exit", "exit"}) {
			t.Fatalf("%+v", p)
		}
		if p := plan.Positions[1]; p.Side != "short" || p.Figures.Status != "open" {
			t.Fatalf("%+v", p)
		}
		if codes(plan.Warnings)[0] != CodeDirectionInferred || plan.Warnings[0].Row != 6 {
			t.Fatalf("%+v", plan.Warnings)
		}
	})
	t.Run("ExitCrossingZeroReverses", func(t *testing.T) {
		fills := []Fill{
			fill(2, "AAPL", Buy, "", "100", "10", 0),
			fill(3, "AAPL", Sell, "", "150", "11", 1),
			fill(4, "AAPL", Buy, "", "50", "9", 2),
		}
		fills[1].Fees = decimal.RequireFromString("3")
		plan := Build(fills, Journal{}, BuildOptions{Header: []string{"Date", "Time", "Symbol", "Side", "Quantity"}})
		if len(plan.Errors) != 0 || !plan.CanCommit() || len(plan.Positions) != 2 || plan.Summary.Reversals != 1 {
			t.Fatalf("%+v %+v", plan.Errors, plan.Positions)
		}
		long, short := plan.Positions[0], plan.Positions[1]
		// The sale of 150 closes the long at 100 (fees 2 of 3) and opens a
		// short of 50 (fees 1), which the buy of 50 closes.
		if long.Side != "long" || long.Figures.Status != "closed" || long.Figures.GrossPnL.String() != "100" ||
			long.Figures.Fees.String() != "2" || long.ReversalOf != 0 {
			t.Fatalf("long %+v", long.Figures)
		}
		if short.Side != "short" || short.Figures.Status != "closed" || short.Figures.GrossPnL.String() != "100" ||
			short.Figures.Fees.String() != "1" || short.ReversalOf != 1 || short.Quantities[0].String() != "50" {
			t.Fatalf("short %+v", short.Figures)
		}
		w := plan.Warnings[len(plan.Warnings)-1]
		if w.Row != 3 || w.Code != CodeReversal || w.ColumnName != "Quantity" {
			t.Fatalf("%+v", plan.Warnings)
		}
	})
	t.Run("DeclaredCloseWithNothingOpen", func(t *testing.T) {
		plan := Build([]Fill{fill(2, "TSLA", Buy, EffectClose, "10", "200", 0)}, Journal{}, BuildOptions{})
		if len(plan.Errors) != 1 || plan.Errors[0].Code != CodeExitWithoutEntry {
			t.Fatalf("%+v", plan.Errors)
		}
	})
	t.Run("EffectMismatch", func(t *testing.T) {
		plan := Build([]Fill{fill(2, "TSLA", Buy, "", "10", "200", 0), fill(3, "TSLA", Sell, EffectOpen, "5", "201", 1)}, Journal{}, BuildOptions{})
		if len(plan.Errors) != 1 || plan.Errors[0].Code != CodeEffectMismatch || plan.Errors[0].Row != 3 {
			t.Fatalf("%+v", plan.Errors)
		}
	})
	t.Run("NewestFirstSameInstant", func(t *testing.T) {
		// Listed newest first; the buy and the sell share a minute.
		fills := []Fill{
			fill(2, "AMD", Sell, "", "10", "101", 5),
			fill(3, "AMD", Buy, "", "10", "100", 5),
			fill(4, "AMD", Sell, "", "10", "99", 1),
			fill(5, "AMD", Buy, "", "10", "98", 0),
		}
		plan := Build(fills, Journal{}, BuildOptions{})
		if len(plan.Errors) != 0 || len(plan.Positions) != 2 || plan.Positions[1].Figures.GrossPnL.String() != "10" {
			t.Fatalf("%+v %+v", plan.Errors, plan.Positions)
		}
	})
	t.Run("Duplicates", func(t *testing.T) {
		a := fill(2, "AAPL", Buy, "", "100", "10", 0)
		b := fill(3, "AAPL", Sell, "", "100", "11", 1)
		again := a
		again.Row = 4
		c := fill(5, "AAPL", Buy, "", "100", "10", 2)
		plan := Build([]Fill{a, b, again, c}, Journal{Has: map[Key]bool{c.Key(): true}}, BuildOptions{})
		if plan.Summary.DuplicatesInFile != 1 || plan.Summary.DuplicateFills != 1 || plan.Summary.ImportFills != 3 {
			t.Fatalf("%+v", plan.Summary)
		}
		confirmed := Build([]Fill{a, b, again, c}, Journal{Has: map[Key]bool{c.Key(): true}}, BuildOptions{ConfirmDuplicates: true})
		if confirmed.Summary.ImportFills != 4 {
			t.Fatalf("%+v", confirmed.Summary)
		}
	})
	t.Run("CopiesAcrossAccounts", func(t *testing.T) {
		// The same fills in two accounts of the file (copy trading), sent
		// to one journal account: copies, not repeats.
		var fills []Fill
		for i, account := range []string{"EVAL-1", "EVAL-2"} {
			for j, f := range []Fill{fill(2, "MES", Buy, "", "2", "6000", 0), fill(3, "MES", Sell, "", "2", "6004", 1)} {
				f.Row, f.Account = 2+2*i+j, account
				fills = append(fills, f)
			}
		}
		plan := Build(fills, Journal{}, BuildOptions{})
		if plan.Summary.DuplicatesInFile != 0 || len(plan.Warnings) != 0 {
			t.Fatalf("%+v %+v", plan.Summary, plan.Warnings)
		}
		fills[3].Account = "EVAL-1" // the exit twice in one account: a repeat
		if plan = Build(fills, Journal{}, BuildOptions{}); plan.Summary.DuplicatesInFile != 1 {
			t.Fatalf("%+v", plan.Summary)
		}
	})
	t.Run("ContinuesOpenPosition", func(t *testing.T) {
		at := time.Date(2024, 1, 15, 15, 0, 0, 0, time.UTC)
		seed := Seed{PositionID: "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab", Symbol: "AAPL", AssetType: AssetStock, Side: journal.SideLong, Multiplier: decimal.NewFromInt(1),
			Fills: []journal.Fill{{Type: journal.FillEntry, Price: decimal.NewFromInt(9), Quantity: decimal.NewFromInt(100), FilledAt: at}}}
		plan := Build([]Fill{fill(2, "AAPL", Sell, EffectClose, "100", "10", 0)}, Journal{Seeds: []Seed{seed}}, BuildOptions{})
		if len(plan.Errors) != 0 || len(plan.Positions) != 1 || plan.Positions[0].ExistingID != seed.PositionID ||
			plan.Positions[0].Figures.Status != "closed" || !plan.Summary.GrossPnL.Equal(decimal.NewFromInt(100)) {
			t.Fatalf("%+v %+v", plan.Errors, plan.Positions)
		}
		// Two open positions of the symbol: the import cannot choose.
		other := seed
		other.PositionID = "1b9d8f4e-1c2a-4e5f-9a7b-1234567890ab"
		plan = Build([]Fill{fill(2, "AAPL", Sell, EffectClose, "100", "10", 0)}, Journal{Seeds: []Seed{seed, other}}, BuildOptions{})
		if len(plan.Errors) != 1 || !strings.Contains(plan.Errors[0].Message, "2 open AAPL positions") {
			t.Fatalf("%+v", plan.Errors)
		}
	})
	t.Run("RoundTrips", func(t *testing.T) {
		// A short round trip whose exit and entry share an instant, in a
		// file read backwards; and a round trip half in the journal.
		entry := fill(2, "AMD", Sell, EffectOpen, "10", "101", 0)
		exit := fill(2, "AMD", Buy, EffectClose, "10", "100", 0)
		entry.Trip, exit.Trip = 2, 2
		older := fill(3, "NVDA", Buy, EffectOpen, "5", "500", -5)
		olderExit := fill(3, "NVDA", Sell, EffectClose, "5", "510", -4)
		older.Trip, olderExit.Trip = 3, 3
		plan := Build([]Fill{entry, exit, older, olderExit}, Journal{Has: map[Key]bool{older.Key(): true}}, BuildOptions{})
		if len(plan.Errors) != 0 || len(plan.Positions) != 2 || plan.Summary.DuplicateFills != 0 {
			t.Fatalf("%+v %+v %+v", plan.Errors, plan.Positions, plan.Summary)
		}
		for _, p := range plan.Positions {
			if p.Symbol == "AMD" && (p.Side != "short" || p.Figures.GrossPnL.String() != "10") ||
				p.Symbol == "NVDA" && (p.Side != "long" || p.Figures.GrossPnL.String() != "50") {
				t.Fatalf("%+v", p)
			}
		}
		both := Journal{Has: map[Key]bool{older.Key(): true, olderExit.Key(): true}}
		if plan := Build([]Fill{older, olderExit}, both, BuildOptions{}); len(plan.Positions) != 0 || plan.Summary.DuplicateFills != 2 {
			t.Fatalf("%+v", plan.Summary)
		}
	})
	t.Run("TooManyFills", func(t *testing.T) {
		var fills []Fill
		for i := range journal.MaxFills + 1 {
			f := fill(i+2, "SPY", Buy, "", "1", "400", 0)
			f.FilledAt = f.FilledAt.Add(time.Duration(i) * time.Second)
			fills = append(fills, f)
		}
		plan := Build(fills, Journal{}, BuildOptions{})
		if len(plan.Errors) != 1 || plan.Errors[0].Code != CodeTooManyFills || plan.Errors[0].Row != journal.MaxFills+2 {
			t.Fatalf("%+v", plan.Errors)
		}
	})
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }

func TestPayloadRoundTrip(t *testing.T) {
	_, plan := load(t, "generic-execution", "generic_execution.csv", Options{})
	_ = plan
	parsed, _ := load(t, "tradezella", "tradezella_executions.csv", Options{})
	data := EncodeFills(parsed.Fills)
	back, err := DecodeFills(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(parsed.Fills) {
		t.Fatalf("%d fills back", len(back))
	}
	for i := range back {
		a, b := parsed.Fills[i], back[i]
		if a.Row != b.Row || a.Symbol != b.Symbol || !a.Price.Equal(b.Price) || !a.Quantity.Equal(b.Quantity) || !a.Fees.Equal(b.Fees) ||
			!a.FilledAt.Equal(b.FilledAt) || a.FeesGiven != b.FeesGiven || a.Side != b.Side || a.Effect != b.Effect || a.QtyColumn != b.QtyColumn {
			t.Fatalf("fill %d: %+v != %+v", i, a, b)
		}
	}
	for _, bad := range []string{"", "tjcsv2\n", "tjcsv1\n1\tA", "tjcsv1\n1\t2\t3\t4\t5\t6\t7\t8\t9\t0\t1\t2\t3\n"} {
		if _, err := DecodeFills([]byte(bad)); !errors.Is(err, ErrPayload) {
			t.Errorf("DecodeFills(%q) = %v", bad, err)
		}
	}
}

// quotedFill is a crypto fill with the file's rate, a fee in BNB and a
// CFD-style quote, as the staged form carries them.
func quotedFill() Fill {
	rate := decimal.RequireFromString("0.9998")
	return Fill{Row: 2, Symbol: "BTC/USDT", AssetType: "crypto", Multiplier: decimal.NewFromInt(1), Side: Buy,
		Price: decimal.RequireFromString("60000.5"), Quantity: decimal.RequireFromString("0.000000000000000001"),
		Fees: decimal.RequireFromString("0.00075"), FeesGiven: true, FilledAt: time.Date(2024, 3, 7, 8, 0, 0, 0, time.UTC),
		Rate: &rate, Quote: "USDT", FeeAsset: "BNB"}
}

// TestPayloadQuoted: a forex or crypto fill's rate, quote and fee asset
// come back from the staged form; a line of 19 fields with a bad rate or
// asset is refused.
func TestPayloadQuoted(t *testing.T) {
	in := quotedFill()
	plain := in
	plain.Rate, plain.Quote, plain.FeeAsset = nil, "", ""
	back, err := DecodeFills(EncodeFills([]Fill{in, plain}))
	if err != nil || len(back) != 2 {
		t.Fatal(back, err)
	}
	if b := back[0]; b.Rate == nil || !b.Rate.Equal(*in.Rate) || b.Quote != "USDT" || b.FeeAsset != "BNB" || !b.Quantity.Equal(in.Quantity) {
		t.Errorf("quoted fill %+v", b)
	}
	if b := back[1]; b.Rate != nil || b.Quote != "" || b.FeeAsset != "" {
		t.Errorf("plain fill %+v", b)
	}
	line := string(EncodeFills([]Fill{in}))
	for _, bad := range []string{strings.Replace(line, "0.9998", "-1", 1), strings.Replace(line, "BNB", "B\u00e9", 1),
		strings.Replace(line, "0.9998", "x", 1)} {
		if _, err := DecodeFills([]byte(bad)); !errors.Is(err, ErrPayload) {
			t.Errorf("DecodeFills(%q) = %v", bad, err)
		}
	}
}

// TestPayloadParts: the fills of several journal accounts come back in
// their parts, with the rows left out.
func TestPayloadParts(t *testing.T) {
	parsed, _ := load(t, "tradezero", "tradezero_trades.csv", Options{})
	parts := []Part{{Fills: parsed.Fills[:1]}, {AccountID: "a1", Fills: parsed.Fills[1:3]}, {AccountID: "b2"}, {AccountID: "c3", Fills: parsed.Fills[3:]}}
	back, leftOut, err := DecodeStaged(EncodeStaged(parts, 7))
	if err != nil || leftOut != 7 || len(back) != len(parts) {
		t.Fatalf("%+v %d %v", back, leftOut, err)
	}
	for i := range parts {
		if back[i].AccountID != parts[i].AccountID || len(back[i].Fills) != len(parts[i].Fills) {
			t.Fatalf("part %d: %+v, want %+v", i, back[i], parts[i])
		}
		for k := range back[i].Fills {
			if back[i].Fills[k].Row != parts[i].Fills[k].Row {
				t.Fatalf("part %d fill %d: row %d", i, k, back[i].Fills[k].Row)
			}
		}
	}
	if _, err := DecodeFills(EncodeStaged(parts[1:2], 0)); !errors.Is(err, ErrPayload) {
		t.Errorf("DecodeFills of an account's part: %v", err)
	}
	for _, bad := range []string{"tjcsv1\n@\n", "tjcsv1\n@a1"} {
		if _, _, err := DecodeStaged([]byte(bad)); !errors.Is(err, ErrPayload) {
			t.Errorf("DecodeStaged(%q) = %v", bad, err)
		}
	}
}

// TestAccountMap: a file of several accounts split by accountMap: the
// fills carry their account, a skipped account's rows are counted, an
// account the map does not name is a file error, and the map's shape is
// checked.
func TestAccountMap(t *testing.T) {
	file := "Instrument,Action,Quantity,Price,Time,E/X,Commission,Account\n" +
		"MES 03-25,Buy,1,6000,2/3/2025 9:31:05 AM,Entry,$0.62,Sim101\n" +
		"MES 03-25,Sell,1,6004,2/3/2025 9:41:05 AM,Exit,$0.62,Sim101\n" +
		"MES 03-25,Sell,2,6010,2/3/2025 9:45:00 AM,Entry,$1.24,APEX-22\n" +
		"MES 03-25,Buy,2,6001,2/3/2025 9:55:00 AM,Exit,$1.24,APEX-22\n" +
		"MES 03-25,Buy,1,6003,2/3/2025 9:57:00 AM,Entry,$0.62,EVAL-3\n"
	p := parseText(t, Options{PresetID: "ninjatrader", AccountMap: map[string]string{"Sim101": "j1", "APEX-22": "j2", "EVAL-3": ""}}, file)
	if len(p.Errors) != 0 || len(p.Fills) != 4 || p.Skipped != 1 {
		t.Fatalf("errors %+v fills %d skipped %d", p.Errors, len(p.Fills), p.Skipped)
	}
	if p.Fills[0].Account != "Sim101" || p.Fills[3].Account != "APEX-22" {
		t.Fatalf("fills' accounts %+v", p.Fills)
	}
	p = parseText(t, Options{PresetID: "ninjatrader", AccountMap: map[string]string{"Sim101": "j1"}}, file)
	if len(p.Errors) != 1 || p.Errors[0].Code != CodeMultipleAccounts || !strings.Contains(p.Errors[0].Message, "APEX-22, EVAL-3") {
		t.Fatalf("unmapped accounts: %+v", p.Errors)
	}
	// A row without its account cannot be placed.
	p = parseText(t, Options{PresetID: "ninjatrader", AccountMap: map[string]string{"Sim101": "j1"}},
		"Instrument,Action,Quantity,Price,Time,Account\nMES 03-25,Buy,1,6000,2/3/2025 9:31:05 AM,\n")
	if len(p.Errors) != 1 || p.Errors[0].Code != CodeMissingValue || p.Errors[0].Field != FieldAccount {
		t.Fatalf("empty account: %+v", p.Errors)
	}
	for _, opts := range []Options{
		{PresetID: "ninjatrader", FileAccount: "Sim101", AccountMap: map[string]string{"Sim101": "j1"}},
		{PresetID: "ninjatrader", AccountMap: map[string]string{}},
		{PresetID: "ninjatrader", AccountMap: map[string]string{" ": "j1"}},
	} {
		if _, err := Resolve(opts, "UTC", now, 10); err == nil || !strings.Contains(err.Error(), "accountMap") {
			t.Errorf("%+v: %v", opts.AccountMap, err)
		}
	}
	s, _ := Resolve(Options{PresetID: "generic-execution", AccountMap: map[string]string{"a": "j1"}}, "UTC", now, 10)
	if _, err := Parse(strings.NewReader("Date,Symbol,Quantity,Price\n2024-01-02,AAPL,1,1\n"), s); err == nil || !strings.Contains(err.Error(), "accountMap") {
		t.Fatalf("accountMap without an account column: %v", err)
	}
}

// TestTradeDate: a file of times only is read on the day given; the day
// is required by the preset that needs it and refused where the file has
// dates.
func TestTradeDate(t *testing.T) {
	p := parseText(t, Options{PresetID: "das-trader", TradeDate: "2025-03-04"},
		"Time,Symb,Side,Price,Qty,Route\n09:30:41,TSLA,B,240.10,50,SMAT\n9:41 AM,TSLA,S,241.35,50,SMAT\n,TSLA,B,1,1,SMAT\n25:00:00,TSLA,B,1,1,SMAT\n")
	if len(p.Fills) != 2 || p.Fills[0].FilledAt != time.Date(2025, 3, 4, 14, 30, 41, 0, time.UTC) ||
		p.Fills[1].FilledAt != time.Date(2025, 3, 4, 14, 41, 0, 0, time.UTC) {
		t.Fatalf("fills %+v", p.Fills)
	}
	if got := codes(p.Errors); !slices.Equal(got, []string{CodeInvalidTime, CodeMissingValue}) || p.Errors[0].Field != FieldTime {
		t.Fatalf("errors %+v", p.Errors)
	}
	// A mapping without a date column takes the day too.
	p = parseText(t, Options{TradeDate: "2025-03-04", Mapping: &Mapping{Columns: map[string]Column{
		FieldTime: {Name: "t"}, FieldSymbol: {Name: "s"}, FieldQuantity: {Name: "q"}, FieldPrice: {Name: "p"}}}}, "t,s,q,p\n10:00:00,AAPL,1,200\n")
	if len(p.Errors) != 0 || len(p.Fills) != 1 || p.Fills[0].FilledAt != time.Date(2025, 3, 4, 15, 0, 0, 0, time.UTC) {
		t.Fatalf("mapping: %+v %+v", p.Errors, p.Fills)
	}
	for _, opts := range []Options{
		{PresetID: "das-trader"},
		{PresetID: "das-trader", TradeDate: "03/04/2025"},
		{PresetID: "generic-execution", TradeDate: "2025-03-04"},
		{TradeDate: "2025-03-04", Mapping: &Mapping{Columns: map[string]Column{
			FieldDate: {Name: "d"}, FieldSymbol: {Name: "s"}, FieldQuantity: {Name: "q"}, FieldPrice: {Name: "p"}}}},
		{TradeDate: "2025-03-04", Mapping: &Mapping{Columns: map[string]Column{
			FieldSymbol: {Name: "s"}, FieldQuantity: {Name: "q"}, FieldPrice: {Name: "p"}}}},
	} {
		_, err := Resolve(opts, "America/New_York", now, 10)
		if err == nil || !strings.Contains(err.Error(), "tradeDate") && !strings.Contains(err.Error(), "time") {
			t.Errorf("%+v: %v", opts, err)
		}
	}
}

// TestExpiredOptionRoundTrip: the app's export writes an option that expired
// worthless as a sell at 0; importing it closes the position at that loss.
func TestExpiredOptionRoundTrip(t *testing.T) {
	file := "Account,Filled At,Symbol,Asset Type,Side,Quantity,Price,Fees\n" +
		"Main,2025-03-17T14:00:00Z,AAPL  250321C00200000,option,Buy,2,3.00,1.3000\n" +
		"Main,2025-03-21T20:00:00Z,AAPL  250321C00200000,option,Sell,2,0,0.0000\n"
	p := parseText(t, Options{PresetID: "tradejournal-export"}, file)
	plan := Build(p.Fills, Journal{}, BuildOptions{})
	if len(p.Errors) != 0 || len(plan.Errors) != 0 || len(plan.Positions) != 1 {
		t.Fatalf("errors %+v %+v", p.Errors, plan.Errors)
	}
	// 3.00 x 2 x 100 lost, and the entry's 1.30.
	if f := plan.Positions[0].Figures; f.Status != "closed" || f.NetPnL.String() != "-601.3" {
		t.Fatalf("figures %+v", f)
	}
}
