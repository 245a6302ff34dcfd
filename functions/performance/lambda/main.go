// Command lambda serves the performance route group on AWS Lambda.
package main

import (
	"tradejournal/functions/performance"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(performance.Group) }
