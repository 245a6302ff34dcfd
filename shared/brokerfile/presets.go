package brokerfile

// Preset describes a file layout the importer knows: a broker's export or
// a journal's. Columns name, per field, the header texts that may hold it
// (the first one present is used), matched ignoring case and surrounding
// spaces. Layouts follow each broker's published export as closely as we
// know it; a file that lacks a required column is refused naming it.
type Preset struct {
	ID           string              `json:"id"`
	Name         string              `json:"name"`
	Description  string              `json:"description"`
	HowToExport  string              `json:"howToExport"`
	RowShape     string              `json:"rowShape"`
	Delimiter    string              `json:"delimiter"`
	DateFormat   string              `json:"dateFormat"`
	NumberFormat string              `json:"numberFormat"`
	Columns      map[string][]string `json:"columns"`
	Required     []string            `json:"required"`
	// Section is the title line before the header, for statements that hold
	// several tables; the table ends at the next title line.
	Section string `json:"section,omitempty"`
	// Keep lists, per column, the values of rows that are fills; other rows
	// are skipped and counted (cancelled orders, order-level summary rows).
	// A keep column missing from the file filters nothing.
	Keep map[string][]string `json:"keep,omitempty"`
	// Skip lists, per column, the values of rows that are not trades the
	// journal holds (IB's currency conversions); they are skipped and
	// counted.
	Skip map[string][]string `json:"skip,omitempty"`
	// DefaultAssetType is the asset type of rows the file does not type
	// (futures for a futures broker); blank means "from the symbol".
	DefaultAssetType string `json:"defaultAssetType,omitempty"`
	// SkipNonTrades skips rows whose side is not a trade word (an activity
	// file's dividends and transfers).
	SkipNonTrades bool `json:"skipNonTrades,omitempty"`
	// Sides and OpenClose are the export's own words.
	Vocabulary
	// SectionColumn: every line of the statement starts with its table's
	// name (Section) and the line's kind (Header, Data, Total, ...).
	SectionColumn bool `json:"sectionColumn,omitempty"`
	// SkipNotes skips rows of one cell (a disclaimer after the table).
	SkipNotes bool `json:"skipNotes,omitempty"`
	// FeeColumns are further fee columns, each added to the fees (SEC,
	// TAF, ECN fees in columns of their own).
	FeeColumns []string `json:"feeColumns,omitempty"`
	// BuySell: a round trip given as its buy and its sell (entry columns
	// hold the buy, exit columns the sell); the earlier one opened it, so
	// a sell before the buy is a short.
	BuySell bool `json:"buySell,omitempty"`
	// PriceTimesMultiplier: the price column holds price x multiplier
	// (per contract), divided by the "priceMultiplier" column's value.
	PriceTimesMultiplier bool `json:"priceTimesMultiplier,omitempty"`
	// PriceInDescription: the fill price is the description's "@ price"
	// when it has one ("Bought 1 /CLJ4 @ 79.69"), the price column
	// otherwise. tastytrade's Average Price holds the mark on futures rows
	// and price x point value on futures options, whose Multiplier is 1.
	PriceInDescription bool `json:"priceInDescription,omitempty"`
	// SkipUnsupported skips rows of assets the journal does not record yet
	// (forex, CFDs), counted by reason, instead of refusing them.
	SkipUnsupported bool `json:"skipUnsupported,omitempty"`
	// InheritTime gives a row with an empty time cell the previous row's
	// time (the legs of a spread after the first); those rows are one
	// order, named by its first row (Fill.OrderID).
	InheritTime bool `json:"inheritTime,omitempty"`
	// NeedsDate: the export has times of day but no dates (DAS Trader's
	// trade log holds one day); the import asks for the day (tradeDate).
	NeedsDate bool `json:"needsDate,omitempty"`
	// NeedsSymbol: the export names no instrument (a report of one
	// chart's trades); the import asks for it (symbol).
	NeedsSymbol bool `json:"needsSymbol,omitempty"`
	// PairedRows: each trade is two rows, its entry (numbered in the
	// "tradeNumber" column, with its quantity) and then its exit (not
	// numbered, or the same number), whose quantity cell holds the trade's
	// profit: the exit takes the entry's quantity.
	PairedRows bool `json:"pairedRows,omitempty"`
	// Lots: the quantity column holds lots (MetaTrader, cTrader): a forex
	// pair's quantity is lots x the pair's lot (instrument.Pair.LotUnits:
	// 100,000 of a currency, 100 ounces of gold); a CFD's or a coin's lot
	// is one contract. A cell that names its unit ("0.10 Lots", "10000
	// EUR") says it itself.
	Lots bool `json:"lots,omitempty"`
	// ProfitInAccount: the P&L column ("pnl" of a round trip, "profit" of
	// an execution) is in the account's currency, so a forex, crypto or
	// CFD exit's rate is that P&L over its P&L in the quote currency (at
	// the position's average entry, as the journal computes it).
	ProfitInAccount bool `json:"profitInAccount,omitempty"`
	// FeeInQuote: a crypto row's fee is in the pair's quote (Kraken,
	// Coinbase) when the row does not name its coin.
	FeeInQuote bool `json:"feeInQuote,omitempty"`
	// Perpetual: the file's crypto symbols are perpetual contracts
	// (Bybit's BTCUSDT is BTC/USDT:PERP).
	Perpetual bool `json:"perpetual,omitempty"`
	// Funding are the values of the record type column ("type") whose
	// rows are funding or financing payments of a contract: each is folded
	// into the fees of the contract's next fill in the file (else its last
	// one), not imported as a fill.
	Funding []string `json:"funding,omitempty"`
	// Timezone is the zone of the file's times when the options name none
	// (an exchange that writes UTC); "" means the account's.
	Timezone string `json:"timezone,omitempty"`
	// HeaderLines is how many lines may come before the header (a report's
	// summary above its list); 0 means a few (headerSearch).
	HeaderLines int `json:"-"`
	// Sample is the file name of the preset's sample under testdata/.
	Sample string `json:"-"`
}

