// Package api holds the OpenAPI 3.1 description of every route of the API.
// functions/openapi_test.go holds the document and the router to each other.
package api

import _ "embed"

// Document is openapi.yaml, the OpenAPI 3.1 document of the API.
//
//go:embed openapi.yaml
var Document []byte
