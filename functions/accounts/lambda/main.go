// Command lambda serves the accounts route group (accounts and their
// ledger, brokerages, tags) on AWS Lambda.
package main

import (
	"tradejournal/functions/accounts"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(accounts.Group) }
