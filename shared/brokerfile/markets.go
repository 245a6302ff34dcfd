package brokerfile

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/fx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/money"
)

// Forex, crypto and CFDs in broker files: the instruments (one pair parser,
// shared/instrument's), quantities in lots, fees in a coin, swaps and
// funding, and the rate a file's P&L in the account's currency tells.

// Asset types of the pairs and CFDs.
const (
	AssetForex  = instrument.AssetForex
	AssetCrypto = instrument.AssetCrypto
	AssetCFD    = instrument.AssetCFD
)

// The fields of the markets' columns (a preset's or a mapping's).
const (
	// fieldSwap is a swap (rollover, financing) of the row in the account's
	// currency: negative is a charge, positive a credit.
	fieldSwap = "swap"
	// fieldFunding is a perpetual's funding payment: positive is paid,
	// negative received (Bybit's sign).
	fieldFunding = "funding"
	// fieldCharge is a fee of that sign: positive paid, negative a rebate
	// received (Bybit's Fee Paid).
	fieldCharge = "charge"
	// fieldProfit is the file's P&L of an execution row, in the account's
	// currency when the preset says so (ProfitInAccount).
	fieldProfit = "profit"
	// fieldQuote is the quote currency of a row whose symbol names only the
	// asset bought (Coinbase's Asset and Price Currency).
	fieldQuote = "quote"
	// fieldFeeAsset is the coin or currency of the row's fee (Binance's Fee
	// Coin).
	fieldFeeAsset = "feeAsset"
	// fieldSettle is the asset a contract settles in (Bybit's Currency):
	// a crypto contract that settles in its base is coin-margined.
	fieldSettle = "settle"
	// fieldType is a row's record type (the funding rows' mark).
	fieldType = "type"
	// fieldRate is the row's rate of its quote currency in the account's
	// (journal.Fill.Rate; this app's own export writes the given ones).
	fieldRate = "rate"
	// fieldMultiplier is the row's multiplier: a future's or a CFD's value
	// per point when it is not the built-in one (this app's export).
	fieldMultiplier = "multiplier"
)

// marketRules are what a preset or a mapping says of a forex, crypto or
// CFD file (Preset.Lots, ProfitInAccount, FeeInQuote, Perpetual, Funding).
type marketRules struct {
	lots, profitInAccount, feeInQuote, perpetual bool
	funding                                      map[string]bool // normWords of the funding rows' type values
}

// compileMarkets checks a preset's or a mapping's market rules.
func compileMarkets(lots, profitInAccount, feeInQuote, perpetual bool, funding []string, field string, bad func(field, msg string)) marketRules {
	r := marketRules{lots: lots, profitInAccount: profitInAccount, feeInQuote: feeInQuote, perpetual: perpetual}
	if len(funding) > maxVocabulary {
		bad(field+"funding", fmt.Sprintf("may hold at most %d values", maxVocabulary))
		return r
	}
	for _, w := range funding {
		k := normWords(w)
		if k == "" || len(w) > maxColumnName {
			bad(field+"funding", fmt.Sprintf("%q is not a value of the file's type column", clip(w)))
			continue
		}
		if r.funding == nil {
			r.funding = map[string]bool{}
		}
		r.funding[k] = true
	}
	return r
}

// knownCoins are the crypto assets a symbol of unknown asset type is taken
// for a crypto pair by (MetaTrader's and cTrader's BTCUSD): a ticker such
// as SOLUSD is not a stock. Files of an exchange type their rows crypto
// (the preset's default asset type) and read every coin.
var knownCoins = []string{"BTC", "XBT", "ETH", "LTC", "XRP", "BCH", "SOL", "ADA", "DOGE", "DOT", "LINK", "XLM", "BNB",
	"AVAX", "MATIC", "POL", "TRX", "SHIB", "UNI", "ATOM", "XMR", "EOS", "ETC", "TON", "NEAR", "APT", "ARB", "SUI"}

