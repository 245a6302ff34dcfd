package stats

import "github.com/shopspring/decimal"

// SumDays adds up calendar days of one block (its ByDay rows) into one
// Bucket with the report's own arithmetic: the compliance breakdown of
// shared/rules groups a report's days by whether they kept the rules.
// A row's NetPnl is the report's own 4-place string.
func SumDays(days []DayBucket) (Bucket, error) {
	var sum bucketAgg
	for _, d := range days {
		net, err := decimal.NewFromString(d.NetPnl)
		if err != nil {
			return Bucket{}, err
		}
		sum = sum.merge(bucketAgg{trades: d.Trades, wins: d.Wins, losses: d.Losses, net: net})
	}
	return sum.bucket(), nil
}
