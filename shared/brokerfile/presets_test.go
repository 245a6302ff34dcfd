package brokerfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/sizing"
)

// now is the tests' clock: after every sample's dates.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// load parses a testdata file with a preset and builds the plan against
// an empty journal of a dollar account.
func load(t testing.TB, presetID, file string, opts Options) (*Parsed, *Plan) {
	return loadIn(t, presetID, file, opts, "USD")
}

// loadIn is load into an account of currency ("" leaves forex, crypto and
// CFD figures in their quote currency).
func loadIn(t testing.TB, presetID, file string, opts Options, currency string) (*Parsed, *Plan) {
	t.Helper()
	opts.PresetID = presetID
	s, err := Resolve(opts, "America/New_York", now, 10000)
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parsed, err := Parse(f, s)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	parsed.Warnings = append(parsed.Warnings, EstimateFees(parsed.Fills, parsed.HasFees, nil)...)
	return parsed, Build(parsed.Fills, Journal{Currency: currency}, BuildOptions{Header: parsed.Header})
}

type wantPosition struct {
	symbol, side, status string
	fills                int
	net                  string
}

func codes(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(out, p.Code) {
			out = append(out, p.Code)
		}
	}
	slices.Sort(out)
	return out
}

// TestPresetSamples imports every preset's sample (testdata/) and checks
// the positions and P&L worked out by hand from the file.
func TestPresetSamples(t *testing.T) {
	cases := []struct {
		preset        string
		opts          Options
		currency      string // the account's: USD unless "-" (none: quote-currency figures)
		rows, skipped int
		positions     []wantPosition
		net           string
		warnings      []string // codes, sorted
		errors        []string
	}{
		{preset: "generic-execution", rows: 8, positions: []wantPosition{
			{"AAPL", "long", "closed", 3, "107"},
			{"TSLA", "short", "closed", 2, "103"},
			{"AAPL  240119C00190000", "long", "closed", 2, "107.4"},
			{"MSFT", "long", "open", 1, "-1"},
		}, net: "316.4"},
		{preset: "generic-round-trip", rows: 3, positions: []wantPosition{
			{"NVDA", "long", "closed", 2, "328"},
			{"AMD", "short", "closed", 2, "338"},
			{"SPY", "long", "closed", 2, "-12.5"},
		}, net: "653.5"},
		// This app's own export: AAPL 1.75 x 100 less 2; the calls 0.70 x 2
		// x 100 less 2.60; NQ short 9.75 x 20 less 4.08; MSFT's sell of 15
		// reverses the long 10 (10 x 10 less 1.00 of the 1.50) into a short 5.
		{preset: "tradejournal-export", rows: 8, positions: []wantPosition{
			{"AAPL", "long", "closed", 2, "173"},
			{"AAPL  240119C00190000", "long", "closed", 2, "137.4"},
			{"NQH24", "short", "closed", 2, "190.92"},
			{"MSFT", "long", "closed", 2, "99"},
			{"MSFT", "short", "open", 1, "-0.5"},
		}, net: "599.82", warnings: []string{CodeDirectionInferred, CodeReversal}},
		// IB's commissions are negative amounts: charges. The forex trade
		// (AssetClass CASH): 0.0019 x 1,000 EUR = 1.90 USD less 4.00.
		{preset: "ibkr-flex-trades", rows: 8, positions: []wantPosition{
			{"AAPL", "long", "closed", 2, "90.9977"},
			{"SPY   240126C00485000", "long", "closed", 2, "266.1"},
			{"EUR/USD", "long", "closed", 2, "-2.1"},
			{"MSFT", "short", "closed", 2, "133"},
		}, net: "487.9977"},
		{preset: "thinkorswim", rows: 10, positions: []wantPosition{
			// Newest first in the file; spread legs inherit their time.
			{"AAPL", "long", "closed", 2, "93"},
			{"SPY   240126C00490000", "short", "closed", 2, "-140"},
			{"SPY   240126C00485000", "long", "closed", 2, "250"},
			// /MESH24: 11.25 points x 2 contracts x 5.
			{"MESH24", "long", "closed", 2, "112.5"},
			{"TSLA", "short", "closed", 2, "165"},
		}, net: "480.5", warnings: []string{CodeNoFeesColumn}},
		{preset: "webull", rows: 6, skipped: 1, positions: []wantPosition{
			{"AMD", "long", "open", 1, "0"},
			{"NVDA", "long", "closed", 2, "149"},
			{"SPY   240202C00490000", "long", "closed", 2, "45"},
		}, net: "194", warnings: []string{CodeNoFeesColumn, CodeRowsSkipped}},
		{preset: "tradestation", rows: 7, skipped: 1, positions: []wantPosition{
			{"AMZN", "long", "closed", 2, "92.4"},
			{"META", "short", "closed", 2, "-95"},
			{"AAPL  240202C00190000", "long", "closed", 2, "211.2"},
		}, net: "208.6", warnings: []string{CodeRowsSkipped}},
		{preset: "tradervue", rows: 3, positions: []wantPosition{
			{"GNLN", "long", "closed", 2, "74.06"},
			{"SOAR", "short", "closed", 2, "43.8"},
			{"AAPL", "long", "closed", 2, "-67"},
		}, net: "50.86"},
		{preset: "tradezella", rows: 6, positions: []wantPosition{
			{"QQQ", "long", "closed", 2, "55.43"},
			{"QQQ   240223C00435000", "long", "closed", 3, "342.32"},
			{"IWM", "short", "open", 1, "-0.03"},
		}, net: "397.72", warnings: []string{CodeDirectionInferred}},
		{preset: "tradovate", rows: 5, skipped: 1, positions: []wantPosition{
			// 4.5 points x 1 x 50, and a short of 19.25 points x 2 x 2.
			{"ESH24", "long", "closed", 2, "225"},
			{"MNQH24", "short", "closed", 2, "77"},
		}, net: "302", warnings: []string{CodeDirectionInferred, CodeNoFeesColumn, CodeRowsSkipped}},
		// IB's Activity Statement: the Trades table's order rows. AAPL 1.25
		// x 100 less 2.0123; SPY calls 1.25 x 2 x 100 less 2.60; MES 10.75 x
		// 5 less 1.24. Forex: EUR.USD 0.0028 x 10,000 = 28 USD less 4;
		// USD.JPY short 0.30 x 5,000 = 1,500 JPY at the cover's 1/150.90
		// (0.006626905235) = 9.9404 USD, less 4.
		{preset: "ibkr-activity-statement", rows: 10, positions: []wantPosition{
			{"AAPL", "long", "closed", 2, "122.9877"},
			{"SPY   250321C00600000", "long", "closed", 2, "247.4"},
			{"MESH25", "long", "closed", 2, "52.51"},
			{"EUR/USD", "long", "closed", 2, "24"},
			{"USD/JPY", "short", "closed", 2, "5.9404"},
		}, net: "452.8381", warnings: []string{CodeDirectionInferred}},
		// AMD 2.15 x 100; QQQ calls 0.95 x 3 x 100; newest first in the file.
		{preset: "thinkorswim-filled-orders", rows: 4, positions: []wantPosition{
			{"AMD", "long", "closed", 2, "215"},
			{"QQQ   250321C00530000", "long", "closed", 2, "285"},
		}, net: "500", warnings: []string{CodeNoFeesColumn}},
		// ES sold before it was bought: a short of 2.75 points x 50.
		{preset: "tradovate-performance", rows: 2, positions: []wantPosition{
			{"MNQH25", "long", "closed", 2, "53"},
			{"ESH25", "short", "closed", 2, "-137.5"},
		}, net: "-84.5", warnings: []string{CodeNoFeesColumn}},
		// MNQ 12.5 x 2 x 2 less 2.48; MES short 4.25 x 5 less 1.24.
		{preset: "ninjatrader", rows: 4, positions: []wantPosition{
			{"MNQH25", "long", "closed", 2, "47.52"},
			{"MESH25", "short", "closed", 2, "20.01"},
		}, net: "67.53"},
		// SOFI 0.36 x 500 less 1.64 (ECN Remove, SEC, TAF); PLTR short
		// 0.85 x 100 less 0.63.
		{preset: "tradezero", rows: 4, positions: []wantPosition{
			{"SOFI", "long", "closed", 2, "178.36"},
			{"PLTR", "short", "closed", 2, "84.37"},
		}, net: "262.73"},
		// Newest first, dates only: AAPL bought and sold on 02/04 in that
		// order (155 less 0.02; the buy's empty fee estimated at 0 here);
		// NVDA calls 1.30 x 2 x 100 less 2.64.
		{preset: "schwab-transactions", rows: 6, skipped: 2, positions: []wantPosition{
			{"AAPL", "long", "closed", 2, "154.98"},
			{"NVDA  250321C00130000", "long", "closed", 2, "257.36"},
		}, net: "412.34", warnings: []string{CodeFeesEstimated, CodeRowsSkipped}},
		// SPY puts 0.93 x 100 less 1.32; AMD 3.71 x 100.
		{preset: "etrade", rows: 5, skipped: 1, positions: []wantPosition{
			{"SPY   250221P00600000", "long", "closed", 2, "91.68"},
			{"AMD", "long", "closed", 2, "371"},
		}, net: "462.68", warnings: []string{CodeRowsSkipped}},
		// MSFT 5.30 x 20 less 0.01; NVDA puts 1.25 x 100 less 1.36; the
		// dividend and the two disclaimer lines skipped.
		{preset: "fidelity", rows: 7, skipped: 3, positions: []wantPosition{
			{"MSFT", "long", "closed", 2, "105.99"},
			{"NVDA  260710P00195000", "long", "closed", 2, "123.64"},
		}, net: "229.63", warnings: []string{CodeFeesEstimated, CodeRowsSkipped}},
		// HOOD 2.15 x 30; NVDA calls (from the description) 1.10 x 2 x 100.
		{preset: "robinhood", rows: 7, skipped: 3, positions: []wantPosition{
			{"HOOD", "long", "closed", 2, "64.5"},
			{"NVDA  250321C00140000", "long", "closed", 2, "220"},
		}, net: "284.5", warnings: []string{CodeNoFeesColumn, CodeRowsSkipped}},
		// MES 7.5 x 2 x 5 less 2.48; AAPL 1.75 x 10; the cancelled order
		// skipped.
		{preset: "tradingview", rows: 5, skipped: 1, positions: []wantPosition{
			{"MESH25", "long", "closed", 2, "72.52"},
			{"AAPL", "long", "closed", 2, "17.5"},
		}, net: "90.02", warnings: []string{CodeRowsSkipped}},
		// MNQ 12.25 x 2 x 2 less 1.48; MES short -3.25 x 5 less 0.74.
		{preset: "projectx", rows: 2, positions: []wantPosition{
			{"MNQH25", "long", "closed", 2, "47.52"},
			{"MESH25", "short", "closed", 2, "-16.99"},
		}, net: "30.53"},
		// AAPL 1.60 x 10 less 1.00. EURUSD 0.1 lot = 10,000 units x 0.0005
		// = 5 USD. USDJPY short 0.2 lot: 0.45 x 20,000 = 9,000 JPY, Profit
		// 60.08 USD (rate 60.08/9,000 = 0.006675555556), less 1.40 + 1.40
		// + the 0.85 swap: 56.43. GER40 (a CFD, 1 lot) 29.5 points, Profit
		// 30.98 USD, less 0.50 and 0.50 less the 0.20 swap credit: 30.18.
		// XAUUSD 0.05 lot = 5 oz x 5.75 = 28.75, less 0.70 and the 1.20
		// swap: 26.85. BTCUSD 0.1 lot = 0.1 BTC x 500 = 50. The balance
		// and totals lines skipped.
		{preset: "metatrader5", rows: 14, skipped: 2, positions: []wantPosition{
			{"AAPL", "long", "closed", 2, "15"},
			{"EUR/USD", "long", "closed", 2, "5"},
			{"USD/JPY", "short", "closed", 2, "56.43"},
			{"GER40", "long", "closed", 2, "30.18"},
			{"XAU/USD", "long", "closed", 2, "26.85"},
			{"BTC/USD", "long", "closed", 2, "50"},
		}, net: "183.46", warnings: []string{CodeRowsSkipped}},
		// Average Price is per contract: divided by the multiplier. SPY
		// 3.10 x 10 less 0.02; TSLA calls 3.15 x 100 less 1.28; MES 11.25 x
		// 5 less 2.24; the money movement skipped.
		{preset: "tastytrade", rows: 7, skipped: 1, positions: []wantPosition{
			{"SPY", "long", "closed", 2, "30.98"},
			{"TSLA  250321C00400000", "long", "closed", 2, "313.72"},
			{"MESH25", "long", "closed", 2, "54.01"},
		}, net: "398.71", warnings: []string{CodeRowsSkipped}},
		// F 0.12 x 500 less 0.13; INTC 0.65 x 200 less 0.07.
		{preset: "firstrade", rows: 5, skipped: 1, positions: []wantPosition{
			{"F", "long", "closed", 2, "59.87"},
			{"INTC", "long", "closed", 2, "129.93"},
		}, net: "189.8", warnings: []string{CodeRowsSkipped}},
		// AMD 0.75 x 200 less 2.74 (commissions, Fee1, SEC, TAF); NIO short
		// 0.05 x 1000 less 2.59.
		{preset: "lightspeed", rows: 4, positions: []wantPosition{
			{"AMD", "long", "closed", 2, "147.26"},
			{"NIO", "short", "closed", 2, "47.41"},
		}, net: "194.67", warnings: []string{CodeDirectionInferred}},
		// Times only, on the day given: TSLA 1.25 x 50; GME short 0.39 x 300.
		{preset: "das-trader", opts: Options{TradeDate: "2025-03-04"}, rows: 4, positions: []wantPosition{
			{"TSLA", "long", "closed", 2, "62.5"},
			{"GME", "short", "closed", 2, "117"},
		}, net: "179.5", warnings: []string{CodeNoFeesColumn}},
		// Paired rows of one chart's symbol: AAPL 1.00 x 100 less 2; a short
		// of 0.50 x 50 less 2 (the exit rows' Shares/Ctrts cells are profits).
		{preset: "tradestation-trades", opts: Options{Symbol: "AAPL"}, rows: 4, positions: []wantPosition{
			{"AAPL", "long", "closed", 2, "98"},
			{"AAPL", "short", "closed", 2, "23"},
		}, net: "121"},
		// Newest first, dates only: NVDA 2.70 x 50; the TSLA calls of Merrill's
		// code TSLA#B1326C425000 3.45 x 2 x 100; the SOFI puts (SOFI#O2125D140000,
		// 14 strike, 4 places) -0.30 x 3 x 100; the interest, the expiry and the
		// transfer skipped.
		{preset: "merrill-edge", rows: 9, skipped: 3, positions: []wantPosition{
			{"NVDA", "long", "closed", 2, "135"},
			{"TSLA  260213C00425000", "long", "closed", 2, "690"},
			{"SOFI  250321P00014000", "long", "closed", 2, "-90"},
		}, net: "735", warnings: []string{CodeNoFeesColumn, CodeRowsSkipped}},
		// AAPL 1.75 x 20; EUR/USD short 0.0019 x 10,000 = 19 USD (Gross
		// P/L 19.00: rate 1); NVDA short 1.20 x 15; US500 (a CFD) 21.5 x 2
		// = 43 less the 0.35 swap.
		{preset: "avatrade", rows: 4, positions: []wantPosition{
			{"EUR/USD", "short", "closed", 2, "19"},
			{"AAPL", "long", "closed", 2, "35"},
			{"NVDA", "short", "closed", 2, "18"},
			{"US500", "long", "closed", 2, "42.65"},
		}, net: "114.65", warnings: []string{CodeNoFeesColumn}},
		// EURUSD 0.5 lot = 50,000 x 0.00255 = 127.50 less 3.50. GBPJPY short
		// 0.3 lot: 0.55 x 30,000 = 16,500 JPY, Profit 110.28 USD (rate
		// 0.006683636364), less 2.10 and the 1.35 swap: 106.83. US500 short
		// 1 lot x 28.5. XAUUSD 0.1 lot = 10 oz x -6.50 = -65, less 0.70 less
		// the 0.45 swap credit. The balance, the cancelled buy limit, the
		// totals and Closed P/L lines skipped.
		{preset: "metatrader4", rows: 8, skipped: 4, positions: []wantPosition{
			{"EUR/USD", "long", "closed", 2, "124"},
			{"GBP/JPY", "short", "closed", 2, "106.83"},
			{"US500", "short", "closed", 2, "28.5"},
			{"XAU/USD", "long", "closed", 2, "-65.25"},
		}, net: "194.08", warnings: []string{CodeRowsSkipped}},
		// EURUSD 0.50 Lots = 50,000 x 0.00245 = 122.50 less 3.50. USDCHF
		// short 1 lot: 0.0024 x 100,000 = 240 CHF, Gross 268.43 USD (rate
		// 1.118458333333), less 7.00 and the 2.40 swap. US30 2 lots x -55.5.
		// BTCUSD short 0.05 BTC x 800 = 40, less 2.00 and 0.60.
		{preset: "ctrader", rows: 4, positions: []wantPosition{
			{"EUR/USD", "long", "closed", 2, "119"},
			{"USD/CHF", "short", "closed", 2, "259.03"},
			{"US30", "long", "closed", 2, "-111"},
			{"BTC/USD", "short", "closed", 2, "37.4"},
		}, net: "304.43"},
		// EUR_USD 20,000 x 0.0025 = 50 USD (PL 50: rate 1). GBP_JPY short
		// 15,000 x 0.55 = 8,250 JPY, PL 55.1471 USD (rate 0.006684496970),
		// less the close's 0.1520 financing and the day's 0.8123 folded
		// into it. DE30_EUR (a CFD in euros) 3 x -30 = -90 EUR, PL -94.14
		// USD (rate 1.046). The transfer, the orders and the financing row
		// skipped.
		{preset: "oanda", rows: 10, skipped: 4, positions: []wantPosition{
			{"EUR/USD", "long", "closed", 2, "50"},
			{"GBP/JPY", "short", "closed", 2, "54.1828"},
			{"DE30", "long", "closed", 2, "-94.14"},
		}, net: "10.0428", warnings: []string{CodeDirectionInferred, CodeRowsSkipped}},
		// In a euro account. BTCEUR 0.015 x 1,261.50 = 18.9225 EUR less the
		// buy's 0.000015 BTC fee at its price (1.2323 EUR) and the sell's
		// 1.2512 EUR. ETHEUR 0.5 x -7.20 = -3.60 less 0.0005 ETH (1.0527
		// EUR) and 1.0491 EUR.
		{preset: "binance", currency: "EUR", rows: 4, positions: []wantPosition{
			{"BTC/EUR", "long", "closed", 2, "16.439"},
			{"ETH/EUR", "long", "closed", 2, "-5.7018"},
		}, net: "10.7372"},
		// BTC 0.0042 x 2,750 = 11.55 less 5.39 and 5.56; SOL 2.5 x -1.30 =
		// -3.25 less 0.70 and 0.69. The deposit, staking income and send
		// skipped, and the lines above the header.
		{preset: "coinbase", rows: 7, skipped: 3, positions: []wantPosition{
			{"BTC/USD", "long", "closed", 2, "0.6"},
			{"SOL/USD", "long", "closed", 2, "-4.64"},
		}, net: "-4.04", warnings: []string{CodeRowsSkipped}},
		// ETH 0.75 x 34.55 = 25.9125 less 0.9812 and 0.9968 (the fees to the
		// cent's 4 places); BTC 0.002 x -300 = -0.60 less 0.3448 and 0.3436.
		{preset: "coinbase-fills", rows: 4, positions: []wantPosition{
			{"ETH/USD", "long", "closed", 2, "23.9345"},
			{"BTC/USD", "long", "closed", 2, "-1.2884"},
		}, net: "22.6461"},
		// XXBTZUSD 0.005 x 1,200 = 6 less 1.092 and 1.704; SOLUSD 3 bought
		// for 424.55, sold for 429.30: 4.75 less 0.4528, 0.2265 and 0.6869.
		{preset: "kraken", rows: 5, positions: []wantPosition{
			{"BTC/USD", "long", "closed", 2, "3.204"},
			{"SOL/USD", "long", "closed", 3, "3.3838"},
		}, net: "6.5878"},
		// Bybit's fees and funding are in USDT, which no exchange rate
		// turns into dollars: the figures in USDT, each fill's fee to 4
		// places. BTCUSDT long 0.01 x 1,100 = 11 less 0.473, and on the
		// close 0.47905 + the 0.08625 funding paid - the 0.043125 received
		// (0.5222); ETHUSDT short 0.5 x 20 = 10 less 0.61875 (0.6188) and
		// 0.1125 (funding) + 0.61325 (0.7258).
		// The transfer, the three funding rows and the inverse BTCUSD
		// contract skipped.
		{preset: "bybit", currency: "-", rows: 9, skipped: 5, positions: []wantPosition{
			{"BTC/USDT:PERP", "long", "closed", 2, "10.0048"},
			{"ETH/USDT:PERP", "short", "closed", 2, "8.6554"},
		}, net: "18.6602", warnings: []string{CodeRowsSkipped}},
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		seen[tc.preset] = true
		t.Run(tc.preset, func(t *testing.T) {
			p := PresetByID(tc.preset)
			currency := tc.currency
			switch currency {
			case "":
				currency = "USD"
			case "-":
				currency = ""
			}
			parsed, plan := loadIn(t, tc.preset, p.Sample, tc.opts, currency)
			if len(parsed.Errors) > 0 {
				t.Fatalf("parse errors: %+v", parsed.Errors)
			}
			if parsed.Rows != tc.rows || parsed.Skipped != tc.skipped {
				t.Errorf("rows %d skipped %d, want %d and %d", parsed.Rows, parsed.Skipped, tc.rows, tc.skipped)
			}
			if got := codes(append(parsed.Warnings, plan.Warnings...)); !slices.Equal(got, tc.warnings) {
				t.Errorf("warnings %v, want %v: %+v %+v", got, tc.warnings, parsed.Warnings, plan.Warnings)
			}
			if got := codes(plan.Errors); !slices.Equal(got, tc.errors) {
				t.Errorf("errors %v, want %v: %+v", got, tc.errors, plan.Errors)
			}
			if len(plan.Positions) != len(tc.positions) {
				t.Fatalf("%d positions, want %d: %+v", len(plan.Positions), len(tc.positions), plan.Positions)
			}
			for i, w := range tc.positions {
				got := plan.Positions[i]
				if got.Symbol != w.symbol || got.Side != w.side || got.Figures.Status != w.status || len(got.Fills) != w.fills ||
					!got.Figures.NetPnL.Equal(decimal.RequireFromString(w.net)) {
					t.Errorf("position %d: %s %s %s %d fills net %s, want %+v", i, got.Symbol, got.Side, got.Figures.Status,
						len(got.Fills), got.Figures.NetPnL, w)
				}
			}
			if !plan.Summary.NetPnL.Equal(decimal.RequireFromString(tc.net)) {
				t.Errorf("net %s, want %s", plan.Summary.NetPnL, tc.net)
			}
		})
	}
	for _, p := range Presets() {
		if !seen[p.ID] {
			t.Errorf("preset %s has no sample test", p.ID)
		}
		if _, err := os.Stat(filepath.Join("testdata", p.Sample)); err != nil {
			t.Errorf("preset %s: sample %v", p.ID, err)
		}
	}
}

