// Command lambda serves the strategies route group on AWS Lambda.
package main

import (
	"tradejournal/functions/strategies"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(strategies.Group) }
