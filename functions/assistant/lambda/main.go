// Command lambda serves the assistant route group on AWS Lambda through a
// Function URL with response streaming (template.yaml's AssistantFunction),
// since the API Gateway adapter buffers a streamed answer whole.
package main

import (
	"tradejournal/functions/assistant"
	"tradejournal/shared/lambdahost"
)

func main() { lambdahost.StartStreaming(assistant.Group) }
