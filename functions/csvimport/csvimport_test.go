package csvimport_test

import (
	"bytes"
	"cmp"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apitest"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/config"
)

func TestPresetsRoute(t *testing.T) {
	f := setup(t, nil)
	r := apitest.Must(t, f.a.Do("GET", "/api/csv-import/presets", nil), 200)
	items := r.JSON["items"].([]any)
	var ids []string
	for _, it := range items {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	for _, want := range []string{"generic-execution", "generic-round-trip", "ibkr-flex-trades", "thinkorswim", "webull",
		"tradovate", "tradestation", "tradervue", "tradezella"} {
		if !slices.Contains(ids, want) {
			t.Errorf("presets lack %s: %v", want, ids)
		}
	}
	if lim := apitest.Object(t, r, "limits"); lim["maxFileBytes"].(float64) != 10<<20 || lim["maxRows"].(float64) != 10000 || lim["stagingTtlMinutes"].(float64) != 30 {
		t.Errorf("limits %v", lim)
	}
	apitest.Run(t, f.srv.Client(t), []apitest.Case{
		{Name: "Unauthenticated", Method: "GET", Path: "/api/csv-import/presets", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "UnauthenticatedPreview", Method: "POST", Path: "/api/csv-import/preview", Status: 401, Code: "UNAUTHENTICATED"},
		{Name: "UnknownPath", Method: "GET", Path: "/api/csv-import/nope", Status: 404},
	})
}

// TestImportSamples previews and commits every preset's sample through the
// API and checks the journal afterwards: positions, fills, figures, the
// ledger and the balance. Futures (Tradovate, thinkorswim's /MESH24) become
// futures positions with their contract's point value as multiplier.
func TestImportSamples(t *testing.T) {
	f := setup(t, nil)
	// The futures of the samples: multiplier, contract root and month, and
	// the gross P&L worked out by hand (points x contracts x point value).
	futures := map[string]struct {
		mult               float64
		root, month, gross string
	}{
		"ESH24":  {50, "ES", "2024-03", "225.0000"}, // 4.5 x 1 x 50
		"MNQH24": {2, "MNQ", "2024-03", "77.0000"},  // 19.25 x 2 x 2, short
		"MESH24": {5, "MES", "2024-03", "112.5000"}, // 11.25 x 2 x 5
		// The broker files of the second round, by preset.
		"ibkr-activity-statement/MESH25": {5, "MES", "2025-03", "53.7500"},   // 10.75 x 1 x 5
		"tradovate-performance/MNQH25":   {2, "MNQ", "2025-03", "53.0000"},   // 13.25 x 2 x 2
		"tradovate-performance/ESH25":    {50, "ES", "2025-03", "-137.5000"}, // sold first: -2.75 x 1 x 50
		"ninjatrader/MNQH25":             {2, "MNQ", "2025-03", "50.0000"},   // 12.5 x 2 x 2
		"ninjatrader/MESH25":             {5, "MES", "2025-03", "21.2500"},   // short 4.25 x 1 x 5
		"tradingview/MESH25":             {5, "MES", "2025-03", "75.0000"},   // 7.5 x 2 x 5
		"projectx/MNQH25":                {2, "MNQ", "2025-03", "49.0000"},   // 12.25 x 2 x 2
		"projectx/MESH25":                {5, "MES", "2025-03", "-16.2500"},  // short -3.25 x 1 x 5
		"tastytrade/MESH25":              {5, "MES", "2025-03", "56.2500"},   // 11.25 x 1 x 5
		"tradejournal-export/NQH24":      {20, "NQ", "2024-03", "195.0000"},  // short 9.75 x 1 x 20
	}
	// The account currency of a sample that is not in dollars (Binance's
	// euro pairs). Bybit's positions, in USDT (which no exchange rate turns
	// into dollars), import waiting for a rate.
	currency := map[string]string{"binance": "EUR"}
	seenFutures := 0
	for _, p := range brokerfile.Presets() {
		t.Run(p.ID, func(t *testing.T) {
			// An account per file (the samples come from different brokers),
			// on the Interactive Brokers schedule: files without fees get
			// estimates.
			cur := cmp.Or(currency[p.ID], "USD")
			f.accountA = apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": p.ID, "currency": cur,
				"startingBalance": "25000", "brokerageId": ibFixed}), 201), "account")["id"].(string)
			before := f.counts(t)
			balance := f.balance(t, f.accountA)
			opts := map[string]any{"accountId": f.accountA, "presetId": p.ID}
			if p.NeedsDate {
				opts["tradeDate"] = "2025-03-04"
			}
			if p.NeedsSymbol {
				opts["symbol"] = "AAPL"
			}
			r := apitest.Must(t, preview(t, f.a, opts, sample(t, p.Sample)), 200)
			if r.JSON["canCommit"] != true || len(errorCodes(r)) != 0 {
				t.Fatalf("preview %s", r.Body)
			}
			sum := apitest.Object(t, r, "summary")
			token := r.JSON["token"].(string)
			if f.counts(t).staged != before.staged+1 {
				t.Fatal("preview staged nothing")
			}
			c := apitest.Must(t, commit(f.a, token, false), 201)
			imp := apitest.Object(t, c, "import")
			if imp["positionsCreated"].(float64) != sum["positions"].(float64) || imp["fillsCreated"].(float64) != sum["importFills"].(float64) {
				t.Fatalf("commit %s for preview summary %v", c.Body, sum)
			}
			after := f.counts(t)
			if after.positions-before.positions != int(sum["positions"].(float64)) || after.fills-before.fills != int(sum["importFills"].(float64)) ||
				after.staged != before.staged {
				t.Fatalf("counts %+v -> %+v", before, after)
			}
			// The balance moved by the previewed net P&L.
			net := decimal.RequireFromString(sum["netPnl"].(string))
			if got := f.balance(t, f.accountA); !got.Equal(balance.Add(net)) {
				t.Fatalf("balance %s, want %s + %s", got, balance, net)
			}
			// Each created position reads back through the positions API
			// with its previewed figures.
			ids := imp["positionIds"].([]any)
			previewed := r.JSON["positions"].([]any)
			for i, id := range ids {
				pos := apitest.Object(t, apitest.Must(t, f.a.Do("GET", "/api/positions/"+id.(string), nil), 200), "position")
				want := previewed[i].(map[string]any)
				if pos["symbol"] != want["symbol"] || pos["assetType"] != want["assetType"] || pos["status"] != want["status"] ||
					pos["netPnl"] != want["netPnl"] || pos["grossPnl"] != want["grossPnl"] || len(pos["fills"].([]any)) != int(want["fills"].(float64)) {
					t.Errorf("position %v, previewed %v", pos, want)
				}
				fut, ok := futures[pos["symbol"].(string)]
				if !ok {
					fut, ok = futures[p.ID+"/"+pos["symbol"].(string)]
				}
				if ok {
					seenFutures++
					if pos["assetType"] != "future" || pos["multiplier"] != fut.mult || want["multiplier"] != fut.mult || pos["underlying"] != fut.root ||
						pos["contractMonth"] != fut.month || pos["grossPnl"] != fut.gross {
						t.Errorf("future %v, want %+v", pos, fut)
					}
				} else if pos["assetType"] == "future" {
					t.Errorf("unexpected future %v", pos)
				}
			}
			f.checkLedger(t)
		})
	}
	if seenFutures != len(futures) {
		t.Errorf("%d of the samples' %d futures positions read back", seenFutures, len(futures))
	}
}

