package brokerfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"tradejournal/shared/instrument"

	"github.com/shopspring/decimal"
)

// FuzzSymbol holds the instrument parsers to their promises on any text:
// no panic; a parsed instrument is canonical (parsing its own symbol gives
// it back) with the multiplier of its kind; a failure has a code.
func FuzzSymbol(f *testing.F) {
	for _, s := range []string{"MNQ MAR25", "MES 09-26", "MESM6", "F.US.MESM26", "CON.F.US.EP.M25", "/ESH24:XCME", "ESZ2024",
		"-NVDA260710P195", "NVDA Jul 10 2026 195.00 Put", "PUT NVDA 07/10/26 195", "AAPL  240119C00190000", "BRK B", "EURUSD.m",
		"CALL (SPY) SPDR JAN 19 24 $480 (100 SHS)", "NQ 2025-12", "", " ", "((", "C P 1/1/1 1",
		"./ESZ24C5000", "/ESZ4 C5000", "./ESZ4 EW4X4 241122C5900", ".ESZ24C5000", "./CLF25C70", ".FTG", "..FTG",
		"TSLA#B1326C425000", "SOFI#V1725D260000", "TSLA#Y1326C425000", "F#X1925A125", "TSLA#B1326H9",
		"EUR_USD", "USD.JPY", "xauusd", "BTCUSDT", "XXBTZUSD", "BTC-PERP", "DE30_EUR", "US500.cash", "GER40m", "SOLBUSD"} {
		f.Add(s, "")
		f.Add(s, AssetFuture)
		f.Add(s, AssetOption)
		f.Add(s, AssetFutureOption)
		f.Add(s, AssetForex)
		f.Add(s, AssetCrypto)
		f.Add(s, AssetCFD)
	}
	traded := time.Date(2025, 2, 3, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, sym, asset string) {
		switch asset {
		case "", AssetStock, AssetOption, AssetFuture, AssetFutureOption, AssetForex, AssetCrypto, AssetCFD:
		default:
			asset = ""
		}
		inst, code, msg := ParseSymbol(sym, asset, traded)
		if msg != "" {
			if code == "" {
				t.Fatalf("%q: a message without a code", sym)
			}
			return
		}
		if asset != "" && inst.AssetType != asset {
			t.Fatalf("%q as %s: %+v", sym, asset, inst)
		}
		again, _, msg := ParseSymbol(inst.Symbol, inst.AssetType, traded)
		if msg != "" || again != inst && !(again.Symbol == inst.Symbol && again.Multiplier.Equal(inst.Multiplier)) {
			t.Fatalf("%q: %+v does not read back (%+v, %s)", sym, inst, again, msg)
		}
		switch inst.AssetType {
		case AssetOption:
			if _, err := instrument.ParseOCC(inst.Symbol); err != nil || !inst.Multiplier.Equal(optionMultiplier) {
				t.Fatalf("%q: option %+v", sym, inst)
			}
		case AssetFuture:
			if _, err := instrument.ParseFuture(inst.Symbol, traded); err != nil || !inst.Multiplier.IsPositive() {
				t.Fatalf("%q: future %+v", sym, inst)
			}
		case AssetFutureOption:
			o, err := instrument.ParseFutureOption(inst.Symbol, traded, nil)
			if err != nil || o.Symbol() != inst.Symbol || !inst.Multiplier.IsPositive() {
				t.Fatalf("%q: futures option %+v", sym, inst)
			}
		case AssetStock:
			if !inst.Multiplier.Equal(decimal.NewFromInt(1)) {
				t.Fatalf("%q: stock %+v", sym, inst)
			}
		case AssetForex, AssetCrypto, AssetCFD:
			// The journal's instrument of the same symbol: what the
			// commit parses again.
			in, err := instrument.Parse(inst.AssetType, inst.Symbol, traded)
			if err != nil || in.Symbol != inst.Symbol || !inst.Multiplier.Equal(decimal.NewFromInt(1)) ||
				in.Pair != nil && (in.Pair.Base != inst.Base || in.Pair.Quote != inst.Quote) {
				t.Fatalf("%q: %s %+v / %+v %v", sym, inst.AssetType, inst, in, err)
			}
		}
	})
}

