// Command lambda serves the users route group on AWS Lambda.
package main

import (
	"tradejournal/functions/users"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(users.Group) }
