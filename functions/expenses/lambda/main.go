// Command lambda serves the expenses route group on AWS Lambda.
package main

import (
	"tradejournal/functions/expenses"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(expenses.Group) }