// cfdNames are the index and commodity CFD names of MetaTrader, cTrader and
// CFD brokers.
var cfdNames = []string{"US30", "US500", "US100", "NAS100", "SPX500", "USTEC", "US2000", "GER40", "GER30", "DE40", "DE30",
	"UK100", "FRA40", "F40", "JP225", "JPN225", "AUS200", "HK50", "EU50", "STOXX50", "ESP35", "SPA35", "IT40", "NETH25",
	"SWI20", "CN50", "USOIL", "UKOIL", "BRENT", "XTIUSD", "XBRUSD", "XNGUSD", "NGAS", "COPPER", "USDX", "DXY", "VIX"}

// cfdName reads an index or commodity CFD's platform name, a server's
// suffix aside ("US30.cash", "GER40m", "NAS100-ECN").
func cfdName(s string) (string, bool) {
	base := strings.TrimRight(strings.SplitN(s, ".", 2)[0], "#!+-_")
	if i := strings.IndexAny(base, "-_ "); i > 0 {
		base = base[:i]
	}
	if slices.Contains(cfdNames, base) {
		return base, true
	}
	if b, ok := strings.CutSuffix(base, "M"); ok && slices.Contains(cfdNames, b) {
		return b, true
	}
	return "", false
}

// marketSymbol reads a symbol of unknown asset type as a currency pair, a
// crypto pair of a well-known coin or a CFD's platform name.
func marketSymbol(s string) (Instrument, bool) {
	if p, err := instrument.ParseForex(s); err == nil {
		return pairInstrument(p, AssetForex), true
	}
	if p, err := instrument.ParseCrypto(s); err == nil && slices.Contains(knownCoins, p.Base) {
		return pairInstrument(p, AssetCrypto), true
	}
	if name, quote, ok := cfdOf(s); ok {
		return Instrument{Symbol: name, AssetType: AssetCFD, Multiplier: decimal.NewFromInt(1), Quote: quote}, true
	}
	return Instrument{}, false
}

// currencyCFD is OANDA's form of a CFD: the name, "_", its currency
// (DE30_EUR, SPX500_USD, BCO_USD).
var currencyCFD = regexp.MustCompile(`^([A-Z][A-Z0-9]{1,11})_([A-Z]{3})$`)

// cfdOf reads a CFD's platform name, and its currency when the symbol
// writes it (currencyCFD; "" is the account's).
func cfdOf(s string) (name, quote string, ok bool) {
	if m := currencyCFD.FindStringSubmatch(s); m != nil && money.ValidCurrency(m[2]) {
		return m[1], m[2], true
	}
	name, ok = cfdName(s)
	return name, "", ok
}

func pairInstrument(p instrument.Pair, asset string) Instrument {
	return Instrument{Symbol: p.Symbol(), AssetType: asset, Multiplier: decimal.NewFromInt(1), Base: p.Base, Quote: p.Quote}
}

// marketInstrument reads a symbol typed forex, crypto or cfd.
func marketInstrument(sym, asset string) (Instrument, string, string) {
	s := strings.ToUpper(strings.TrimSpace(withoutExchange(strings.ToUpper(strings.TrimSpace(sym)))))
	switch asset {
	case AssetForex:
		p, err := instrument.ParseForex(s)
		if err != nil {
			return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not a currency pair: it %s", clip(sym), err)
		}
		return pairInstrument(p, AssetForex), "", ""
	case AssetCrypto:
		p, err := instrument.ParseCrypto(s)
		if err != nil {
			return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not a crypto pair: it %s", clip(sym), err)
		}
		return pairInstrument(p, AssetCrypto), "", ""
	}
	quote := ""
	if name, q, ok := cfdOf(s); ok {
		s, quote = name, q
	}
	inst, err := instrument.Parse(AssetCFD, s, time.Time{})
	if err != nil {
		return Instrument{}, CodeInvalidSymbol, fmt.Sprintf("%q is not a CFD's symbol: it must be a ticker of 1 to 32 letters, digits and . - / ^ = : _", clip(sym))
	}
	return Instrument{Symbol: inst.Symbol, AssetType: AssetCFD, Multiplier: decimal.NewFromInt(1), Quote: quote}, "", ""
}

// quoted reports an instrument whose P&L is in a quote currency apart from
// the account's (instrument.QuotedApart).
func quoted(assetType string) bool { return instrument.QuotedApart(assetType) }

