// Command lambda serves the rules route group on AWS Lambda.
package main

import (
	"tradejournal/functions/rules"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(rules.Group) }
