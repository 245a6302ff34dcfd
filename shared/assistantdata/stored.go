package assistantdata

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/db"
)

// Limits of a turn's tool calls: the provider calls that may ask for tools
// (a further one must answer), the calls one answer may ask for, and what a
// call keeps. A restore holds an archive's calls to the same.
const (
	MaxToolRounds        = 8
	MaxToolCallsPerRound = 8
	MaxToolNameChars     = 200
	MaxToolArgumentBytes = 1 << 20
	MaxToolResultBytes   = 8 << 10
)

// ToolDetail is what a stored tool call keeps sealed with
// encrypt.AssistantToolCalls (assistant_tool_calls.detail): the arguments
// the model sent (a JSON value) and the result it got.
type ToolDetail struct {
	Arguments json.RawMessage `json:"arguments"`
	Result    string          `json:"result"`
}

// JournalAccess reports whether the user lets the assistant read their
// journal; without a stored choice it may not.
func JournalAccess(ctx context.Context, q db.Querier, userID string) (bool, error) {
	var on bool
	err := q.QueryRow(ctx, `SELECT journal_access FROM assistant_settings WHERE user_id = $1`, userID).Scan(&on)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return on, db.Classify(err)
}

// SetJournalAccess stores the user's choice.
func SetJournalAccess(ctx context.Context, q db.Querier, userID string, on bool, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO assistant_settings (user_id, journal_access, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO UPDATE SET journal_access = EXCLUDED.journal_access, updated_at = EXCLUDED.updated_at`,
		userID, on, now)
	return db.Classify(err)
}