// places is the decimal places of an asset type's prices and quantities:
// crypto's 18 (journal.CryptoPlaces), every other's 8.
func places(assetType string) int32 {
	if assetType == AssetCrypto {
		return journal.CryptoPlaces
	}
	return 8
}

// lotUnits is what one lot of inst is in units: a standard lot of a forex
// pair (instrument.Pair.LotUnits: 100,000 of a currency, 100 ounces of
// gold); one contract of anything else (a CFD's or a coin's lot is the
// broker's contract).
func lotUnits(inst Instrument) decimal.Decimal {
	if inst.AssetType == AssetForex {
		return instrument.Pair{Base: inst.Base, Quote: inst.Quote}.LotUnits()
	}
	return decimal.NewFromInt(1)
}

// amountUnit is a number followed by the asset it counts: Binance's
// "0.5BTC" and "0.0075BNB", cTrader's "0.10 Lots", Bybit's "1121.34 NEIRO".
var amountUnit = regexp.MustCompile(`^([-+(]?[$€£]?[0-9][0-9,.' ]*\)?)\s*([A-Za-z][A-Za-z0-9]{1,11})$`)

// splitUnit separates a trailing unit word from a number cell: "0.5BTC" is
// "0.5" and "BTC", "0.10 Lots" is "0.10" and "LOTS"; a cell without one is
// returned whole.
func splitUnit(cell string) (number, unit string) {
	m := amountUnit.FindStringSubmatch(strings.TrimSpace(cell))
	if m == nil {
		return cell, ""
	}
	return strings.TrimSpace(m[1]), strings.ToUpper(m[2])
}

// lotWord reports the unit words of lots.
func lotWord(unit string) bool { return unit == "LOT" || unit == "LOTS" }

// instrument reads the current row's instrument (rowInstrument) and makes
// a crypto pair of a file of perpetuals (Perpetual) one.
func (p *parser) instrument(traded time.Time) (Instrument, bool) {
	inst, ok := p.rowInstrument(traded)
	if ok {
		inst = p.contract(inst)
	}
	p.cur = inst
	return inst, ok
}

// contract makes a crypto pair of a file of perpetuals (Perpetual) one:
// Bybit's BTCUSDT is BTC/USDT:PERP.
func (p *parser) contract(inst Instrument) Instrument {
	if inst.AssetType == AssetCrypto && p.s.markets.perpetual && !strings.Contains(inst.Symbol, ":") {
		inst.Symbol = instrument.Pair{Base: inst.Base, Quote: inst.Quote, Kind: instrument.KindPerpetual}.Symbol()
	}
	return inst
}

// withQuote joins a row's asset to its quote currency when the file gives
// them apart (Coinbase's Asset BTC and Price Currency USD: BTC/USD).
func (p *parser) withQuote(sym string) string {
	q, _ := p.cell(fieldQuote)
	if q == "" || sym == "" || strings.ContainsAny(sym, "/-_:") {
		return sym
	}
	return sym + "/" + strings.ToUpper(q)
}

// inverse names a coin-margined (inverse) crypto contract: one that
// settles (fieldSettle) in its pair's base, whose P&L is in the base.
func (p *parser) inverse(sym string) (string, int) {
	settle, col := p.cell(fieldSettle)
	if settle == "" {
		return "", 0
	}
	pair, err := instrument.ParseCrypto(sym)
	if err != nil || !strings.EqualFold(settle, pair.Base) || strings.EqualFold(settle, pair.Quote) {
		return "", 0
	}
	return "coin-margined (inverse): it settles in " + pair.Base + ", its P&L is in " + pair.Base, col
}

// quantityCell reads the quantity cell: a number, or a number and its unit
// word ("0.10 Lots", "0.5BTC"). present is false when a problem was
// recorded.
func (p *parser) quantityCell() (decimal.Decimal, bool, string) {
	v, _ := p.cell(FieldQuantity)
	// A unit of letters: "1E5" is no number with a unit.
	if num, unit := splitUnit(v); unit != "" && !strings.ContainsAny(unit, "0123456789") {
		if d, ok := parseNumber(num, p.s.NumberFormat); ok {
			return d, true, unit
		}
	}
	d, present, _ := p.number(FieldQuantity, true)
	return d, present, ""
}

