// Package functions lists every route group. The local host mounts them all;
// the tests use the list to hold the OpenAPI document and the Lambda mains to
// the router.
package functions

import (
	"tradejournal/functions/admin"
	"tradejournal/functions/auth"
	"tradejournal/functions/calculator"
	"tradejournal/functions/health"
	"tradejournal/functions/users"
	"tradejournal/shared/app"
	"tradejournal/shared/httpx"
)

// All builds every route group.
func All(a *app.App) []httpx.Group {
	return []httpx.Group{health.Group(a), auth.Group(a), users.Group(a), admin.Group(a), calculator.Group(a)}
}
