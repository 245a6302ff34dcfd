// Command lambda serves the journal days route group (the daily journal's
// entries and the list of days with its search) on AWS Lambda.
package main

import (
	"tradejournal/functions/journaldays"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(journaldays.Group) }
