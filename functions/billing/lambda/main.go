// Command lambda serves the billing route group on AWS Lambda.
package main

import (
	"tradejournal/functions/billing"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(billing.Group) }
