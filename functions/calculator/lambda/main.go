// Command lambda serves the calculator route group on AWS Lambda.
package main

import (
	"tradejournal/functions/calculator"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(calculator.Group) }