// feePlaces is the places a fill's fee keeps: 4 in the account's currency,
// 18 in a coin the journal converts (journal.CryptoPlaces).
func feePlaces(asset string) int32 {
	if asset != "" {
		return journal.CryptoPlaces
	}
	return 4
}

// rowFees reads the row's charges: the fee, commission and further fee
// columns (their magnitudes: brokers print charges negative), a swap
// (negative a charge) and a funding payment or a charge (positive paid). A
// credit (a swap or funding received, a maker rebate) comes off the
// charges: a forex, crypto or CFD fill's fees may be negative (the
// journal's rule, docs/markets.md); another fill's never go below 0, so
// what is left of a credit there is not booked and a warning says so. The
// fee's asset is the one a crypto row names (a coin after the number,
// "0.00075BNB", or a fee asset column), or its pair's quote for a file
// whose fees are in the quote (FeeInQuote); "" is the account's currency.
func (p *parser) rowFees(inst Instrument) (fees decimal.Decimal, asset string, given, ok bool) {
	if !quoted(inst.AssetType) && !p.has(fieldSwap) && !p.has(fieldFunding) && !p.has(fieldCharge) {
		fees, given, ok = p.fees() // a file of stocks, options and futures
		return fees, "", given, ok
	}
	ok = true
	var charges, credits decimal.Decimal
	assetCol := 0
	for _, f := range append([]string{FieldFees, FieldCommission}, p.s.extraFees...) {
		v, col := p.cell(f)
		if v == "" {
			continue
		}
		var (
			d      decimal.Decimal
			parsed bool
			unit   string
		)
		if quoted(inst.AssetType) {
			// A coin or currency after the number names the fee's asset
			// ("0.00075BNB", "1.25EUR").
			var num string
			if num, unit = splitUnit(v); unit != "" {
				d, parsed = parseNumber(num, p.s.NumberFormat)
			}
		}
		if !parsed {
			d, parsed = parseNumber(v, p.s.NumberFormat)
			unit = ""
		}
		if !parsed {
			p.number(f, false) // the number's problem
			ok = false
			continue
		}
		given = true
		if unit != "" {
			if asset != "" && asset != unit {
				p.problem(false, f, col, CodeInvalidValue, fmt.Sprintf("the row's fees are in %s and %s: one asset a row", asset, unit))
				ok = false
			}
			asset, assetCol = unit, col
		}
		charges = charges.Add(d.Abs())
	}
	for _, f := range []string{fieldSwap, fieldFunding, fieldCharge} {
		d, present, fine := p.number(f, false)
		if !fine {
			ok = false
		}
		if !present || d.IsZero() {
			continue // a swap of 0 does not say what the commission was
		}
		given = true
		if f == fieldSwap {
			d = d.Neg() // a swap's charge is negative
		}
		if d.IsNegative() {
			credits = credits.Sub(d)
		} else {
			charges = charges.Add(d)
		}
	}
	if !ok {
		return decimal.Zero, "", false, false
	}
	if quoted(inst.AssetType) {
		if a, _ := p.cell(fieldFeeAsset); a != "" && asset == "" {
			asset = strings.ToUpper(a)
		}
		if asset == "" && p.s.markets.feeInQuote && !charges.IsZero() {
			asset = inst.Quote
		}
		if asset != "" && !instrument.ValidAsset(asset) {
			p.problem(false, FieldFees, assetCol, CodeInvalidValue, fmt.Sprintf("%q is not a coin or currency code", clip(asset)))
			return decimal.Zero, "", false, false
		}
	} else if asset != "" {
		p.problem(false, FieldFees, assetCol, CodeInvalidNumber, fmt.Sprintf("a fee in %s: only a crypto pair's fee may be in a coin", clip(asset)))
		return decimal.Zero, "", false, false
	}
	fees = charges.Sub(credits)
	if fees.IsNegative() && !quoted(inst.AssetType) {
		field := fieldSwap
		if !p.has(fieldSwap) {
			field = fieldFunding
		}
		_, col := p.cell(field)
		p.problem(true, field, col, CodeNotBooked, fmt.Sprintf("a credit of %s is more than the row's charges of %s: the fill's fees are 0 and %s of the credit is not booked (fees are never negative)",
			credits.String(), charges.String(), fees.Neg().String()))
		fees = decimal.Zero
	}
	field := FieldFees
	if !p.has(FieldFees) {
		field = FieldCommission
	}
	fees = p.fit(field, fees, feePlaces(asset))
	if fees.IsZero() {
		asset = "" // nothing to convert
	}
	if fees.Abs().GreaterThan(maxFee) {
		_, col := p.cell(field)
		p.problem(false, field, col, CodeOutOfRange, "fees must be between -9999999.99 and 9999999.99")
		return fees, asset, given, false
	}
	return fees, asset, given, true
}

