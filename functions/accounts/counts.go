package accounts

import (
	"net/http"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/httpx"
)

// PositionCount is how many positions one account, or the accounts on one
// fee schedule, hold by status. A route of its own, not fields on the
// lists: the lists stay one indexed read of their own rows, and a screen
// that shows counts asks once for all of them.
type PositionCount struct {
	Draft  int `json:"draft"`
	Open   int `json:"open"`
	Closed int `json:"closed"`
	Total  int `json:"total"`
}

// AccountPositionCount is one account's counts.
type AccountPositionCount struct {
	AccountID string `json:"accountId"`
	PositionCount
}

// BrokeragePositionCount is the counts of the accounts on one fee
// schedule; BrokerageID is null for the accounts without one.
type BrokeragePositionCount struct {
	BrokerageID *string `json:"brokerageId"`
	PositionCount
}

type positionCounts struct {
	Accounts   []AccountPositionCount   `json:"accounts"`
	Brokerages []BrokeragePositionCount `json:"brokerages"`
}

// positionCounts answers every account of the user (those without
// positions at 0) and every fee schedule an account of theirs uses, in one
// statement grouped both ways.
func (h handler) positionCounts(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	const sql = `SELECT a.id::text, a.brokerage_id::text, GROUPING(a.id)::int = 1,
			count(p.id) FILTER (WHERE p.status = 'draft'), count(p.id) FILTER (WHERE p.status = 'open'),
			count(p.id) FILTER (WHERE p.status = 'closed'), count(p.id)
		FROM accounts a LEFT JOIN positions p ON p.account_id = a.id
		WHERE a.user_id = $1
		GROUP BY GROUPING SETS ((a.id, a.created_at), (a.brokerage_id))
		ORDER BY GROUPING(a.id), CASE WHEN GROUPING(a.id) = 0 THEN min(a.created_at) END, a.brokerage_id NULLS FIRST, a.id`
	rows, err := h.app.DB.Query(ctx, sql, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	out := positionCounts{Accounts: []AccountPositionCount{}, Brokerages: []BrokeragePositionCount{}}
	var (
		accountID, brokerageID *string
		byBrokerage            bool
		c                      PositionCount
	)
	_, err = pgx.ForEachRow(rows, []any{&accountID, &brokerageID, &byBrokerage, &c.Draft, &c.Open, &c.Closed, &c.Total}, func() error {
		if byBrokerage {
			var id *string
			if brokerageID != nil {
				id = new(string)
				*id = *brokerageID
			}
			out.Brokerages = append(out.Brokerages, BrokeragePositionCount{BrokerageID: id, PositionCount: c})
		} else {
			out.Accounts = append(out.Accounts, AccountPositionCount{AccountID: *accountID, PositionCount: c})
		}
		return nil
	})
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, out)
}
