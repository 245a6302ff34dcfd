// Command lambda serves the auth route group on AWS Lambda.
package main

import (
	"tradejournal/functions/auth"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(auth.Group) }
