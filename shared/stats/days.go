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

// SumNets adds up trades' net P&L into one Bucket with the report's own
// arithmetic (a win above zero, a loss below): the compliance breakdown
// of trades that kept the rules beside those that broke one.
func SumNets(nets []decimal.Decimal) Bucket {
	var sum bucketAgg
	for _, n := range nets {
		t := bucketAgg{trades: 1, net: n}
		switch n.Sign() {
		case 1:
			t.wins = 1
		case -1:
			t.losses = 1
		}
		sum = sum.merge(t)
	}
	return sum.bucket()
}