// TestBadInput: each bad request is a precise 4xx, or a preview with
// located errors, and nothing is written or staged.
func TestBadInput(t *testing.T) {
	f := setup(t, func(c *config.CSVImport) {
		c.MaxFileBytes, c.MaxRequestBytes, c.MaxRows = 4096, 512, 20
	})
	header := "Date,Time,Symbol,Side,Quantity,Price\n"
	row := "2024-01-16,09:31:05,AAPL,Buy,100,184.25\n"
	opts := map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}
	withOpts := func(edit func(map[string]any)) map[string]any {
		o := map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}
		edit(o)
		return o
	}
	type tc struct {
		name   string
		ct     string
		body   []byte
		status int
		code   string
		field  string // a detail's field, for VALIDATION_ERROR
	}
	body := func(parts ...part) (string, []byte) { return multipartBody(t, parts...) }
	var cases []tc
	add := func(name string, status int, code, field string, parts ...part) {
		ct, b := body(parts...)
		cases = append(cases, tc{name, ct, b, status, code, field})
	}
	add("WrongDelimiter", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts), filePart([]byte("Date;Time;Symbol;Side;Quantity;Price\n2024-01-16;09:31:05;AAPL;Buy;100;184.25\n")))
	add("MissingColumns", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts), filePart([]byte("Date,Symbol,Quantity\n2024-01-16,AAPL,100\n")))
	add("UnknownAccount", 400, "VALIDATION_ERROR", "accountId", optionsPart(t, withOpts(func(o map[string]any) { o["accountId"] = "0b9d8f4e-1c2a-4e5f-9a7b-1234567890ab" })), filePart([]byte(header+row)))
	add("OtherUsersAccount", 400, "VALIDATION_ERROR", "accountId", optionsPart(t, withOpts(func(o map[string]any) { o["accountId"] = f.accountB })), filePart([]byte(header+row)))
	add("MalformedAccount", 400, "VALIDATION_ERROR", "accountId", optionsPart(t, withOpts(func(o map[string]any) { o["accountId"] = "1" })), filePart([]byte(header+row)))
	add("NoAccount", 400, "VALIDATION_ERROR", "accountId", optionsPart(t, map[string]any{"presetId": "webull"}), filePart([]byte(header+row)))
	add("Binary", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts), filePart([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")))
	add("Excel", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts), filePart([]byte("PK\x03\x04\x14\x00\x06\x00\x08\x00")))
	add("Empty", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts), filePart(nil))
	add("HeaderOnly", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts), filePart([]byte(header)))
	add("TooManyRows", 413, "PAYLOAD_TOO_LARGE", "", optionsPart(t, opts), filePart([]byte(header+strings.Repeat(row, 21))))
	add("FileTooLarge", 413, "PAYLOAD_TOO_LARGE", "", optionsPart(t, opts), filePart(append([]byte(header), bytes.Repeat([]byte(row), 4096/len(row)+1)...)))
	add("OptionsTooLarge", 413, "PAYLOAD_TOO_LARGE", "", part{name: "options", content: []byte(`{"accountId":"` + f.accountA + `","presetId":"` + strings.Repeat("x", 600) + `"}`)}, filePart([]byte(header+row)))
	add("OptionsMissing", 400, "VALIDATION_ERROR", "options")
	add("FileMissing", 400, "VALIDATION_ERROR", "file", optionsPart(t, opts))
	add("FileBeforeOptions", 400, "VALIDATION_ERROR", "options", filePart([]byte(header+row)), optionsPart(t, opts))
	add("UnknownPart", 400, "VALIDATION_ERROR", "notes", optionsPart(t, opts), part{name: "notes", content: []byte("x")})
	add("PartAfterFile", 400, "VALIDATION_ERROR", "extra", optionsPart(t, opts), filePart([]byte(header+row)), part{name: "extra", content: []byte("x")})
	add("OptionsNotJSON", 400, "INVALID_JSON", "", part{name: "options", content: []byte("accountId=1")}, filePart([]byte(header+row)))
	add("OptionsUnknownField", 400, "VALIDATION_ERROR", "colour", part{name: "options", content: []byte(`{"colour":"red"}`)}, filePart([]byte(header+row)))
	add("NoPresetNoMappingNotDetected", 400, "VALIDATION_ERROR", "presetId", optionsPart(t, map[string]any{"accountId": f.accountA}), filePart([]byte("Colour,Size\nred,1\n")))
	add("BadMappingColumn", 400, "VALIDATION_ERROR", "mapping.columns.price", optionsPart(t, map[string]any{"accountId": f.accountA,
		"mapping": map[string]any{"columns": map[string]any{"date": "Date", "symbol": "Symbol", "quantity": "Quantity", "price": true}}}), filePart([]byte(header+row)))
	cases = append(cases,
		tc{"NotMultipart", "application/json", []byte(`{"accountId":"x"}`), 415, "UNSUPPORTED_MEDIA_TYPE", ""},
		tc{"NoBoundary", "multipart/form-data", []byte("--x\r\n"), 415, "UNSUPPORTED_MEDIA_TYPE", ""},
	)
	ct, cut := body(optionsPart(t, opts), filePart([]byte(header+row)))
	cases = append(cases, tc{"CutShort", ct, cut[:len(cut)-20], 400, "VALIDATION_ERROR", "file"})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := send(t, f.a, c.ct, c.body)
			if r.Status != c.status || r.ErrorCode() != c.code {
				t.Fatalf("got %d %s, want %d %s: %s", r.Status, r.ErrorCode(), c.status, c.code, r.Body)
			}
			apitest.CheckErrorShape(t, r)
			if c.field != "" {
				details, _ := apitest.Object(t, r, "error")["details"].([]any)
				if len(details) == 0 || details[0].(map[string]any)["field"] != c.field {
					t.Fatalf("details %v, want field %s", details, c.field)
				}
			}
		})
	}

	// Bad values are a 200 preview with located errors that cannot be
	// committed as a whole; the readable rest is staged as a partial
	// import (written only on confirmation: TestPartialImport).
	t.Run("LocatedErrors", func(t *testing.T) {
		file := header + row +
			"2024-01-32,09:31:05,AAPL,Sell,100,185\n" +
			"2024-01-17,09:31:05,AAPL,Sell,100,1.85.3\n" +
			"2024-01-17,09:31:05,TSLA,Buy,10,\"20\n0\"\n" + // a quoted line break: the record spans lines 5 and 6
			"2024-01-18,10:00:00,MSFT,Buy,10,400\n" +
			"2024-01-18,11:00:00,MSFT,Sell,15,401\n" // a reversal: not an error

		r := apitest.Must(t, preview(t, f.a, opts, []byte(file)), 200)
		if r.JSON["canCommit"] != false || r.JSON["canImportPartial"] != true || r.JSON["token"] == nil {
			t.Fatalf("%s", r.Body)
		}
		errs := r.JSON["errors"].([]any)
		want := []struct {
			row   float64
			field string
			code  string
		}{{3, "date", brokerfile.CodeInvalidDate}, {4, "price", brokerfile.CodeInvalidNumber}, {5, "price", brokerfile.CodeInvalidNumber}}
		if len(errs) != len(want) {
			t.Fatalf("errors %v", errs)
		}
		for i, w := range want {
			e := errs[i].(map[string]any)
			if e["row"] != w.row || e["field"] != w.field || e["code"] != w.code || e["column"].(float64) == 0 || e["columnName"] == "" {
				t.Errorf("error %d: %v, want %+v", i, e, w)
			}
		}
	})
	// A chunked upload (no Content-Length to believe) over the cap.
	t.Run("ChunkedTooLarge", func(t *testing.T) {
		ct, b := body(optionsPart(t, opts), filePart(append([]byte(header), bytes.Repeat([]byte(row), 200)...)))
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/csv-import/preview", io.MultiReader(bytes.NewReader(b)))
		req.ContentLength = -1
		req.Header.Set("Content-Type", ct)
		r := f.a.Send(req)
		if r.Status != 413 || r.ErrorCode() != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	if c := f.counts(t); c != (counts{staged: 1}) {
		t.Fatalf("bad input wrote %+v (only the partial preview is staged)", c)
	}
}

// TestFileAtTheCap: a file of exactly CSV_IMPORT_MAX_FILE_BYTES is read.
func TestFileAtTheCap(t *testing.T) {
	f := setup(t, func(c *config.CSVImport) { c.MaxFileBytes = 4096 })
	data := []byte("Date,Time,Symbol,Side,Quantity,Price\n2024-01-16,09:31:05,AAPL,Buy,100,184.25\n")
	data = append(data, bytes.Repeat([]byte(" "), 4096-len(data))...)
	r := apitest.Must(t, preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, data), 200)
	if r.JSON["canCommit"] != true {
		t.Fatalf("%s", r.Body)
	}
	ct, body := multipartBody(t, optionsPart(t, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}), filePart(append(data, 'x')))
	apitest.Must(t, send(t, f.a, ct, body), 413)
}

