// Command lambda serves the broker connections route group on AWS Lambda.
package main

import (
	"tradejournal/functions/connections"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(connections.Group) }