// TestTradovateFutures: the contracts are read right (canonical symbol,
// the year from the fill's date, point value) and become futures positions
// whose P&L counts the point value.
func TestTradovateFutures(t *testing.T) {
	parsed, plan := load(t, "tradovate", "tradovate_orders.csv", Options{})
	if len(parsed.Fills) != 4 {
		t.Fatalf("%d fills", len(parsed.Fills))
	}
	f := parsed.Fills[0]
	if f.Symbol != "ESH24" || f.AssetType != AssetFuture || f.Multiplier.String() != "50" || f.Side != Buy || f.Price.String() != "4890.25" ||
		!f.FilledAt.Equal(time.Date(2024, 1, 24, 14, 31, 2, 0, time.UTC)) {
		t.Fatalf("first fill %+v", f)
	}
	if g := parsed.Fills[2]; g.Symbol != "MNQH24" || g.Multiplier.String() != "2" || g.Side != Sell || !g.Quantity.Equal(decimal.NewFromInt(2)) {
		t.Fatalf("MNQ fill %+v", g)
	}
	if len(plan.Errors) != 0 || !plan.CanCommit() {
		t.Fatalf("errors %+v", plan.Errors)
	}
	es := plan.Positions[0]
	if es.AssetType != AssetFuture || es.Multiplier.String() != "50" || es.Figures.GrossPnL.String() != "225" {
		t.Fatalf("ES position %+v", es)
	}
}

