// Command lambda serves the symbols route group on AWS Lambda.
package main

import (
	"tradejournal/functions/symbols"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(symbols.Group) }
