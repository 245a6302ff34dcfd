// Package brokerfile turns a broker's CSV file into journal fills and groups
// them into positions. It is the pure part of the CSV import: no database,
// no HTTP. The route group functions/csvimport streams the uploaded file into
// Parse, reads what the journal already holds (open positions, fills that
// would be duplicates, the account's fee schedule) and hands it to Build,
// which proposes the positions the commit writes.
//
// The steps:
//
//   - Resolve checks the import options (a built-in preset, or an explicit
//     column mapping with a delimiter and a header flag, the row shape, the
//     file's time zone, date and number formats) and returns a Spec.
//   - Parse reads the file once, row by row, with encoding/csv (any
//     one-character delimiter, a UTF-8 byte-order mark, CRLF line ends and
//     quoted fields spanning lines, rows wrapped whole in quotes), and turns
//     each data row into one fill (execution rows) or two (a round trip:
//     entry and exit; the rows of one scaled trade are joined, pairs.go). A
//     file that is not a usable CSV (empty, binary, header only, a wrong
//     delimiter, missing columns, too many rows) is an error for the whole
//     request; a bad value is a Problem located by row, column and field,
//     with a code.
//   - EstimateFees fills in the fees a row did not give from the account's
//     fee schedule (journal.EstimateFee).
//   - Build groups fills per (symbol, asset type) by time, and round trips
//     per unit of paired rows: a position opens when the running quantity
//     leaves zero and closes when it returns to zero; an exit larger than
//     the open quantity is a reversal, split and warned. Open positions
//     already in the journal are continued (by executions), fills already
//     in the journal are skipped unless the user confirmed them, and every
//     position's figures come from journal.Compute.
//
// Rows are numbered by the line of the file on which the record starts (the
// header is usually row 1), which is the row a spreadsheet shows unless a
// quoted field holds a line break.
package brokerfile
