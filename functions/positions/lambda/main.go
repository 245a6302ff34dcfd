// Command lambda serves the positions route group (positions, fills, tags
// of a position, images) on AWS Lambda.
package main

import (
	"tradejournal/functions/positions"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.Start(positions.Group) }