// presets are the built-in presets, in the order GET /api/csv-import/presets
// lists them.
var presets = []Preset{
	{
		ID:   "generic-execution",
		Name: "Generic: one fill per row",
		Description: "Date, Time, Symbol, Side, Quantity, Price and optional Fees/Commission columns. Side is buy or sell " +
			"(BOT, SLD, Buy to Open, Sell Short, ...); without a Side column a negative quantity is a sell. Options as OCC " +
			"symbols (AAPL  240119C00190000) or with Expiry, Strike and Call/Put columns.",
		HowToExport: "Any spreadsheet saved as CSV with these column names.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:       {"Date", "Trade Date", "Date/Time", "DateTime", "Filled At"},
			FieldTime:       {"Time", "Trade Time", "Exec Time"},
			FieldSymbol:     {"Symbol", "Ticker"},
			FieldAssetType:  {"Asset Type", "AssetType", "Instrument Type", "Security Type"},
			FieldExpiry:     {"Expiry", "Expiration", "Exp"},
			FieldStrike:     {"Strike"},
			FieldRight:      {"Call/Put", "Put/Call", "Right", "Option Type"},
			FieldSide:       {"Side", "Action", "Buy/Sell", "B/S"},
			FieldEffect:     {"Open/Close", "Position Effect", "Pos Effect"},
			FieldQuantity:   {"Quantity", "Qty", "Shares", "Contracts"},
			FieldPrice:      {"Price", "Fill Price", "Avg Price"},
			FieldFees:       {"Fees", "Fee"},
			FieldCommission: {"Commission", "Commissions"},
		},
		Required: []string{FieldDate, FieldSymbol, FieldQuantity, FieldPrice},
		Sample:   "generic_execution.csv",
	},
	{
		ID:   "generic-round-trip",
		Name: "Generic: one closed trade per row",
		Description: "Symbol, Side (Long/Short), Quantity, Entry Date, Entry Price, Exit Date, Exit Price, and optional " +
			"Entry Time, Exit Time, Fees, Commission and P&L columns. Each row is one closed position.",
		HowToExport: "Any spreadsheet saved as CSV with these column names.",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"Symbol", "Ticker"},
			FieldAssetType:  {"Asset Type", "AssetType"},
			FieldSide:       {"Side", "Direction"},
			FieldQuantity:   {"Quantity", "Qty", "Shares", "Size"},
			FieldEntryDate:  {"Entry Date", "Open Date", "Entry Datetime", "Open Datetime"},
			FieldEntryTime:  {"Entry Time", "Open Time"},
			FieldEntryPrice: {"Entry Price", "Open Price"},
			FieldExitDate:   {"Exit Date", "Close Date", "Exit Datetime", "Close Datetime"},
			FieldExitTime:   {"Exit Time", "Close Time"},
			FieldExitPrice:  {"Exit Price", "Close Price"},
			FieldFees:       {"Fees", "Fee"},
			FieldCommission: {"Commission", "Commissions"},
			FieldPnL:        {"P&L", "PnL", "Gross P&L", "Profit"},
		},
		Required: []string{FieldSymbol, FieldQuantity, FieldEntryDate, FieldEntryPrice, FieldExitDate, FieldExitPrice},
		Sample:   "generic_round_trip.csv",
	},
	{
		ID:   "tradejournal-export",
		Name: "Trade Journal: positions export",
		Description: "The positions CSV this app exports (Settings > Your data): one fill per row with Filled At in UTC, " +
			"Symbol (OCC for options, the contract for futures, a pair, a CFD in a currency of its own as GER40_EUR), Asset " +
			"Type, Side, Quantity, Price, Fees, and for forex, crypto and CFDs Fee Asset (a crypto fee's coin), Rate (a " +
			"rate given) and Multiplier (a future's, CFD's or crypto contract's value per point). Importing it " +
			"into an empty account gives back the same positions, fills and figures; a file of several accounts asks which " +
			"account's rows to read.",
		HowToExport: "Trade Journal: Settings > Your data > Export positions (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISODateTime, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldAccount:    {"Account"},
			FieldDate:       {"Filled At"},
			FieldSymbol:     {"Symbol"},
			FieldAssetType:  {"Asset Type"},
			FieldSide:       {"Side"},
			FieldQuantity:   {"Quantity"},
			FieldPrice:      {"Price"},
			FieldFees:       {"Fees"},
			fieldFeeAsset:   {"Fee Asset"},
			fieldRate:       {"Rate"},
			fieldMultiplier: {"Multiplier"},
		},
		Required: []string{FieldAccount, FieldDate, FieldSymbol, FieldAssetType, FieldSide, FieldQuantity, FieldPrice, FieldFees},
		Sample:   "tradejournal_export.csv",
	},
	{
		ID:   "ibkr-flex-trades",
		Name: "Interactive Brokers: Flex Query trades",
		Description: "A Flex Query of the Trades section in CSV (one row per execution). Quantity is signed, IBCommission " +
			"negative, DateTime yyyyMMdd;HHmmss (or TradeDate and TradeTime) in the time zone set in the query (default: the " +
			"account's). Options come as OCC symbols; forex trades (AssetClass CASH, EUR.USD, Quantity in units of the base) " +
			"as forex positions. Order and closed-lot summary rows are skipped. IBOrderID (or OrderID) ties the legs of a " +
			"combo order into one strategy. ClientAccountID: a query over several accounts can go to several journal accounts.",
		HowToExport: "Client Portal: Performance & Reports > Flex Queries > Activity Flex Query: section Trades " +
			"(Executions), format CSV, include column headers, no section header and trailer records; run it and download.",
		RowShape: ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:       {"DateTime", "Date/Time", "TradeDate", "Trade Date"},
			FieldTime:       {"TradeTime", "Trade Time"},
			FieldSymbol:     {"Symbol"},
			FieldAccount:    {"ClientAccountID", "AccountId", "Account ID"},
			FieldAssetType:  {"AssetClass", "Asset Class"},
			FieldSide:       {"Buy/Sell"},
			FieldEffect:     {"Open/CloseIndicator", "Open/Close"},
			FieldQuantity:   {"Quantity"},
			FieldPrice:      {"TradePrice", "Trade Price", "Price"},
			FieldCommission: {"IBCommission", "IB Commission", "Commission"},
			FieldFees:       {"Taxes"},
			"levelOfDetail": {"LevelOfDetail", "Level Of Detail"},
			// The legs of one combo order share its IB order id (each
			// execution has a TradeID of its own).
			fieldOrderID: {"IBOrderID", "OrderID"},
		},
		Required: []string{FieldDate, FieldSymbol, FieldQuantity, FieldPrice},
		Keep:     map[string][]string{"levelOfDetail": {"EXECUTION"}},
		Sample:   "ibkr_flex_trades.csv",
	},
	{
		ID:   "thinkorswim",
		Name: "thinkorswim / Schwab: account statement trades",
		Description: "The Account Trade History table of a thinkorswim account statement export (other tables are " +
			"ignored). Exec Time M/D/YY HH:MM:SS in the platform's time zone; options as underlying, Exp, Strike and " +
			"CALL/PUT; futures as /ESH24 (type FUTURE); futures options as their future (/ESZ24), the series code in Exp " +
			"(/EW4X24, which says the expiry), Strike and CALL/PUT; Pos Effect TO OPEN/TO CLOSE. The legs of a spread order (its first " +
			"row, then rows with an empty Exec Time) make one strategy. The table has no fees: they are estimated from the " +
			"account's fee schedule.",
		HowToExport: "thinkorswim: Monitor > Account Statement, pick the dates, then the menu at the top right > Export to File (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Section:     "Account Trade History",
		Columns:     thinkorswimColumns(),
		Required:    []string{FieldDate, FieldSide, FieldQuantity, FieldSymbol, FieldPrice},
		InheritTime: true,
		Sample:      "thinkorswim_statement.csv",
	},
	{
		ID:   "webull",
		Name: "Webull: orders",
		Description: "Webull's order history export. Only filled orders are fills (cancelled and failed ones are skipped); " +
			"Filled Time carries its zone (EST/EDT). Options as OCC symbols without padding (AAPL240119C00190000). The " +
			"export has no fees: they are estimated from the account's fee schedule.",
		HowToExport: "Webull desktop: Orders > Order History (stocks, or options), choose the dates, then Export (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Side", "B/S"},
			FieldQuantity:   {"Filled", "Filled Qty"},
			FieldPrice:      {"Avg Price", "Filled Avg Price", "Price"},
			FieldDate:       {"Filled Time", "Fill Time"},
			FieldCommission: {"Commission"},
			FieldFees:       {"Fee"},
			"status":        {"Status"},
		},
		Required: []string{FieldSymbol, FieldSide, FieldQuantity, FieldPrice, FieldDate},
		Keep:     map[string][]string{"status": {"Filled", "Partially Filled"}},
		Sample:   "webull_orders.csv",
	},
	{
		ID:   "tradovate",
		Name: "Tradovate: orders",
		Description: "Tradovate's Orders report (futures). Only filled orders are fills. Contracts (ESH4, MNQH4) become " +
			"futures positions with the root's built-in point value as multiplier; a root without one is a row error. " +
			"The report has no fees: they are estimated from the account's fee schedule (its options per-contract fields).",
		HowToExport: "Tradovate: Account > Reports > Orders, choose the dates, then Download Report (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSide:       {"B/S"},
			FieldSymbol:     {"Contract"},
			FieldQuantity:   {"filledQty", "Filled Qty"},
			FieldPrice:      {"avgPrice", "Avg Fill Price"},
			FieldDate:       {"Fill Time"},
			FieldCommission: {"Commission"},
			FieldAccount:    {"Account"},
			"status":        {"Status"},
		},
		Required:         []string{FieldSide, FieldSymbol, FieldQuantity, FieldPrice, FieldDate},
		Keep:             map[string][]string{"status": {"Filled"}},
		DefaultAssetType: AssetFuture,
		Sample:           "tradovate_orders.csv",
	},
	{
		ID:   "tradestation",
		Name: "TradeStation: filled orders",
		Description: "TradeStation's order history export. Only filled orders are fills. Type is Buy, Sell, Sell Short or " +
			"Buy To Cover (options: Buy To Open, Sell To Close, ...); Filled time M/D/YYYY h:mm:ss AM/PM. Options as " +
			"TradeStation symbols (AAPL 240119C190).",
		HowToExport: "TradeStation: Trade Manager > Orders (or the web Account > Order History), Filled, choose the dates, Export (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Type", "Side", "Action"},
			FieldQuantity:   {"Qty Filled", "Filled Qty", "Quantity Filled", "Qty"},
			FieldPrice:      {"Fill Price", "Avg Fill Price", "Filled Price"},
			FieldDate:       {"Filled", "Filled Time", "Fill Time"},
			FieldCommission: {"Commission"},
			FieldFees:       {"Fees"},
			"status":        {"Status"},
		},
		Required: []string{FieldSymbol, FieldSide, FieldQuantity, FieldPrice, FieldDate},
		Keep:     map[string][]string{"status": {"Filled"}},
		Sample:   "tradestation_orders.csv",
	},
	{
		ID:   "tradervue",
		Name: "Tradervue: trades export",
		Description: "Tradervue's trades export: one closed trade per row with Open Datetime, Close Datetime, Side (L/S), " +
			"Volume (shares per side), Entry Price and Exit Price (averages), Commissions and Fees. Each row becomes a " +
			"position with one entry and one exit at those averages.",
		HowToExport: "Tradervue: Trades, filter the dates, then Export > CSV.",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldEntryDate:  {"Open Datetime"},
			FieldExitDate:   {"Close Datetime"},
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Side"},
			FieldQuantity:   {"Volume"},
			FieldEntryPrice: {"Entry Price"},
			FieldExitPrice:  {"Exit Price"},
			FieldCommission: {"Commissions", "Commission"},
			FieldFees:       {"Fees"},
			FieldPnL:        {"Gross P&L"},
		},
		Required: []string{FieldEntryDate, FieldExitDate, FieldSymbol, FieldSide, FieldQuantity, FieldEntryPrice, FieldExitPrice},
		Sample:   "tradervue_trades.csv",
	},
	{
		ID:   "tradezella",
		Name: "TradeZella: executions export",
		Description: "TradeZella's generic executions layout: Date, Time, Symbol, Buy/Sell, Quantity, Price, Spread " +
			"(Stock/Option), Expiration (DD MMM YY), Strike, Call/Put, Commission, Fees.",
		HowToExport: "TradeZella: Trades > Export (executions), or any file in TradeZella's generic template.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:       {"Date"},
			FieldTime:       {"Time"},
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Buy/Sell"},
			FieldQuantity:   {"Quantity"},
			FieldPrice:      {"Price"},
			FieldAssetType:  {"Spread"},
			FieldExpiry:     {"Expiration"},
			FieldStrike:     {"Strike"},
			FieldRight:      {"Call/Put"},
			FieldCommission: {"Commission"},
			FieldFees:       {"Fees"},
		},
		Required: []string{FieldDate, FieldTime, FieldSymbol, FieldSide, FieldQuantity, FieldPrice},
		Sample:   "tradezella_executions.csv",
	},
	{
		ID:   "ibkr-activity-statement",
		Name: "Interactive Brokers: Activity Statement",
		Description: "IB's default Activity Statement in CSV: the Trades table is read (every line starts with the table's " +
			"name), order rows only; subtotals and other tables are ignored. Stocks, options (SPY 21MAR25 600 C), " +
			"futures (MESH5) and forex (EUR.USD, Quantity in units of the base); bonds, funds and warrants are skipped " +
			"and counted. Comm/Fee (Comm in USD) is negative: a charge.",
		HowToExport: "Client Portal: Performance & Reports > Statements > Activity, period Daily (or a custom range), format CSV, Run, then Download.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Section: "Trades", SectionColumn: true,
		Columns: map[string][]string{
			FieldDate:           {"Date/Time"},
			FieldSymbol:         {"Symbol"},
			FieldAssetType:      {"Asset Category"},
			FieldQuantity:       {"Quantity"},
			FieldPrice:          {"T. Price", "Trade Price"},
			FieldCommission:     {"Comm/Fee", "Comm in USD"},
			FieldAccount:        {"Account"},
			"dataDiscriminator": {"DataDiscriminator"},
		},
		Required:        []string{FieldDate, FieldSymbol, FieldQuantity, FieldPrice},
		Keep:            map[string][]string{"dataDiscriminator": {"Order"}},
		SkipUnsupported: true,
		Sample:          "ibkr_activity_statement.csv",
	},
	{
		ID:   "thinkorswim-filled-orders",
		Name: "thinkorswim: account statement filled orders (paperMoney)",
		Description: "The Filled Orders table of a thinkorswim account statement, the one paperMoney statements carry " +
			"(other tables are ignored). Same columns as the trade history: Exec Time, Side, Qty, Pos Effect, Symbol, Exp, " +
			"Strike, Type, Price; a spread order's legs (rows with an empty Exec Time after its first) make one strategy. " +
			"The table has no fees: they are estimated from the account's fee schedule.",
		HowToExport: "thinkorswim (paperMoney or live): Monitor > Account Statement, pick the dates, then the menu at the top right > Export to File (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Section:     "Filled Orders",
		Columns:     thinkorswimColumns(),
		Required:    []string{FieldDate, FieldSide, FieldQuantity, FieldSymbol, FieldPrice},
		InheritTime: true,
		Sample:      "thinkorswim_filled_orders.csv",
	},
	{
		ID:   "tradovate-performance",
		Name: "Tradovate: Performance (closed trades)",
		Description: "Tradovate's Performance export: one row per matched buy and sell fill (buyFillId, sellFillId, qty, " +
			"buyPrice, sellPrice, boughtTimestamp, soldTimestamp). The earlier of the two opened the trade, so a sell before the " +
			"buy is a short. The rows of one scaled trade (holdings that overlap) are one position, and a fill several rows " +
			"share is one fill, as the Orders report gives them. No fees in the export: they are estimated from the account's " +
			"fee schedule.",
		HowToExport: "Tradovate: Account > Reports > Performance, choose the dates, then Download Report (CSV).",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"symbol"},
			FieldQuantity:   {"qty"},
			FieldEntryPrice: {"buyPrice"},
			FieldExitPrice:  {"sellPrice"},
			FieldEntryDate:  {"boughtTimestamp"},
			FieldExitDate:   {"soldTimestamp"},
			FieldPnL:        {"pnl"},
			// The fills a row pairs: rows that share one (a scale-in or
			// scale-out) name it alike.
			fieldEntryFill: {"buyFillId"},
			fieldExitFill:  {"sellFillId"},
		},
		Required:         []string{FieldSymbol, FieldQuantity, FieldEntryPrice, FieldExitPrice, FieldEntryDate, FieldExitDate},
		BuySell:          true,
		DefaultAssetType: AssetFuture,
		Sample:           "tradovate_performance.csv",
	},
	{
		ID:   "ninjatrader",
		Name: "NinjaTrader 8: executions",
		Description: "NinjaTrader's Executions grid exported to CSV: Instrument (MNQ 03-25), Action, Quantity, Price, Time, " +
			"E/X, Commission, Account. Instruments are futures (root and MM-YY) with the root's point value. A file " +
			"saved in another locale (0,62 $) reads with number format eu.",
		HowToExport: "NinjaTrader 8: Control Center > New > Trade Performance, Executions tab, Generate, then right-click the grid > Export (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"Instrument"},
			FieldSide:       {"Action"},
			FieldQuantity:   {"Quantity"},
			FieldPrice:      {"Price"},
			FieldDate:       {"Time"},
			FieldEffect:     {"E/X"},
			FieldCommission: {"Commission"},
			FieldAccount:    {"Account"},
		},
		Required:         []string{FieldSymbol, FieldSide, FieldQuantity, FieldPrice, FieldDate},
		DefaultAssetType: AssetFuture,
		Sample:           "ninjatrader_executions.csv",
	},
	{
		ID:   "tradezero",
		Name: "TradeZero: trade history",
		Description: "TradeZero's trade history: T/D and Exec Time, Side (B, S, SS, BC), Symbol, Qty, Price; Comm plus the " +
			"SEC, TAF, NSCC, Nasdaq and ECN Remove fees. ECN Add rebates are not counted (the journal's fees are charges).",
		HowToExport: "TradeZero web portal: Account > Trade History (or Reports > Trades), choose the dates, then Export CSV.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:       {"T/D", "Trade Date"},
			FieldTime:       {"Exec Time"},
			FieldSide:       {"Side"},
			FieldSymbol:     {"Symbol"},
			FieldQuantity:   {"Qty"},
			FieldPrice:      {"Price"},
			FieldCommission: {"Comm"},
			FieldAccount:    {"Account"},
		},
		FeeColumns: []string{"SEC", "TAF", "NSCC", "Nasdaq", "ECN Remove"},
		Required:   []string{FieldDate, FieldTime, FieldSide, FieldSymbol, FieldQuantity, FieldPrice},
		Sample:     "tradezero_trades.csv",
	},
	{
		ID:   "schwab-transactions",
		Name: "Charles Schwab: transaction history",
		Description: "Schwab's account history: Date (\"as of\" dates read as the first date), Action, Symbol, Quantity, Price, " +
			"Fees & Comm. Options as NVDA 03/21/2025 130.00 C. Rows that are not trades (dividends, transfers, interest) " +
			"are skipped and counted. Dates only, newest first: fills of one day keep their order.",
		HowToExport: "schwab.com: Accounts > History > Transactions, choose the account and dates, then Export (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:        {"Date"},
			FieldSide:        {"Action"},
			FieldSymbol:      {"Symbol"},
			FieldDescription: {"Description"},
			FieldQuantity:    {"Quantity"},
			FieldPrice:       {"Price"},
			FieldFees:        {"Fees & Comm"},
		},
		Required:      []string{FieldDate, FieldSide, FieldSymbol, FieldQuantity, FieldPrice},
		SkipNonTrades: true,
		Sample:        "schwab_transactions.csv",
	},
	{
		ID:   "etrade",
		Name: "E*TRADE: transaction history",
		Description: "E*TRADE's transactions download: TransactionDate, TransactionType (Bought, Sold, Bought To Open, ...), " +
			"SecurityType (EQ, OPTN), Symbol (options as SPY Feb 21 '25 $600 Put), Quantity, Price, Commission. The account " +
			"lines before the header are passed over; dividends and transfers are skipped and counted.",
		HowToExport: "E*TRADE: Accounts > Transactions, choose the account and dates, then Download (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:        {"TransactionDate"},
			FieldSide:        {"TransactionType"},
			FieldAssetType:   {"SecurityType"},
			FieldSymbol:      {"Symbol"},
			FieldQuantity:    {"Quantity"},
			FieldPrice:       {"Price"},
			FieldCommission:  {"Commission"},
			FieldDescription: {"Description"},
		},
		Required:      []string{FieldDate, FieldSide, FieldSymbol, FieldQuantity, FieldPrice},
		SkipNonTrades: true,
		Sample:        "etrade_transactions.csv",
	},
	{
		ID:   "fidelity",
		Name: "Fidelity: account history",
		Description: "Fidelity's Accounts History download: Run Date, Action (YOU BOUGHT ..., YOU SOLD CLOSING TRANSACTION ...), " +
			"Symbol (options as -NVDA260710P195), Quantity, Price ($), Commission ($), Fees ($). Dividends and transfers are " +
			"skipped and counted, and so are the disclaimer lines after the table.",
		HowToExport: "Fidelity.com: Accounts & Trade > Portfolio > Activity & Orders, History, choose the dates, then Download (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:        {"Run Date"},
			FieldAccount:     {"Account", "Account Number"},
			FieldSide:        {"Action"},
			FieldSymbol:      {"Symbol"},
			FieldDescription: {"Description", "Security Description"},
			FieldQuantity:    {"Quantity"},
			FieldPrice:       {"Price ($)", "Price"},
			FieldCommission:  {"Commission ($)", "Commission"},
			FieldFees:        {"Fees ($)", "Fees"},
		},
		Required:      []string{FieldDate, FieldSide, FieldSymbol, FieldQuantity, FieldPrice},
		SkipNonTrades: true,
		SkipNotes:     true,
		Sample:        "fidelity_history.csv",
	},
	{
		ID:   "robinhood",
		Name: "Robinhood: account activity report",
		Description: "Robinhood's activity report: Activity Date, Instrument, Description (options as NVDA 3/21/2025 Call " +
			"$140.00), Trans Code (Buy, Sell, BTO, STC, ...), Quantity, Price. Dividends, deposits and other codes are skipped " +
			"and counted. No fee column: fees are estimated from the account's fee schedule.",
		HowToExport: "Robinhood web: Account > Reports and statements > Reports, Generate report (CSV) for the dates, then download it from the email or the page.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:        {"Activity Date"},
			FieldSymbol:      {"Instrument"},
			FieldDescription: {"Description"},
			FieldSide:        {"Trans Code"},
			FieldQuantity:    {"Quantity"},
			FieldPrice:       {"Price"},
		},
		Required:      []string{FieldDate, FieldSymbol, FieldSide, FieldQuantity, FieldPrice},
		SkipNonTrades: true,
		Sample:        "robinhood_activity.csv",
	},
	{
		ID:   "tradingview",
		Name: "TradingView: order history (paper trading)",
		Description: "TradingView's order history: Symbol with its exchange (NASDAQ:AAPL, CME_MINI:MESH2025), Side, Qty, " +
			"Fill Price, Status (cancelled and rejected orders are skipped), Commission, Closing Time (the fill).",
		HowToExport: "TradingView: the Trading Panel (Paper Trading or the broker) > History (or Orders) tab, then the export (download) button.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Side"},
			FieldQuantity:   {"Qty"},
			FieldPrice:      {"Fill Price", "Avg Fill Price"},
			FieldDate:       {"Closing Time", "Fill Time"},
			FieldCommission: {"Commission"},
			FieldStatus:     {"Status"},
		},
		Required: []string{FieldSymbol, FieldSide, FieldQuantity, FieldPrice, FieldDate},
		Keep:     map[string][]string{FieldStatus: {"Filled"}},
		Sample:   "tradingview_orders.csv",
	},
	{
		ID:   "projectx",
		Name: "ProjectX / TopstepX: trades",
		Description: "The trades export of ProjectX platforms (TopstepX and other prop firms): one closed trade per row with " +
			"ContractName (MNQH5), EnteredAt, ExitedAt (with their offset), EntryPrice, ExitPrice, Size, Type (Long/Short), " +
			"Fees, Commissions and PnL.",
		HowToExport: "TopstepX (or another ProjectX platform): the Trades tab of the account panel, choose the dates, then Export (CSV).",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"ContractName", "Contract"},
			FieldEntryDate:  {"EnteredAt"},
			FieldExitDate:   {"ExitedAt"},
			FieldEntryPrice: {"EntryPrice"},
			FieldExitPrice:  {"ExitPrice"},
			FieldQuantity:   {"Size"},
			FieldSide:       {"Type"},
			FieldFees:       {"Fees"},
			FieldCommission: {"Commissions"},
			FieldPnL:        {"PnL"},
		},
		Required:         []string{FieldSymbol, FieldEntryDate, FieldExitDate, FieldEntryPrice, FieldExitPrice, FieldQuantity, FieldSide},
		DefaultAssetType: AssetFuture,
		Sample:           "projectx_trades.csv",
	},
	{
		ID:   "metatrader5",
		Name: "MetaTrader 5: history report deals",
		Description: "The Deals table of an MT5 history report saved as CSV: Time (2025.02.24 16:30:05, server time: set the " +
			"file's time zone), Symbol, Type (buy/sell), Direction (in, out, in/out), Volume in lots, Price, Commission, Fee, " +
			"Swap and Profit in the account's currency. Forex pairs (EURUSD, EURUSD.m, XAUUSD) are lots x 100,000 units (gold " +
			"100 oz); index and commodity CFDs (US500, GER40, USOIL) and coins (BTCUSD) are lots as contracts; other symbols " +
			"are shares. An exit's rate into the account's currency is its Profit over its P&L in the quote; a swap charged " +
			"is a fee, a swap credited comes off the deal's charges (a pair's or a CFD's fees may go below 0). Balance and " +
			"other non-trade rows are skipped.",
		HowToExport: "MetaTrader 5: Toolbox > History, right-click > Report > Open XML (or HTML), then open it in a spreadsheet and save as CSV.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Section: "Deals",
		Columns: map[string][]string{
			FieldDate:       {"Time"},
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Type"},
			FieldEffect:     {"Direction"},
			FieldQuantity:   {"Volume"},
			FieldPrice:      {"Price"},
			FieldCommission: {"Commission"},
			FieldFees:       {"Fee"},
			fieldSwap:       {"Swap"},
			fieldProfit:     {"Profit"},
		},
		Required:        []string{FieldDate, FieldSymbol, FieldSide, FieldQuantity, FieldPrice},
		SkipNonTrades:   true,
		Vocabulary:      Vocabulary{OpenClose: map[string]string{"in/out": "auto", "out by": "close"}},
		Lots:            true,
		ProfitInAccount: true,
		Sample:          "mt5_deals.csv",
	},
	{
		ID:   "tastytrade",
		Name: "tastytrade: transactions",
		Description: "tastytrade's transaction history: Date (with its offset), Type (only Trade rows are fills; money " +
			"movements are skipped), Action (BUY_TO_OPEN, SELL_TO_CLOSE, ...), Symbol (OCC options, /MESH5 futures, " +
			"./ESZ4 EW4X4 241122C5900 futures options with the future's point value as multiplier), Instrument Type, " +
			"Quantity, the price written in the Description (\"Bought 1 /CLJ4 @ 79.69\": Average Price holds the mark on " +
			"futures rows), else Average Price (per contract: divided by the Multiplier column), Commissions, Fees; " +
			"the legs of one order (Order #) make one strategy.",
		HowToExport: "tastytrade: History > Transactions, choose the dates, then the CSV download button.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:            {"Date"},
			"type":               {"Type"},
			FieldSide:            {"Action"},
			FieldSymbol:          {"Symbol"},
			FieldAssetType:       {"Instrument Type"},
			FieldDescription:     {"Description"},
			FieldQuantity:        {"Quantity"},
			FieldPrice:           {"Average Price"},
			FieldCommission:      {"Commissions"},
			FieldFees:            {"Fees"},
			fieldPriceMultiplier: {"Multiplier"},
			fieldOrderID:         {"Order #"},
		},
		Required:             []string{FieldDate, FieldSide, FieldSymbol, FieldQuantity, FieldPrice},
		Keep:                 map[string][]string{"type": {"Trade"}},
		PriceTimesMultiplier: true,
		PriceInDescription:   true,
		Sample:               "tastytrade_transactions.csv",
	},
	{
		ID:   "firstrade",
		Name: "Firstrade: account history",
		Description: "Firstrade's account history download: Symbol, Quantity (negative for a sell), Price, Action (BUY, SELL), " +
			"TradeDate, Commission, Fee, RecordType (only Trade rows are fills; interest and transfers are skipped).",
		HowToExport: "Firstrade: Accounts > History, choose the dates, then Download (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:      {"Symbol"},
			FieldQuantity:    {"Quantity"},
			FieldPrice:       {"Price"},
			FieldSide:        {"Action"},
			FieldDescription: {"Description"},
			FieldDate:        {"TradeDate"},
			FieldCommission:  {"Commission"},
			FieldFees:        {"Fee"},
			"recordType":     {"RecordType"},
		},
		Required: []string{FieldSymbol, FieldQuantity, FieldPrice, FieldSide, FieldDate},
		Keep:     map[string][]string{"recordType": {"Trade"}},
		Sample:   "firstrade_history.csv",
	},
	{
		ID:   "lightspeed",
		Name: "Lightspeed: trade blotter",
		Description: "Lightspeed's blotter (executions) download: Trade Date and Execution Time (Eastern time), Side (B, S; " +
			"short sales are S), Symbol, Qty (sells may be negative), Price, Commission Amount plus the FeeSEC, FeeTAF, " +
			"FeeMF, FeeStamp and Fee1-Fee4 columns, and Account (a file of several accounts can go to several journal accounts).",
		HowToExport: "lightspeed.com: Reports > Account List, pick the account, then Blotter; choose the dates, Apply, then the CSV button (unzip the download).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:       {"Trade Date"},
			FieldTime:       {"Execution Time", "Raw Exec. Time"},
			FieldSide:       {"Side"},
			FieldSymbol:     {"Symbol"},
			FieldQuantity:   {"Qty"},
			FieldPrice:      {"Price"},
			FieldCommission: {"Commission Amount"},
			FieldAccount:    {"Account"},
		},
		FeeColumns: []string{"FeeSEC", "FeeTAF", "FeeMF", "FeeStamp", "Fee1", "Fee2", "Fee3", "Fee4"},
		Required:   []string{FieldDate, FieldTime, FieldSide, FieldSymbol, FieldQuantity, FieldPrice, FieldCommission},
		Sample:     "lightspeed_blotter.csv",
	},
	{
		ID:   "das-trader",
		Name: "DAS Trader Pro: trade log",
		Description: "DAS Trader's Trades window exported to CSV: Time (no date: the log holds one day, so the import asks " +
			"for the trading day), Symb, Side (B, S, SS), Price, Qty, Route, Account. The log has no fees: they are " +
			"estimated from the account's fee schedule.",
		HowToExport: "DAS Trader Pro: Trade > Trade Log (or the Trades window), right-click > Export, before the day's log is cleared; give the import the day it is of.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldTime:     {"Time"},
			FieldSymbol:   {"Symb", "Symbol"},
			FieldSide:     {"Side"},
			FieldPrice:    {"Price"},
			FieldQuantity: {"Qty"},
			FieldAccount:  {"Account"},
			"route":       {"Route"},
		},
		Required:  []string{FieldTime, FieldSymbol, FieldSide, FieldPrice, FieldQuantity, "route"},
		NeedsDate: true,
		Sample:    "das_trades.csv",
	},
	{
		ID:   "avatrade",
		Name: "AvaTrade: closed positions",
		Description: "AvaTrade's closed positions report: one closed position per row with Ticket, Symbol, Buy/Sell, Amount, " +
			"Open and Close (rates), Open Time and Close Time (DD/MM/YYYY), Swap, and Gross P/L in the account's currency. " +
			"Share CFDs by ticker are journaled as shares; forex pairs (EUR/USD, Amount in units) and index or commodity " +
			"CFDs (US500, GER40) as forex and CFD positions, their rate into the account's currency from Gross P/L. No fee " +
			"column: share fees are estimated from the account's fee schedule (a spread broker's pairs and CFDs have none).",
		HowToExport: "AvaTrade WebTrader: Account > Closed Positions (or Reports > Account Statement), choose the dates, then Export (CSV).",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateEU, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldSymbol:     {"Symbol", "Instrument"},
			FieldSide:       {"Buy/Sell"},
			FieldQuantity:   {"Amount"},
			FieldEntryPrice: {"Open", "Open Rate"},
			FieldEntryDate:  {"Open Time"},
			FieldExitPrice:  {"Close", "Close Rate"},
			FieldExitDate:   {"Close Time"},
			FieldPnL:        {"Gross P/L"},
			fieldSwap:       {"Swap"},
			"ticket":        {"Ticket"},
		},
		Required:        []string{"ticket", FieldSymbol, FieldSide, FieldQuantity, FieldEntryPrice, FieldEntryDate, FieldExitPrice, FieldExitDate},
		SkipUnsupported: true,
		ProfitInAccount: true,
		Sample:          "avatrade_closed_positions.csv",
	},
	{
		ID:   "tradestation-trades",
		Name: "TradeStation: trades list",
		Description: "The Trades List of a TradeStation performance report (Strategy Performance Report or TradeManager " +
			"Analysis) saved as CSV: two rows a trade, # and Type (Buy, Sell Short) on the entry with its Shares/Ctrts, then " +
			"the exit (Sell, Buy to Cover) whose Shares/Ctrts cell holds the profit, Date/Time, Price and Comm. The list " +
			"names no symbol: the import asks for the instrument (symbol). A summary above the list is passed over.",
		HowToExport: "TradeStation: open the Strategy Performance Report (or TradeManager Analysis), Trades List tab, then File > Save As (Excel or CSV) and save that sheet as CSV.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			"tradeNumber":   {"#"},
			FieldSide:       {"Type"},
			FieldDate:       {"Date/Time"},
			"signal":        {"Signal"},
			FieldPrice:      {"Price"},
			FieldQuantity:   {"Shares/Ctrts - Profit/Loss", "Shares/Ctrts/Units - Profit/Loss", "Contracts - Profit/Loss"},
			FieldCommission: {"Comm."},
		},
		Required:    []string{"tradeNumber", FieldSide, FieldDate, "signal", FieldPrice, FieldQuantity},
		NeedsSymbol: true,
		PairedRows:  true,
		HeaderLines: 300,
		Sample:      "tradestation_trades_list.csv",
	},
	{
		ID:   "merrill-edge",
		Name: "Merrill Edge: account activity",
		Description: "Merrill's activity download: Trade Date, Account #, Description 1 (Purchase, Sale, Option Purchase, Option " +
			"Sale; dividends, interest, transfers, expirations and assignments are skipped and counted), Description 2, " +
			"Symbol/CUSIP # (options in Merrill's code, TSLA#B1326C425000: the root, #, a month letter, A-L calls and M-X puts, " +
			"the day, the year, the strike's decimal places as a letter and its digits; read from Description 2, \"CALL TSLA " +
			"00425.000 EXP 02/13/26\", when the code does not read), Quantity (negative on sales), Price ($). Dates without " +
			"times; no fee column: fees are estimated from the account's fee schedule. A download of several accounts can go " +
			"to several journal accounts.",
		HowToExport: "Merrill Edge: Accounts > the account's Activity (History), then Download: data type Activity, activity type " +
			"Security transactions (or All), the settlement dates, format CSV, the accounts; then download the file.",
		RowShape: ShapeExecution, Delimiter: ",", DateFormat: DateUS, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:        {"Trade Date"},
			FieldAccount:     {"Account #", "Account Number"},
			FieldSide:        {"Description 1"},
			FieldDescription: {"Description 2"},
			FieldSymbol:      {"Symbol/CUSIP #", "Symbol/CUSIP"},
			FieldQuantity:    {"Quantity"},
			FieldPrice:       {"Price ($)", "Price"},
		},
		Required: []string{FieldDate, FieldSide, FieldSymbol, FieldQuantity, FieldPrice},
		Vocabulary: Vocabulary{Sides: map[string]string{"Purchase": "buy", "Sale": "sell",
			"Option Purchase": "buy", "Option Sale": "sell"}},
		SkipNonTrades: true,
		SkipNotes:     true,
		Sample:        "merrill_edge_activity.csv",
	},
	{
		ID:   "metatrader4",
		Name: "MetaTrader 4: account history statement",
		Description: "The Closed Transactions table of an MT4 statement (Account History, Save as Report or Detailed Report) " +
			"saved as CSV: one closed position per row with Ticket, Open Time, Type (buy/sell), Size in lots, Item, Price, " +
			"S / L, T / P, Close Time, Price (the close), Commission, Taxes, Swap and Profit in the account's currency; times " +
			"2025.02.24 16:30:05 in the server's time (set the file's time zone). Forex pairs are lots x 100,000 units (gold " +
			"100 oz), CFDs and coins lots as contracts, other items shares. The exit's rate into the account's currency is " +
			"Profit over the P&L in the quote; a swap charged is a fee, a swap credited comes off the row's charges. Rows " +
			"whose holdings overlap make one position (a scale-in of two tickets). Balance and credit rows, cancelled pending " +
			"orders (buy limit, sell stop, ...) and the totals are skipped.",
		HowToExport: "MetaTrader 4: Terminal > Account History, right-click > All History (or a period), then right-click > Save as Report; open the report in a spreadsheet and save it as CSV.",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Section: "Closed Transactions:",
		Columns: map[string][]string{
			"ticket":        {"Ticket", "Order"},
			FieldEntryDate:  {"Open Time"},
			FieldSide:       {"Type"},
			FieldQuantity:   {"Size", "Lots", "Volume"},
			FieldSymbol:     {"Item", "Symbol"},
			FieldEntryPrice: {"Price", "Open Price"},
			FieldExitDate:   {"Close Time"},
			FieldExitPrice:  {"Price#2", "Close Price"},
			FieldCommission: {"Commission"},
			fieldSwap:       {"Swap"},
			FieldPnL:        {"Profit"},
		},
		FeeColumns:      []string{"Taxes"},
		Required:        []string{"ticket", FieldEntryDate, FieldSide, FieldQuantity, FieldSymbol, FieldEntryPrice, FieldExitDate, FieldExitPrice},
		Skip:            map[string][]string{FieldSide: {"buy limit", "sell limit", "buy stop", "sell stop", "buy stop limit", "sell stop limit"}},
		SkipNonTrades:   true,
		Lots:            true,
		ProfitInAccount: true,
		Sample:          "mt4_statement.csv",
	},
	{
		ID:   "ctrader",
		Name: "cTrader: history",
		Description: "cTrader's History tab exported to CSV: one closing deal per row with Symbol, Opening Direction (Buy/Sell), " +
			"Opening Time and Closing Time (DD/MM/YYYY HH:MM:SS.fff, the platform's time zone), Entry Price, Closing Price, " +
			"Closing Quantity in lots (or with its unit: 0.10 Lots, 10000 EUR), Commissions, Swap and Gross in the account's " +
			"currency (Gross USD, Gross EUR, ...). Forex pairs are lots x 100,000 units, CFDs and coins lots as contracts. " +
			"The exit's rate into the account's currency is Gross over the P&L in the quote; a swap charged is a fee, a swap " +
			"credited comes off the commissions. A position closed in parts is a row a part; the rows whose holdings " +
			"overlap make one journal position.",
		HowToExport: "cTrader (desktop or web): the History tab of TradeWatch, choose the period, then right-click the table (or the export button) > Export to CSV.",
		RowShape:    ShapeRoundTrip, Delimiter: ",", DateFormat: DateEU, NumberFormat: NumberUS,
		Columns: map[string][]string{
			"ticket":        {"ID", "Deal ID", "Position ID"},
			FieldSymbol:     {"Symbol"},
			FieldSide:       {"Opening Direction", "Direction"},
			FieldEntryDate:  {"Opening Time", "Open Time"},
			FieldExitDate:   {"Closing Time", "Close Time"},
			FieldEntryPrice: {"Entry Price"},
			FieldExitPrice:  {"Closing Price", "Close Price"},
			FieldQuantity:   {"Closing Quantity", "Quantity", "Volume (Lots)"},
			FieldCommission: {"Commissions", "Commission"},
			fieldSwap:       {"Swap"},
			FieldPnL:        grossColumns(),
		},
		Required:        []string{FieldSymbol, FieldSide, FieldEntryDate, FieldExitDate, FieldEntryPrice, FieldExitPrice, FieldQuantity},
		Lots:            true,
		ProfitInAccount: true,
		Sample:          "ctrader_history.csv",
	},
	{
		ID:   "oanda",
		Name: "OANDA: transaction history",
		Description: "OANDA's (v20) transaction history as CSV: Order Fill rows are fills, with Instrument (EUR_USD, XAU_USD, " +
			"CFDs as DE30_EUR in their currency), signed Units (negative a sell), Price, PL in the account's currency (the " +
			"exit's rate is it over the P&L in the quote), Financing (negative paid) and Commission, Time in UTC. Daily " +
			"financing rows are folded into the fees of the instrument's next fill; orders, transfers and other rows are " +
			"skipped and counted.",
		HowToExport: "OANDA Hub (or fxTrade): Account > Transaction history (Statements), choose the account and the period, then Download (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			fieldType:       {"Type", "Transaction Type"},
			FieldDate:       {"Time", "Date", "Time (UTC)", "Date/Time"},
			FieldSymbol:     {"Instrument"},
			FieldQuantity:   {"Units"},
			FieldPrice:      {"Price"},
			fieldProfit:     {"PL", "P/L", "Profit/Loss", "Realized PL"},
			fieldSwap:       {"Financing"},
			FieldCommission: {"Commission"},
			FieldAccount:    {"Account ID", "Account"},
		},
		Required:        []string{fieldType, FieldDate, FieldSymbol, FieldQuantity, FieldPrice},
		Keep:            map[string][]string{fieldType: {"ORDER_FILL", "Order Fill", "Order Filled"}},
		Funding:         []string{"DAILY_FINANCING", "Daily Financing"},
		ProfitInAccount: true,
		Timezone:        "UTC",
		Sample:          "oanda_transactions.csv",
	},
	{
		ID:   "binance",
		Name: "Binance: spot trade history",
		Description: "Binance's Spot trade history export: Date(UTC), Pair (BTCUSDT), Side (BUY/SELL), Price, Executed (0.5BTC) " +
			"and Fee with its coin (0.00075BNB); the older layout's Market, Type, Amount, Total, Fee and Fee Coin read too. " +
			"A fee in the base, the quote or another coin (BNB) is kept in its coin, turned into the account's currency at " +
			"the fill's rate or a stored exchange rate; without one the position waits for it (AWAITING_RATE).",
		HowToExport: "Binance: Orders > Spot Order > Trade History, choose the period, then Export (CSV); unzip the download.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:     {"Date(UTC)", "Date (UTC)", "Time"},
			FieldSymbol:   {"Pair", "Market", "Symbol"},
			FieldSide:     {"Side", "Type"},
			FieldPrice:    {"Price"},
			FieldQuantity: {"Executed", "Amount", "Quantity"},
			FieldFees:     {"Fee"},
			fieldFeeAsset: {"Fee Coin", "Fee Asset"},
		},
		Required:         []string{FieldDate, FieldSymbol, FieldSide, FieldPrice, FieldQuantity},
		DefaultAssetType: AssetCrypto,
		Timezone:         "UTC",
		Sample:           "binance_trades.csv",
	},
	{
		ID:   "coinbase",
		Name: "Coinbase: transaction report",
		Description: "The Coinbase app's transaction report: Timestamp (UTC), Transaction Type (Buy, Sell, Advanced Trade Buy, " +
			"Advanced Trade Sell), Asset, Quantity Transacted, Price Currency (or Spot Price Currency), Price at Transaction " +
			"and Fees and/or Spread in that currency. Send, Receive, Convert, staking and reward rows are skipped and " +
			"counted, and so are the lines above the header.",
		HowToExport: "Coinbase: Profile > Statements (Reports), Generate a transaction history report (CSV) for the period, then download it.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:     {"Timestamp"},
			FieldSide:     {"Transaction Type"},
			FieldSymbol:   {"Asset"},
			FieldQuantity: {"Quantity Transacted"},
			fieldQuote:    {"Price Currency", "Spot Price Currency"},
			FieldPrice:    {"Price at Transaction", "Spot Price at Transaction"},
			FieldFees:     {"Fees and/or Spread", "Fees"},
		},
		Required:         []string{FieldDate, FieldSide, FieldSymbol, FieldQuantity, fieldQuote, FieldPrice},
		SkipNonTrades:    true,
		Vocabulary:       Vocabulary{Sides: map[string]string{"Advanced Trade Buy": "buy", "Advanced Trade Sell": "sell"}},
		DefaultAssetType: AssetCrypto,
		FeeInQuote:       true,
		Timezone:         "UTC",
		Sample:           "coinbase_transactions.csv",
	},
	{
		ID:   "coinbase-fills",
		Name: "Coinbase Advanced Trade: fills",
		Description: "Coinbase Advanced Trade's (formerly Coinbase Pro) fills export: portfolio, trade id, product (BTC-USD), " +
			"side (BUY/SELL), created at (UTC), size in the base, price, fee and the price/fee/total unit (the quote).",
		HowToExport: "Coinbase Advanced: Portfolio (or Orders) > Statements, Generate a Fills report (CSV) for the account and period, then download it.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldAccount:  {"portfolio"},
			"tradeId":     {"trade id"},
			FieldSymbol:   {"product"},
			FieldSide:     {"side"},
			FieldDate:     {"created at"},
			FieldQuantity: {"size"},
			FieldPrice:    {"price"},
			FieldFees:     {"fee"},
			fieldFeeAsset: {"price/fee/total unit"},
		},
		Required:         []string{"tradeId", FieldSymbol, FieldSide, FieldDate, FieldQuantity, FieldPrice},
		DefaultAssetType: AssetCrypto,
		FeeInQuote:       true,
		Timezone:         "UTC",
		Sample:           "coinbase_fills.csv",
	},
	{
		ID:   "kraken",
		Name: "Kraken: trades",
		Description: "Kraken's trades.csv export: txid, ordertxid (one order's fills), pair (XXBTZUSD, XETHZEUR, SOLUSD, " +
			"XBT/USD), time (UTC), type (buy/sell), ordertype, price, cost, fee (in the quote), vol (the base), margin, misc, " +
			"ledgers.",
		HowToExport: "Kraken: Documents (History) > Export, choose Trades, the period and all fields, Submit, then download and unzip trades.csv.",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			"txid":        {"txid"},
			fieldOrderID:  {"ordertxid"},
			FieldSymbol:   {"pair"},
			FieldDate:     {"time"},
			FieldSide:     {"type"},
			FieldPrice:    {"price"},
			FieldFees:     {"fee"},
			FieldQuantity: {"vol"},
		},
		Required:         []string{"txid", FieldSymbol, FieldDate, FieldSide, FieldPrice, FieldQuantity},
		DefaultAssetType: AssetCrypto,
		FeeInQuote:       true,
		Timezone:         "UTC",
		Sample:           "kraken_trades.csv",
	},
	{
		ID:   "bybit",
		Name: "Bybit: derivatives transaction log",
		Description: "Bybit's USDT perpetual transaction log: Time (UTC), Currency (the settlement coin), Contract (BTCUSDT, " +
			"a perpetual: BTC/USDT:PERP), Type (trade and liquidation rows are fills), Direction (Open Long, Close Short, ...), " +
			"Quantity, Filled Price, Fee Paid (negative a rebate) and Funding. Funding rows (positive paid, negative " +
			"received) are folded into the fees of the contract's next fill; transfers are skipped; a coin-margined " +
			"(inverse) contract, which settles in its base, is skipped and counted. Fees and funding are in the settlement " +
			"coin (USDT): without a rate of it into the account's currency the positions wait for one (AWAITING_RATE).",
		HowToExport: "Bybit: Assets > Unified Trading Account (or Derivatives) > Transaction Log, choose the period and USDT Perpetual, then Export (CSV).",
		RowShape:    ShapeExecution, Delimiter: ",", DateFormat: DateISO, NumberFormat: NumberUS,
		Columns: map[string][]string{
			FieldDate:     {"Time", "Time(UTC)", "Transaction Time"},
			fieldSettle:   {"Currency"},
			fieldFeeAsset: {"Currency"},
			FieldSymbol:   {"Contract", "Symbol"},
			fieldType:     {"Type"},
			FieldSide:     {"Direction", "Side"},
			FieldQuantity: {"Quantity", "Qty"},
			FieldPrice:    {"Filled Price", "Trade Price"},
			fieldCharge:   {"Fee Paid"},
			fieldFunding:  {"Funding"},
			fieldOrderID:  {"Order ID"},
		},
		Required: []string{FieldDate, FieldSymbol, fieldType, FieldSide, FieldQuantity, FieldPrice},
		Keep:     map[string][]string{fieldType: {"trade", "liquidation"}},
		Funding:  []string{"funding", "settlement"},
		Vocabulary: Vocabulary{Sides: map[string]string{"Open Long": "buy to open", "Open Short": "sell to open",
			"Close Long": "sell to close", "Close Short": "buy to close"}},
		DefaultAssetType: AssetCrypto,
		Perpetual:        true,
		SkipUnsupported:  true,
		Timezone:         "UTC",
		Sample:           "bybit_transaction_log.csv",
	},
}