// profit reads an execution row's P&L in the account's currency
// (fieldProfit, ProfitInAccount) for a forex, crypto or CFD fill; nil when
// there is none to work a rate out from.
// rowRate reads the row's rate (fieldRate) of a forex, crypto or CFD
// row: nil when blank; a problem when it is not a positive number of at
// most 12 places, or the row is of another asset type.
func (p *parser) rowRate(inst Instrument) (*decimal.Decimal, bool) {
	d, present, fine := p.number(fieldRate, false)
	switch {
	case !present || !fine:
		return nil, fine
	case !quoted(inst.AssetType):
		p.problem(false, fieldRate, p.column(fieldRate), CodeInvalidValue, "a rate applies only to forex, crypto and CFD rows")
		return nil, false
	case !d.IsPositive() || d.Exponent() < -12 || d.GreaterThan(decimal.NewFromInt(1_000_000_000)):
		p.problem(false, fieldRate, p.column(fieldRate), CodeInvalidValue, fmt.Sprintf("%s is not a rate: greater than 0, at most 1000000000, 12 places", d))
		return nil, false
	}
	return &d, true
}

// rowMultiplier reads the row's multiplier (fieldMultiplier) of a future,
// futures option, CFD or crypto row, else inst's own; a problem when it is
// not a positive number of at most 8 places, or the row is a stock's, an
// option's or a pair's whose multiplier is fixed and differs.
func (p *parser) rowMultiplier(inst Instrument) (decimal.Decimal, bool) {
	d, present, fine := p.number(fieldMultiplier, false)
	switch {
	case !present || !fine:
		return inst.Multiplier, fine
	case !d.IsPositive() || d.Exponent() < -8 || d.GreaterThan(decimal.NewFromInt(1_000_000_000)):
		p.problem(false, fieldMultiplier, p.column(fieldMultiplier), CodeInvalidValue, fmt.Sprintf("%s is not a multiplier: greater than 0, at most 1000000000, 8 places", d))
		return inst.Multiplier, false
	case inst.AssetType == AssetFuture || inst.AssetType == AssetFutureOption || inst.AssetType == AssetCFD || inst.AssetType == AssetCrypto:
		return d, true
	case !d.Equal(inst.Multiplier):
		p.problem(false, fieldMultiplier, p.column(fieldMultiplier), CodeInvalidValue, fmt.Sprintf("%s: a %s's multiplier is %s", d, inst.AssetType, inst.Multiplier))
		return inst.Multiplier, false
	}
	return inst.Multiplier, true
}

func (p *parser) profit(inst Instrument) (*decimal.Decimal, bool) {
	if !p.s.markets.profitInAccount || !quoted(inst.AssetType) {
		return nil, true
	}
	d, present, fine := p.number(fieldProfit, false)
	if !present || d.IsZero() {
		return nil, fine
	}
	return &d, fine
}

// tripProfit is a round trip's P&L in the account's currency
// (ProfitInAccount) for its exit of a forex, crypto or CFD instrument: its
// rate is worked out once the rows are joined (settleRates), at the
// position's average entry.
func (p *parser) tripProfit(inst Instrument, pnl decimal.Decimal) *decimal.Decimal {
	if !p.s.markets.profitInAccount || !quoted(inst.AssetType) || pnl.IsZero() {
		return nil
	}
	return &pnl
}

// addProfit adds two fills' P&L (joinTrips merges the fills rows share).
func addProfit(a, b *decimal.Decimal) *decimal.Decimal {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	s := a.Add(*b)
	return &s
}

