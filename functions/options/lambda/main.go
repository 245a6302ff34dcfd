// Command lambda serves the options route group on AWS Lambda.
package main

import (
	"tradejournal/functions/options"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(options.Group) }