// grossColumns are cTrader's gross P&L column, named for the account's
// currency ("Gross USD").
func grossColumns() []string {
	out := []string{"Gross"}
	for _, c := range []string{"USD", "EUR", "GBP", "AUD", "CAD", "CHF", "JPY", "NZD", "SGD", "HKD", "ZAR", "PLN", "SEK", "NOK", "CZK", "HUF", "MXN", "AED"} {
		out = append(out, "Gross "+c)
	}
	return out
}

// thinkorswimColumns are the columns of a thinkorswim statement's trade
// tables (Account Trade History, Filled Orders).
func thinkorswimColumns() map[string][]string {
	return map[string][]string{
		FieldDate:      {"Exec Time"},
		FieldSide:      {"Side"},
		FieldQuantity:  {"Qty"},
		FieldEffect:    {"Pos Effect"},
		FieldSymbol:    {"Symbol"},
		FieldExpiry:    {"Exp"},
		FieldStrike:    {"Strike"},
		FieldAssetType: {"Type"},
		FieldPrice:     {"Price"},
	}
}

// Presets returns the built-in presets (a copy: callers may not change them).
func Presets() []Preset {
	out := make([]Preset, len(presets))
	copy(out, presets)
	return out
}

// PresetByID returns the preset with id, or nil.
func PresetByID(id string) *Preset {
	for i := range presets {
		if presets[i].ID == id {
			return &presets[i]
		}
	}
	return nil
}