// TestFuturesRows: a future of a root without a built-in point value, and
// a contract that is not one, are row errors naming the symbol column; a
// one-digit year is read from the fill's date.
func TestFuturesRows(t *testing.T) {
	s, err := Resolve(Options{PresetID: "tradovate"}, "America/New_York", now, 100)
	if err != nil {
		t.Fatal(err)
	}
	file := "B/S,Contract,filledQty,avgPrice,Fill Time,Status\n" +
		"Buy,QQQH4,1,10,01/24/2024 09:31:02,Filled\n" +
		"Buy,ESQ,1,10,01/24/2024 09:31:02,Filled\n" +
		"Buy,MYMZ9,1,38000,01/24/2024 09:31:02,Filled\n" +
		"Sell,MYMZ9,1,38010,01/24/2024 09:41:02,Filled\n"
	parsed, err := Parse(strings.NewReader(file), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.Errors) != 2 || parsed.Errors[0].Code != CodeUnknownPointValue || parsed.Errors[0].Row != 2 ||
		parsed.Errors[0].Field != FieldSymbol || parsed.Errors[1].Code != CodeInvalidSymbol || parsed.Errors[1].Row != 3 {
		t.Fatalf("errors %+v", parsed.Errors)
	}
	plan := Build(parsed.Fills, Journal{}, BuildOptions{})
	if len(plan.Positions) != 1 || plan.Positions[0].Symbol != "MYMZ29" || plan.Positions[0].Figures.GrossPnL.String() != "5" {
		t.Fatalf("positions %+v", plan.Positions)
	}
}