// rateOf is profit (in the account's currency) over gain (in the quote):
// the rate of 1 unit of the quote, to a fill rate's 12 places; nil when it
// is not a positive number.
func rateOf(profit, gain decimal.Decimal) *decimal.Decimal {
	if gain.IsZero() || profit.IsZero() {
		return nil
	}
	r := profit.DivRound(gain, 16).Round(12)
	if !r.IsPositive() || r.GreaterThan(maxQuantity) {
		return nil
	}
	return &r
}

// fundingRow is a funding or financing payment of a contract (a row whose
// record type is one of the preset's Funding words), kept to be folded
// into the contract's fees (foldFunding).
type fundingRow struct {
	row       int
	at        time.Time
	symbol    string // the contract (canonical) and its asset type
	assetType string
	charge    decimal.Decimal // paid > 0, received < 0
	coin      string          // the payment's coin ("" the account's currency)
	col       int             // the amount's column
}

// fundingRow reads the current row when it is a funding payment; it is
// counted among the skipped rows (it is not a fill) and folded later.
func (p *parser) fundingRow() bool {
	if len(p.s.markets.funding) == 0 {
		return false
	}
	v, _ := p.cell(fieldType)
	if !p.s.markets.funding[normWords(v)] {
		return false
	}
	p.skipRow(p.columnName(p.column(fieldType)) + " " + v + " (folded into the fees)")
	field := fieldFunding
	if !p.has(fieldFunding) {
		field = fieldSwap
	}
	d, present, fine := p.number(field, false)
	if !fine || !present || d.IsZero() {
		return true
	}
	if field == fieldSwap {
		d = d.Neg()
	}
	_, col := p.cell(field)
	if sym, _ := p.cell(FieldSymbol); sym == "" {
		// An account's financing of the day without its instrument
		// (OANDA's total): no position to book it with.
		p.problem(true, field, col, CodeNotBooked, fmt.Sprintf("a funding payment of %s that names no instrument: not booked", d.String()))
		return true
	}
	t, ok := p.when(FieldDate, FieldTime)
	if !ok {
		return true
	}
	inst, ok := p.instrument(t)
	if !ok {
		return true
	}
	coin, _ := p.cell(fieldSettle)
	if a, _ := p.cell(fieldFeeAsset); a != "" {
		coin = a
	}
	p.funding = append(p.funding, fundingRow{row: p.line, at: t, symbol: inst.Symbol, assetType: inst.AssetType,
		charge: d, coin: strings.ToUpper(coin), col: col})
	return true
}

// settleMarkets works out the rates of execution fills from the file's
// P&L (settleRates) and folds the funding rows into fees (foldFunding),
// once the fills are in time order.
func (p *parser) settleMarkets() {
	settleRates(p.out.Fills)
	p.foldFunding()
	applyQuoteRates(p.out.Fills, p.s.quoteRates)
}

// applyQuoteRates gives the trader's rate of a fill's quote currency
// (Options.QuoteRates) to each forex, crypto or CFD fill the file gave
// none.
func applyQuoteRates(fills []Fill, rates map[string]decimal.Decimal) {
	if len(rates) == 0 {
		return
	}
	for i := range fills {
		f := &fills[i]
		if f.Rate != nil || !instrument.QuotedApart(f.AssetType) {
			continue
		}
		quote := f.Quote
		if f.AssetType == AssetForex {
			if pair, err := instrument.ParseForex(f.Symbol); err == nil {
				quote = pair.Quote
			}
		} else if f.AssetType == AssetCrypto {
			if pair, err := instrument.ParseCrypto(f.Symbol); err == nil {
				quote = pair.Quote
			}
		}
		if r, ok := rates[quote]; ok {
			f.Rate = &r
		}
	}
}

