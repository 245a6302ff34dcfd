// Command lambda serves the tax route group on AWS Lambda.
package main

import (
	"tradejournal/functions/tax"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(tax.Group) }
