// Package personal is what a user arranges for themselves on the dashboard
// and what the app shows them while they find their way: the dashboard's
// widgets and their widths, saved views (a named filter), the onboarding
// checklist and the coach marks. It checks values and holds no SQL;
// functions/users stores them and functions/backup carries them.
package personal

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"tradejournal/shared/apperr"
	"tradejournal/shared/listquery"
)

// Size is a widget's width on a wide screen: a quarter, a third, a half or
// the whole of the dashboard's row (on a phone the web app widens them).
type Size string

// The widths a widget may have.
const (
	Quarter Size = "quarter"
	Third   Size = "third"
	Half    Size = "half"
	Full    Size = "full"
)

// Sizes are the widths, narrowest first.
var Sizes = []Size{Quarter, Third, Half, Full}

// Widget is one widget of a layout.
type Widget struct {
	ID   string `json:"id"`
	Size Size   `json:"size"`
}

// DefaultLayout is the dashboard as it is before a user changes it: every
// widget, in the order the dashboard always showed them. Its ids are the
// catalog: a layout may hold only these.
var DefaultLayout = []Widget{
	{"total-balance", Full},
	{"net-pnl", Quarter}, {"win-rate", Quarter}, {"profit-factor", Quarter}, {"expectancy", Quarter},
	{"average-r", Quarter}, {"sqn", Quarter}, {"trades", Quarter}, {"average-win", Quarter},
	{"average-loss", Quarter}, {"largest-win", Quarter}, {"largest-loss", Quarter}, {"win-streak", Quarter},
	{"loss-streak", Quarter}, {"max-drawdown", Quarter}, {"fees", Quarter},
	{"calendar", Full},
	{"equity-curve", Half}, {"drawdown", Half},
	{"r-distribution", Half}, {"winners-losers", Half},
	{"excursions", Half}, {"exit-analysis", Half},
	{"by-weekday", Half}, {"by-hour", Half}, {"by-hold-time", Half}, {"by-side", Half},
	{"by-asset-type", Half}, {"by-underlying", Half}, {"by-tag", Half}, {"by-playbook", Half},
	{"by-strategy", Half}, {"by-month", Half}, {"by-week", Half}, {"by-year", Half},
	{"by-criterion", Full}, {"rule-compliance", Full}, {"fee-rollup", Full},
}

// MaxWidgets bounds a layout: each widget at most once.
var MaxWidgets = len(DefaultLayout)

// KnownWidget reports whether id is a widget of the dashboard.
func KnownWidget(id string) bool {
	return slices.ContainsFunc(DefaultLayout, func(w Widget) bool { return w.ID == id })
}

// CheckLayout checks a layout as a user sends it: a list (null is
// missing), at most MaxWidgets, each a known widget listed once with one
// of the Sizes. The details name each bad element (widgets[3].id).
func CheckLayout(widgets []Widget) error {
	if widgets == nil {
		return apperr.Invalid("widgets", "is required (an empty list shows an empty dashboard)")
	}
	if len(widgets) > MaxWidgets {
		return apperr.Invalid("widgets", fmt.Sprintf("must list at most %d widgets", MaxWidgets))
	}
	var p []apperr.FieldError
	seen := map[string]bool{}
	for i, w := range widgets {
		at := fmt.Sprintf("widgets[%d]", i)
		switch {
		case !KnownWidget(w.ID):
			p = append(p, apperr.FieldError{Field: at + ".id", Message: "is not a dashboard widget"})
		case seen[w.ID]:
			p = append(p, apperr.FieldError{Field: at + ".id", Message: "is listed twice"})
		}
		seen[w.ID] = true
		if !slices.Contains(Sizes, w.Size) {
			p = append(p, apperr.FieldError{Field: at + ".size", Message: "must be quarter, third, half or full"})
		}
	}
	return apperr.Fields(p)
}

// Saved views.
const (
	// MaxViews bounds one user's saved views: the list is answered whole.
	MaxViews = 50
	// MaxViewName is a view's name's length in characters.
	MaxViewName = 80
	// MaxViewQuery bounds a view's filter, in bytes: room for the filter's
	// lists at their longest.
	MaxViewQuery = 4000
)

// viewFilterNames are the filter parameters a dashboard view keeps: the
// statistics' filter (not the positions list's status and date basis).
var viewFilterNames = []string{"accountId", "symbol", "tagId", "excludeTagId", "playbookId", "strategy", "assetType",
	"weekday", "hour", "side", "from", "to", "propFirm", "phase"}

// ViewName trims a view's name and checks it: 1 to MaxViewName characters
// of text.
func ViewName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return "", apperr.Invalid("name", "is required")
	case n > MaxViewName:
		return "", apperr.Invalid("name", fmt.Sprintf("must be at most %d characters", MaxViewName))
	case !utf8.ValidString(name) || strings.ContainsRune(name, 0):
		return "", apperr.Invalid("name", "must be text")
	}
	return name, nil
}

// ViewQuery checks a view's filter, the dashboard's query string without
// its "?": only the statistics' filter parameters, each as GET
// /api/performance takes it (listquery.ParseFilter). It returns the query
// in one canonical spelling (parameters sorted), so one filter is stored
// one way. A detail names the parameter: query.from.
func ViewQuery(q string) (string, error) {
	if len(q) > MaxViewQuery {
		return "", apperr.Invalid("query", fmt.Sprintf("must be at most %d characters", MaxViewQuery))
	}
	values, err := url.ParseQuery(strings.TrimPrefix(q, "?"))
	if err != nil {
		return "", apperr.Invalid("query", "must be a query string such as symbol=AAPL&from=2025-01-01")
	}
	var p []apperr.FieldError
	for name := range values {
		if !slices.Contains(viewFilterNames, name) {
			p = append(p, apperr.FieldError{Field: "query." + name, Message: "is not a filter of the dashboard"})
		}
	}
	if _, err := listquery.ParseFilter(values); err != nil {
		e, ok := apperr.As(err)
		if !ok {
			return "", err
		}
		for _, d := range e.Details {
			p = append(p, apperr.FieldError{Field: "query." + d.Field, Message: d.Message})
		}
	}
	if err := apperr.Fields(p); err != nil {
		return "", err
	}
	return values.Encode(), nil
}

// ViewIDParams are the parameters of a view's query that name records of
// the journal (a backup's restore gives those records new ids), with the
// kind of record each names.
var ViewIDParams = map[string]string{"accountId": "account", "tagId": "tag", "excludeTagId": "tag", "playbookId": "playbook"}

// MapViewIDs rewrites the record ids of a checked view query with mapID
// (an id it does not know is kept: it named a record deleted before the
// backup, and still matches nothing).
func MapViewIDs(q string, mapID func(kind, id string) (string, bool)) string {
	values, _ := url.ParseQuery(q)
	for name, kind := range ViewIDParams {
		var out []string
		for _, v := range values[name] {
			var ids []string
			for _, id := range strings.Split(v, ",") {
				if n, ok := mapID(kind, strings.TrimSpace(id)); ok {
					id = n
				}
				ids = append(ids, id)
			}
			out = append(out, strings.Join(ids, ","))
		}
		if out != nil {
			values[name] = out
		}
	}
	return values.Encode()
}
