// Command lambda serves the backup route group on AWS Lambda through a
// Function URL with response streaming (template.yaml's BackupFunction):
// a backup archive is larger than the API Gateway adapter's buffered answer.
package main

import (
	"tradejournal/functions/backup"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.StartStreaming(backup.Group) }
