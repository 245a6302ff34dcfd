// Command lambda serves the configuration route group (GET /api/config) on
// AWS Lambda.
package main

import (
	"tradejournal/functions/appconfig"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(appconfig.Group) }
