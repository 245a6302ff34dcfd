package assistant_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/market/markettest"
)

const tradierToken = "tradier-assistant-token-1618"

// spyChain is 40 strikes of SPY (500 to 695) at two expirations a week
// apart, the calls' delta falling from 0.795 by 0.02 a strike: the money
// is at 575 (delta 0.495), below the middle strike.
func spyChain(near, far string) []markettest.OptionContract {
	var out []markettest.OptionContract
	for i := range 40 {
		strike := fmt.Sprint(500 + 5*i)
		delta := fmt.Sprintf("%.3f", 0.795-0.02*float64(i))
		for _, exp := range []string{near, far} {
			out = append(out,
				markettest.OptionContract{Underlying: "SPY", Expiration: exp, Type: "call", Strike: strike, Bid: "1.5", Ask: "1.6", Last: "1.55",
					Volume: 100 + i, OpenInterest: 1000, Delta: delta, MidIV: "0.125"},
				markettest.OptionContract{Underlying: "SPY", Expiration: exp, Type: "put", Strike: strike, Ask: "0.9", Volume: i, OpenInterest: 50})
		}
	}
	return out
}

// The options_chain tool: offered where Tradier is configured, with or
// without journal consent (it reads nothing of the trader's), reading the
// nearest expiration by default, and showing the strikes nearest the money.
func TestOptionsChainTool(t *testing.T) {
	near := time.Now().AddDate(0, 0, 3).Format(time.DateOnly)
	far := time.Now().AddDate(0, 0, 10).Format(time.DateOnly)
	tradier := markettest.NewProvider(t, markettest.Tradier(tradierToken, spyChain(near, far), 0))
	p := newFakeProvider(t)
	cfg := assistantConfig(t, p)
	cfg.Market.TradierKey, cfg.Market.TradierURL = tradierToken, tradier.URL+"/v1"
	e := start(t, cfg, p)
	u := e.user("chain@example.com")
	u.credit(1_000_000)

	ask := func(key, args string) string {
		t.Helper()
		p.setScript(func(n int) (int, []step) {
			if n%2 == 0 {
				return 200, []step{{tool: &[3]string{"oc1", "options_chain", args}}, {usage: &[2]int64{10, 1}}, {done: true}}
			}
			return 200, []step{{text: "Here is the chain."}, {usage: &[2]int64{10, 1}}, {done: true}}
		})
		res := u.ask("new", "What does the SPY chain look like?", key)
		if got := eventNames(res); got != "start,tool_call,tool_result,delta,done" {
			t.Fatalf("events %s", got)
		}
		return res.Events[2].Data["result"].(string)
	}

	result := ask("k-chain-1", `{"symbol":"spy"}`)
	lines := strings.Split(strings.TrimSpace(result), "\n")
	if !strings.HasPrefix(lines[0], "SPY options expiring "+near) || lines[1] != "Other expirations: "+far {
		t.Fatalf("result:\n%s", result)
	}
	// 30 strikes around 575, from the lowest: 500 to 645.
	if !strings.Contains(result, "\n500 | 1.5 1.6 1.55 100 1000 0.795 12.5% | - 0.9 - 0 50 - -\n") ||
		!strings.Contains(result, "\n645 | ") || strings.Contains(result, "\n650 | ") ||
		!strings.Contains(result, "(30 of 40 strikes, those nearest the money; from 500 to 695)") {
		t.Fatalf("result:\n%s", result)
	}
	calls := p.calls()
	first, second := calls[len(calls)-2], calls[len(calls)-1]
	if !strings.Contains(first.Raw, `"name":"options_chain"`) || !strings.Contains(second.Raw, "SPY options expiring "+near) {
		t.Fatalf("the tool was not offered, or its result did not reach the model:\n%s", second.Raw)
	}

	if got := ask("k-chain-2", `{"symbol":"SPY","expiration":"`+far+`"}`); !strings.HasPrefix(got, "SPY options expiring "+far) {
		t.Fatalf("named expiration:\n%s", got)
	}
	if got := ask("k-chain-3", `{"symbol":"SPY","expiration":"2020-01-17"}`); got != "error: expiration has no SPY options on 2020-01-17; listed expirations include "+near+", "+far {
		t.Fatalf("unlisted expiration: %s", got)
	}
	if got := ask("k-chain-4", `{"symbol":"SPY","expiration":"next friday"}`); got != "error: expiration must be a date, YYYY-MM-DD" {
		t.Fatalf("bad expiration: %s", got)
	}
	if got := ask("k-chain-5", `{"symbol":"NOOPT"}`); got != "error: no options are listed for this symbol" {
		t.Fatalf("no options: %s", got)
	}

	// Without a Tradier token the tool is neither offered nor run.
	p2, _, v := startFunded(t, "nochain@example.com")
	p2.setScript(p.script)
	res := v.ask("new", "SPY chain?", "k-nochain")
	if got := res.Events[2].Data["result"].(string); got != `error: there is no tool named "options_chain"` || strings.Contains(p2.calls()[0].Raw, `"name":"options_chain"`) {
		t.Fatalf("without Tradier: %s", got)
	}
	// SPY's expirations once (cached), its two chains, NOOPT's expirations.
	if tradier.Calls() != 4 {
		t.Fatalf("%d calls reached Tradier, want 4", tradier.Calls())
	}
}
