package brokerfile

import (
	"strconv"
	"strings"
	"unicode"
)

// HeadKey normalises a header cell for matching (a broker file's, and a
// bars file's: market.ParseBarsCSV): lowercase letters and
// digits only, so case, spaces and punctuation do not matter ("FilledAt",
// "Filled At", "filled_at" and "Filled-At" are one header). A cell of
// punctuation only keeps its symbols ("#", "%") so it still names a column.
func HeadKey(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "\ufeff")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '&' || r == '#' || r == '%' || r == '+':
			// "P&L" and "PL", "Order #" and "Order": distinct enough words
			// that a symbol may tell apart; kept.
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headerIndex maps each header key to its column (0-based): the first
// column of that key, and a repeated key's later columns as "key#2",
// "key#3" (MetaTrader 4's statement has two Price columns, the open and
// the close: a preset names the second "Price#2").
func headerIndex(header []string) map[string]int {
	index := make(map[string]int, len(header))
	seen := map[string]int{}
	for i, h := range header {
		k := HeadKey(h)
		if k == "" {
			continue
		}
		seen[k]++
		if n := seen[k]; n > 1 {
			k += "#" + strconv.Itoa(n)
		}
		if _, dup := index[k]; !dup {
			index[k] = i
		}
	}
	return index
}

// synonymGroups are header names that mean the same thing in the files
// traders bring. A preset's or a mapping's column name that is not in the
// header is looked for under its synonyms, after every name given.
var synonymGroups = [][]string{
	{"Date", "Trade Date", "TradeDate", "Transaction Date", "Exec Date", "Execution Date", "Run Date", "Activity Date"},
	{"Time", "Trade Time", "Exec Time", "Execution Time", "Time Executed"},
	{"Filled At", "Fill Time", "Filled Time", "Time Filled", "Date Filled", "Fill Date", "Filled Date", "Date/Time", "DateTime", "Timestamp", "Executed At", "Execution Date/Time"},
	{"Quantity", "Qty", "Shares", "Contracts", "Size", "Volume", "Lots", "EntryQty", "Filled Qty", "Qty Filled", "Quantity Filled", "Filled Quantity", "Exec Qty"},
	{"Price", "Fill Price", "Filled Price", "Avg Price", "Average Price", "Avg Fill Price", "Execution Price", "Exec Price", "Trade Price", "Price Filled"},
	{"Symbol", "Ticker", "Instrument", "Contract", "Security", "Sym", "Symbol/Description"},
	{"Side", "Action", "Buy/Sell", "B/S", "Direction", "Trade Side", "Transaction Type", "Order Side"},
	{"Commission", "Commissions", "Comm", "Commission Amount", "Brokerage"},
	{"Fees", "Fee", "Fees & Comm", "Total Fees", "Reg Fees", "Other Fees"},
	{"Open/Close", "Position Effect", "Pos Effect", "Open Close", "O/C", "Opening/Closing"},
	{"Asset Type", "AssetType", "Asset Class", "Instrument Type", "Security Type", "Sec Type", "Product Type", "Asset Category"},
	{"Expiry", "Expiration", "Exp", "Expiration Date", "Expiry Date"},
	{"Strike", "Strike Price"},
	{"Call/Put", "Put/Call", "Right", "Option Type", "C/P", "P/C"},
	{"Status", "Order Status", "State"},
	{"Account", "Account Number", "Account Name", "Account ID", "Acct", "AccountId"},
	// A round trip given as its buy and its sell (buySellColumns): the
	// buy's columns hold the entry's fields, the sell's the exit's. A date
	// name before a time name, so that a file of both binds each.
	{"Entry Date", "Open Date", "Entry Datetime", "Open Datetime", "Entry Time", "Opened", "Open Time",
		"Buy Date", "Buy Datetime", "Bought Date", "Bought Timestamp", "Buy Time"},
	{"Exit Date", "Close Date", "Exit Datetime", "Close Datetime", "Exit Time", "Closed", "Close Time",
		"Sell Date", "Sell Datetime", "Sold Date", "Sold Timestamp", "Sell Time"},
	{"Entry Price", "Open Price", "Buy Price", "EntryPrice"},
	{"Exit Price", "Close Price", "Sell Price", "ExitPrice"},
	{"P&L", "PnL", "Profit", "Gross P&L", "Realized P&L", "Profit/Loss"},
}

// synonyms maps a header key to the keys of its group (itself included).
var synonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		keys := make([]string, len(g))
		for i, n := range g {
			keys[i] = HeadKey(n)
		}
		for _, k := range keys {
			m[k] = append(m[k], keys...)
		}
	}
	return m
}()

// synonymsOf returns the header keys that mean what name means, name's own
// key first.
func synonymsOf(name string) []string {
	k := HeadKey(name)
	if s, ok := synonyms[k]; ok {
		return s
	}
	return []string{k}
}
