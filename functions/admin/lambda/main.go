// Command lambda serves the admin route group on AWS Lambda.
package main

import (
	"tradejournal/functions/admin"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(admin.Group) }
