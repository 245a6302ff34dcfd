package market_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"tradejournal/shared/market"
	"tradejournal/shared/market/markettest"
	"tradejournal/shared/testbin"
)

func TestCodeHostUserAgent(t *testing.T) {
	for _, tc := range []struct {
		ua      string
		refused bool
	}{
		{"TradeJournal self-hosted admin@example.invalid", false},
		{"Jane Doe jane@example.com", false},
		{"Acme Capital ops@acme.test", false},
		{"", false},
		{"mygithub.com ops@x.test", false},    // another domain
		{"Jane jane@github.community", false}, // another domain
		{"files at usr.htm, jane@example.com", false},
		{"Jane (gitlab.company.internal) jane@example.com", false},
		{"TradeJournal https://github.com/acme/tradejournal", true},
		{"TradeJournal github.com/acme/tradejournal", true},
		{"tradejournal (GitHub.COM)", true},
		{"bot@github.com", true},
		{"see api.github.com.", true},
		{"acme.github.io", true},
		{"https://gitlab.com/acme/tj", true},
		{"bitbucket.org/acme", true},
		{"codeberg.org/acme", true},
		{"https://git.sr.ht/~acme/tj", true},
		{"sr.ht", true},
		{"sourceforge.net/projects/tj", true},
		{"Jane Doe jane@example.com via github.com", true},
	} {
		if got := market.CodeHostUserAgent(tc.ua); got != tc.refused {
			t.Errorf("CodeHostUserAgent(%q) = %v, want %v", tc.ua, got, tc.refused)
		}
	}
}

func TestParseTickers(t *testing.T) {
	file := `{"fields":["cik","name","ticker","exchange"],"data":[
		[320193,"Apple Inc.","AAPL","Nasdaq"],
		[1000045,"NICHOLAS  FINANCIAL INC","NICK",null],
		[1067983,"BERKSHIRE HATHAWAY INC","brk-b","NYSE"],
		[320193,"Apple again","AAPL","Nasdaq"],
		[1,"Bad Ticker","WAY-TOO-LONG-TICKER","NYSE"],
		[2,"Bad/Char","A/B","NYSE"],
		[3,"","EMPTY","NYSE"],
		[-4,"Negative CIK","NEG","NYSE"],
		[5.5,"Fraction CIK","FRAC","NYSE"],
		["6","Quoted CIK","QCIK","NYSE"],
		[7,"Short row"],
		[8,null,"NULLN","NYSE"],
		[9,"Exchange number","EXN",5],
		[10,"Extra column","EXTRA","NYSE","more"]
	]}`
	got, skipped, err := market.ParseTickers(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var tickers []string
	for _, s := range got {
		tickers = append(tickers, s.Ticker)
	}
	if strings.Join(tickers, ",") != "AAPL,NICK,BRK-B,QCIK,EXTRA" || skipped != 9 {
		t.Fatalf("tickers %v, skipped %d", tickers, skipped)
	}
	if got[0].Name != "Apple Inc." || got[0].CIK != 320193 || got[0].Exchange == nil || *got[0].Exchange != "Nasdaq" {
		t.Fatalf("first row %+v", got[0])
	}
	if got[1].Exchange != nil || got[1].Name != "NICHOLAS FINANCIAL INC" {
		t.Fatalf("null exchange row %+v", got[1])
	}

	t.Run("ColumnsByName", func(t *testing.T) {
		got, _, err := market.ParseTickers(strings.NewReader(`{"fields":["ticker","exchange","cik","name"],"data":[["AAPL","Nasdaq",320193,"Apple Inc."]]}`))
		if err != nil || len(got) != 1 || got[0].Ticker != "AAPL" || got[0].CIK != 320193 || got[0].Name != "Apple Inc." {
			t.Fatalf("%+v %v", got, err)
		}
	})
	for _, tc := range []struct{ name, file, want string }{
		{"NotJSON", `<html>blocked</html>`, "not the expected JSON"},
		{"MissingField", `{"fields":["cik","name","ticker"],"data":[[1,"A","A"]]}`, `no "exchange" field`},
		{"NoRows", `{"fields":["cik","name","ticker","exchange"],"data":[]}`, "no usable row"},
		{"OnlyBadRows", `{"fields":["cik","name","ticker","exchange"],"data":[[0,"x","X","NYSE"]]}`, "no usable row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := market.ParseTickers(strings.NewReader(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("Generated", func(t *testing.T) {
		got, skipped, err := market.ParseTickers(bytes.NewReader(markettest.TickerFile(markettest.Generate(10_000))))
		if err != nil || len(got) != 10_000 || skipped != 0 {
			t.Fatalf("%d rows, %d skipped, %v", len(got), skipped, err)
		}
	})
}

// logs is a concurrency-safe buffer behind a JSON slog logger.
type logs struct{ testbin.SyncBuffer }

// Lines returns the records at level ("ERROR", "WARN", ...).
func (l *logs) Lines(level string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == level {
			out = append(out, rec)
		}
	}
	return out
}

func newLogger() (*slog.Logger, *logs) {
	l := &logs{}
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})), l
}