// TestTimezoneDefaultsToTheAccountZone: a file's wall-clock times are read in
// the account's trading-day zone unless the options name another zone.
func TestTimezoneDefaultsToTheAccountZone(t *testing.T) {
	f := setup(t, nil)
	tokyo := apitest.Object(t, apitest.Must(t, f.a.Do("POST", "/api/accounts", map[string]any{"name": "Tokyo", "currency": "USD",
		"timezone": "Asia/Tokyo"}), 201), "account")["id"].(string)
	file := []byte("Date,Time,Symbol,Side,Quantity,Price\n2024-01-16,09:31:05,AAPL,Buy,100,184.25\n")
	for _, tc := range []struct {
		name, zone, want string
	}{
		{"AccountZone", "", "2024-01-16T00:31:05Z"},
		{"OptionWins", "America/New_York", "2024-01-16T14:31:05Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]any{"accountId": tokyo, "presetId": "generic-execution"}
			if tc.zone != "" {
				opts["timezone"] = tc.zone
			}
			r := apitest.Must(t, preview(t, f.a, opts, file), 200)
			pos := r.JSON["positions"].([]any)
			if len(pos) != 1 || pos[0].(map[string]any)["openedAt"] != tc.want {
				t.Fatalf("positions %v, want opened at %s", pos, tc.want)
			}
		})
	}
}

// TestStagedResultTooLarge: a preview whose staged result would pass
// CSV_IMPORT_MAX_STAGED_BYTES is a 413 and stages nothing.
func TestStagedResultTooLarge(t *testing.T) {
	f := setup(t, func(c *config.CSVImport) { c.MaxStagedBytes = 64 })
	file := []byte("Date,Time,Symbol,Side,Quantity,Price\n" +
		"2024-01-16,09:31:05,AAPL,Buy,100,184.25\n2024-01-16,10:31:05,AAPL,Sell,100,185.25\n")
	r := preview(t, f.a, map[string]any{"accountId": f.accountA, "presetId": "generic-execution"}, file)
	if r.Status != 413 || r.ErrorCode() != "PAYLOAD_TOO_LARGE" || !bytes.Contains(r.Body, []byte("CSV_IMPORT_MAX_STAGED_BYTES")) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	apitest.CheckErrorShape(t, r)
	if c := f.counts(t); c != (counts{}) {
		t.Fatalf("an oversized preview wrote %+v", c)
	}
}