// settleRates gives each closing fill with a P&L in the account's currency
// (Fill.profit) its rate: that P&L over the fill's P&L in the quote,
// worked out as journal.Compute does (the position's average entry, a fill
// past zero closing it and opening the other side), so that the journal's
// P&L of the exit is the file's. Fills in the order Build groups them: by
// time, the file's order within an instant; a round trip's by its unit
// (joinTrips), an execution's by its instrument.
func settleRates(fills []Fill) {
	type book struct{ open, basis decimal.Decimal } // signed quantity, cost of what is open
	books := map[string]*book{}
	order := make([]int, 0, len(fills))
	for i := range fills {
		if quoted(fills[i].AssetType) {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return fills[a].FilledAt.Compare(fills[b].FilledAt) })
	for _, i := range order {
		f := &fills[i]
		k := f.Symbol + "\x00" + f.AssetType
		if f.Trip != 0 {
			k = "\x01" + strconv.Itoa(f.Trip)
		}
		b := books[k]
		if b == nil {
			b = &book{}
			books[k] = b
		}
		signed := f.Quantity
		if f.Side == Sell {
			signed = signed.Neg()
		}
		if b.open.IsZero() || b.open.Sign() == signed.Sign() {
			b.open = b.open.Add(signed)
			b.basis = b.basis.Add(f.Price.Mul(f.Quantity))
			continue
		}
		closing := decimal.Min(f.Quantity, b.open.Abs())
		removed := b.basis
		if closing.LessThan(b.open.Abs()) {
			removed = b.basis.Mul(closing).DivRound(b.open.Abs(), 16)
		}
		gain := f.Price.Mul(closing).Sub(removed).Mul(f.Multiplier)
		if b.open.IsNegative() {
			gain = gain.Neg()
		}
		if f.profit != nil && f.Rate == nil {
			f.Rate = rateOf(*f.profit, gain)
		}
		b.basis = b.basis.Sub(removed)
		if b.open.IsNegative() {
			b.open = b.open.Add(closing)
		} else {
			b.open = b.open.Sub(closing)
		}
		if rest := f.Quantity.Sub(closing); rest.IsPositive() {
			b.open, b.basis = rest, f.Price.Mul(rest)
			if f.Side == Sell {
				b.open = rest.Neg()
			}
		}
	}
}

// foldFunding adds each funding payment to the fees of its contract's next
// fill in the file (the close, or an add, that follows it), else of its
// last one before it: the journal books a position's fees with its fills.
// A payment received comes off those fees (a forex, crypto or CFD fill's
// may go negative); a payment with no fill of its contract in the file,
// or in another coin than the fill's fees, is not booked, and a warning
// says so.
func (p *parser) foldFunding() {
	slices.SortStableFunc(p.funding, func(a, b fundingRow) int { return a.at.Compare(b.at) })
	for _, fr := range p.funding {
		next, last := -1, -1
		for i := range p.out.Fills {
			f := &p.out.Fills[i]
			switch {
			case f.Symbol != fr.symbol || f.AssetType != fr.assetType:
			case !f.FilledAt.Before(fr.at):
				if next < 0 || f.FilledAt.Before(p.out.Fills[next].FilledAt) {
					next = i
				}
			case last < 0 || !f.FilledAt.Before(p.out.Fills[last].FilledAt):
				last = i
			}
		}
		target := next
		if target < 0 {
			target = last
		}
		warn := func(msg string) {
			p.out.Warnings = append(p.out.Warnings, Problem{Row: fr.row, Column: fr.col, ColumnName: p.columnName(fr.col),
				Field: fieldFunding, Code: CodeNotBooked, Message: msg})
		}
		if target < 0 {
			warn(fmt.Sprintf("a funding payment of %s for %s, which has no fill in the file to go with: not booked", fr.charge.String(), fr.symbol))
			continue
		}
		f := &p.out.Fills[target]
		coin := fr.coin
		if !quoted(f.AssetType) {
			coin = ""
		}
		switch {
		case f.FeeAsset == coin:
		case f.FeeAsset == "" && f.Fees.IsZero():
			f.FeeAsset = coin
		default:
			warn(fmt.Sprintf("a funding payment of %s %s for %s, whose fill on row %d has its fees in %s: not booked", fr.charge.String(), coin, fr.symbol, f.Row, f.FeeAsset))
			continue
		}
		fees := f.Fees.Add(fr.charge)
		if fees.IsNegative() && !quoted(f.AssetType) {
			warn(fmt.Sprintf("a funding payment of %s received, more than the fees of row %d (%s): its fees are 0 and %s is not booked (fees are never negative)",
				fr.charge.Neg().String(), f.Row, f.Fees.String(), fees.Neg().String()))
			fees = decimal.Zero
		}
		f.Fees, f.FeesGiven = fees.Round(feePlaces(f.FeeAsset)), true
		if f.Fees.IsZero() {
			f.FeeAsset = ""
		}
	}
}

