// Command lambda serves the playbooks route group on AWS Lambda.
package main

import (
	"tradejournal/functions/playbooks"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(playbooks.Group) }