// TestFeesEstimated: a file without fees gets the account's schedule.
func TestFeesEstimated(t *testing.T) {
	s, _ := Resolve(Options{PresetID: "thinkorswim"}, "America/New_York", now, 0)
	f, _ := os.Open("testdata/thinkorswim_statement.csv")
	defer f.Close()
	parsed, err := Parse(f, s)
	if err != nil {
		t.Fatal(err)
	}
	ib := &sizing.FeeSchedule{StockPerShareCommission: decimal.RequireFromString("0.005"), StockMinPerFill: decimal.NewFromInt(1),
		OptionsPerContractCommission: decimal.RequireFromString("0.65"), OptionsMinPerFill: decimal.NewFromInt(1)}
	w := EstimateFees(parsed.Fills, parsed.HasFees, ib)
	if len(w) != 1 || w[0].Code != CodeNoFeesColumn {
		t.Fatalf("warnings %+v", w)
	}
	total := decimal.Zero
	for _, f := range parsed.Fills {
		if !f.FeeEstimated {
			t.Fatalf("fill not estimated: %+v", f)
		}
		total = total.Add(f.Fees)
	}
	// 2 stock fills of 100 (min 1), 2 of 50 (min 1), 4 option fills of 2
	// contracts (1.30), and 2 futures fills of 2 contracts, at the options
	// per-contract rate (1.30).
	if !total.Equal(decimal.RequireFromString("11.8")) {
		t.Fatalf("fees %s", total)
	}
}

