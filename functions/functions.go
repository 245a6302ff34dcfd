// Package functions lists every route group. The local host mounts them all;
// the tests use the list to hold the OpenAPI document and the Lambda mains to
// the router.
package functions

import (
	"tradejournal/functions/accounts"
	"tradejournal/functions/admin"
	"tradejournal/functions/appconfig"
	"tradejournal/functions/assistant"
	"tradejournal/functions/auth"
	"tradejournal/functions/backup"
	"tradejournal/functions/billing"
	"tradejournal/functions/calculator"
	"tradejournal/functions/changelog"
	"tradejournal/functions/connections"
	"tradejournal/functions/csvimport"
	"tradejournal/functions/currency"
	"tradejournal/functions/expenses"
	"tradejournal/functions/health"
	"tradejournal/functions/journaldays"
	"tradejournal/functions/options"
	"tradejournal/functions/performance"
	"tradejournal/functions/playbooks"
	"tradejournal/functions/positions"
	"tradejournal/functions/rules"
	"tradejournal/functions/strategies"
	"tradejournal/functions/symbols"
	"tradejournal/functions/tax"
	"tradejournal/functions/users"
	"tradejournal/shared/app"
	"tradejournal/shared/httpx"
)

// All builds every route group.
func All(a *app.App) []httpx.Group {
	return []httpx.Group{health.Group(a), auth.Group(a), users.Group(a), admin.Group(a), calculator.Group(a),
		symbols.Group(a), appconfig.Group(a), currency.Group(a), performance.Group(a),
		accounts.Group(a), positions.Group(a), billing.Group(a), csvimport.Group(a), assistant.Group(a), backup.Group(a),
		strategies.Group(a), journaldays.Group(a), playbooks.Group(a), rules.Group(a), tax.Group(a), expenses.Group(a), options.Group(a),
		connections.Group(a), changelog.Group(a)}
}
