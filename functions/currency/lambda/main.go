// Command lambda serves the currency route group (exchange rates, the
// preview and the dashboard total) on AWS Lambda.
package main

import (
	"tradejournal/functions/currency"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(currency.Group) }
