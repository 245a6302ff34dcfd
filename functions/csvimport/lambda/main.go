// Command lambda serves the CSV import route group on AWS Lambda.
package main

import (
	"tradejournal/functions/csvimport"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(csvimport.Group) }