// conversion is what Build makes of the forex, crypto and CFD fills'
// currencies: each one's rate (of its quote into the account's currency)
// and its fee asset's rate, as the journal's write will find them; nil
// while none is known. Other fills have none.
type conversion struct {
	rates, feeRates []*decimal.Decimal
	account         string // "" when the account's currency is not known
}

// pairOf is a fill's base and quote: its pair's, or a CFD's currency.
func pairOf(f *Fill) (base, quote string) {
	if f.AssetType == AssetCFD {
		return "", f.Quote
	}
	if in, err := instrument.Parse(f.AssetType, f.Symbol, f.FilledAt); err == nil && in.Pair != nil {
		return in.Pair.Base, in.Pair.Quote
	}
	return "", ""
}

// convertFills gives each forex, crypto and CFD fill the rate the journal's
// write will (the file's, else fx.FillRate) and its fee asset's rate
// (fx.FeeRate), so that journal.Compute makes the commit's figures.
// Without the account's currency the figures are in the quote currency:
// every rate 1, a fee counted as written.
func convertFills(fills []Fill, j Journal) conversion {
	c := conversion{rates: make([]*decimal.Decimal, len(fills)), feeRates: make([]*decimal.Decimal, len(fills)), account: j.Currency}
	one := decimal.NewFromInt(1)
	for i := range fills {
		f := &fills[i]
		switch {
		case !quoted(f.AssetType):
		case j.Currency == "":
			c.rates[i], c.feeRates[i] = &one, &one
		default:
			base, quote := pairOf(f)
			c.rates[i] = f.Rate
			if f.Rate == nil {
				c.rates[i] = fx.FillRate(j.Rates, base, quote, j.Currency, f.Price, f.FilledAt)
			}
			c.feeRates[i] = fx.FeeRate(j.Rates, f.FeeAsset, base, quote, j.Currency, c.rates[i], f.Price, f.FilledAt)
		}
	}
	return c
}

// awaiting warns of each forex, crypto or CFD position whose P&L waits for
// a rate (journal.Figures.AwaitingRate), at its first fill without one:
// an exit whose quote has no rate, or a fee in a coin that has none.
func (p *Plan) awaiting(fills []Fill, c conversion) {
	if c.account == "" {
		return
	}
	for k := range p.Positions {
		pos := &p.Positions[k]
		if !pos.Figures.AwaitingRate {
			continue
		}
		for n, i := range pos.Fills {
			f := &fills[i]
			base, quote := pairOf(f)
			msg := ""
			switch {
			case pos.Types[n] == journal.FillExit && c.rates[i] == nil:
				msg = fmt.Sprintf("the P&L of this %s exit is in %s and there is no %s exchange rate: the position's P&L in %s leaves it out until one is stored (Exchange rates)",
					f.Symbol, quote, fx.Pair(quote, c.account), c.account)
			case f.FeeAsset != "" && c.feeRates[i] == nil:
				need := f.FeeAsset
				if (need == base || need == quote) && c.rates[i] == nil {
					need = quote // a fee in the pair's own coins converts at the fill's rate
				}
				msg = fmt.Sprintf("this %s fill's fee of %s %s has no rate into %s (%s): the position's figures in %s leave it out until one is stored (Exchange rates)",
					f.Symbol, f.Fees.String(), f.FeeAsset, c.account, fx.Pair(need, c.account), c.account)
			default:
				continue
			}
			p.Warnings = append(p.Warnings, Problem{Row: f.Row, Code: CodeAwaitingRate, Message: msg})
			break
		}
	}
}

// cfdQuote is the currency a fill of inst carries (Fill.Quote): a CFD's
// when its symbol names one.
func cfdQuote(inst Instrument) string {
	if inst.AssetType == AssetCFD {
		return inst.Quote
	}
	return ""
}
