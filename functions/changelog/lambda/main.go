// Command lambda serves the changelog route group on AWS Lambda.
package main

import (
	"tradejournal/functions/changelog"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(changelog.Group) }