// FuzzVocabulary: the side, open/close and number readers never panic,
// and a side they read is buy or sell with a known effect.
func FuzzVocabulary(f *testing.F) {
	for _, s := range []string{"BC", "Bought To Open", "YOU SOLD CLOSING TRANSACTION", "Bid", "AUTO", "0,62 $", "(1,234.56)",
		"25.00-", "USD 12", "$-", "sell short", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if side, effect, ok := parseAction(s); ok {
			if side != Buy && side != Sell || effect != "" && effect != EffectOpen && effect != EffectClose {
				t.Fatalf("%q: %q %q", s, side, effect)
			}
		}
		if e, ok := parseEffect(s); ok && e != "" && e != EffectOpen && e != EffectClose {
			t.Fatalf("%q: effect %q", s, e)
		}
		for _, format := range []string{NumberUS, NumberEU} {
			if d, ok := parseNumber(s, format); ok && strings.TrimSpace(s) == "" {
				t.Fatalf("%q read as %s", s, d)
			}
		}
	})
}

// FuzzDetect: detection never panics, names a preset that exists, and a
// detected preset's spec resolves; a head no preset fits is told the
// presets it came closest to; the samples seed it.
func FuzzDetect(f *testing.F) {
	for _, p := range Presets() {
		data, err := os.ReadFile(filepath.Join("testdata", p.Sample))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("Trades,Header,Symbol\nTrades,Data,AAPL\n"))
	f.Add([]byte("\"unterminated,Header\n"))
	f.Fuzz(func(t *testing.T, head []byte) {
		if len(head) > DetectBytes {
			head = head[:DetectBytes]
		}
		d, ok := Detect(head)
		if !ok {
			// What the trader is told names at most two presets, each
			// lacking a column (none fits).
			near := Closest(head, 2)
			if len(near) > 2 || slices.ContainsFunc(near, func(n Near) bool { return len(n.Missing) == 0 }) || Undetected(head) == "" {
				t.Fatalf("closest %+v to a head no preset fits", near)
			}
			return
		}
		p := PresetByID(d.PresetID)
		if p == nil {
			t.Fatalf("detected %q, not a preset", d.PresetID)
		}
		opts := Options{PresetID: p.ID}
		if p.NeedsDate {
			opts.TradeDate = "2025-03-04"
		}
		if p.NeedsSymbol {
			opts.Symbol = "AAPL"
		}
		if _, err := Resolve(opts, "UTC", now, 100); err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
	})
}

// FuzzStaged: the staged form's reader never panics on any bytes, and what
// it reads writes back to the same parts.
func FuzzStaged(f *testing.F) {
	parsed, _ := load(f, "tradezero", "tradezero_trades.csv", Options{})
	f.Add(EncodeStaged([]Part{{Fills: parsed.Fills[:2]}, {AccountID: "a1", Fills: parsed.Fills[2:]}}, 3))
	f.Add(EncodeStaged([]Part{{AccountID: "a1"}, {AccountID: "b2", Fills: parsed.Fills}}, 0))
	multileg, _ := load(f, "tastytrade", "tastytrade_transactions_multileg.csv", Options{})
	f.Add(EncodeStaged([]Part{{Fills: multileg.Fills}}, 0))
	f.Add([]byte("tjcsv1\n@\n"))
	f.Add([]byte("tjcsv1 partial 0\n"))
	f.Add(EncodeStaged([]Part{{Fills: []Fill{quotedFill()}}}, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, leftOut, err := DecodeStaged(data)
		if err != nil {
			return
		}
		back, leftOut2, err := DecodeStaged(EncodeStaged(parts, leftOut))
		if err != nil || leftOut2 != leftOut || len(back) != len(parts) {
			t.Fatalf("round trip: %v %d %d", err, len(back), len(parts))
		}
		for i := range parts {
			if back[i].AccountID != parts[i].AccountID || len(back[i].Fills) != len(parts[i].Fills) {
				t.Fatalf("part %d: %+v != %+v", i, back[i], parts[i])
			}
			for k := range parts[i].Fills {
				a, b := back[i].Fills[k], parts[i].Fills[k]
				if a.Quote != b.Quote || a.FeeAsset != b.FeeAsset || (a.Rate == nil) != (b.Rate == nil) || a.Rate != nil && !a.Rate.Equal(*b.Rate) {
					t.Fatalf("part %d fill %d: rate %v %q %q != %v %q %q", i, k, a.Rate, a.Quote, a.FeeAsset, b.Rate, b.Quote, b.FeeAsset)
				}
				if back[i].Fills[k].OrderID != parts[i].Fills[k].OrderID {
					t.Fatalf("part %d fill %d: order %q != %q", i, k, back[i].Fills[k].OrderID, parts[i].Fills[k].OrderID)
				}
			}
		}
	})
}