// TestPresetDocs: every preset has its line in docs/broker-files.md, with
// where the export is made.
func TestPresetDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "broker-files.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Presets() {
		if !strings.Contains(string(doc), "| `"+p.ID+"` | "+p.Name+" | "+p.HowToExport+" |") {
			t.Errorf("docs/broker-files.md has no line for %s (regenerate it from the presets)", p.ID)
		}
	}
}

// TestFidelityAllAccounts: Fidelity's download of every account (an Account
// column, the older Security Description/Security Type names, a Cash Balance
// column, rows indented by a space) is still the Fidelity preset, and its
// accounts split like any file of several accounts.
func TestFidelityAllAccounts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "fidelity_history_all_accounts.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := Detect(data); !ok || d.PresetID != "fidelity" {
		t.Fatalf("detected %+v %v", d, ok)
	}
	parsed, _ := load(t, "fidelity", "fidelity_history_all_accounts.csv", Options{})
	if len(parsed.Errors) != 1 || parsed.Errors[0].Code != CodeMultipleAccounts ||
		parsed.Accounts["Individual Z12345678"] != 3 || parsed.Accounts["ROTH IRA 234567890"] != 1 {
		t.Fatalf("errors %+v accounts %v", parsed.Errors, parsed.Accounts)
	}
	parsed, plan := load(t, "fidelity", "fidelity_history_all_accounts.csv", Options{FileAccount: "Individual Z12345678"})
	// AMD: sold 10 at 120.50 after buying 10 at 118.00, less the 0.02 fee.
	if len(parsed.Errors) != 0 || len(plan.Positions) != 1 || plan.Positions[0].Symbol != "AMD" ||
		plan.Positions[0].Figures.NetPnL.String() != "24.98" {
		t.Fatalf("errors %+v positions %+v", parsed.Errors, plan.Positions)
	}
	_, plan = load(t, "fidelity", "fidelity_history_all_accounts.csv", Options{FileAccount: "ROTH IRA 234567890"})
	if len(plan.Positions) != 1 || plan.Positions[0].Symbol != "SPY   250321C00600000" || plan.Positions[0].Figures.Status != "open" {
		t.Fatalf("positions %+v", plan.Positions)
	}
}
