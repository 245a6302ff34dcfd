// Command lambda serves the health route group on AWS Lambda.
package main

import (
	"tradejournal/functions/health"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(health.Group) }
