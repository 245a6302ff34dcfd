package positions

// ListQuery is the positions page query, for EXPLAIN in the speed test.
var ListQuery = listQuery
