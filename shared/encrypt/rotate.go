package encrypt

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/db"
)

// Column is a text column whose values are sealed, in a table keyed by a
// uuid id. Its name is bound into each value as additional data.
type Column struct{ Table, Name string }

func (c Column) String() string { return c.Table + "." + c.Name }

// The sealed columns. Rotation walks exactly these.
var (
	PositionNotes     = Column{Table: "positions", Name: "notes"}
	ImageCaptions     = Column{Table: "position_images", Name: "caption"}
	AssistantTitles   = Column{Table: "assistant_conversations", Name: "title"}
	AssistantMessages = Column{Table: "assistant_messages", Name: "content"}
	TOTPSecrets       = Column{Table: "user_totp", Name: "secret"}
	// PlaybookDescriptions: a playbook's description (migration 0027).
	PlaybookDescriptions = Column{Table: "playbooks", Name: "description"}
	// BrokerCredentials: a broker connection's credentials (migration 0048).
	BrokerCredentials = Column{Table: "broker_connections", Name: "credentials"}
	// AssistantKeys: a trader's own model-provider key; AssistantToolCalls:
	// a tool call's arguments and result (migration 0049).
	AssistantKeys      = Column{Table: "assistant_keys", Name: "secret"}
	AssistantToolCalls = Column{Table: "assistant_tool_calls", Name: "detail"}
	Sealed             = []Column{PositionNotes, ImageCaptions, AssistantTitles, AssistantMessages, TOTPSecrets,
		JournalDayPlans, JournalDayReviews, JournalDayNotes, PlaybookDescriptions, BrokerCredentials, AssistantKeys, AssistantToolCalls}
)

// The daily journal's texts (shared/dayjournal).
var (
	JournalDayPlans   = Column{Table: "journal_days", Name: "plan"}
	JournalDayReviews = Column{Table: "journal_days", Name: "review"}
	JournalDayNotes   = Column{Table: "journal_days", Name: "notes"}
)

// Rotate re-seals with the current key every value of cols that is not
// already sealed with it (values under the previous key, and plaintext
// written before encryption was on). Each batch commits on its own, so an
// interrupted rotation resumes where it stopped when run again.
func Rotate(ctx context.Context, pool *pgxpool.Pool, k *Keyring, cols []Column, batchSize int) (resealed int, err error) {
	for _, c := range cols {
		for {
			n, err := rotateBatch(ctx, pool, k, c, batchSize)
			resealed += n
			if err != nil {
				return resealed, err
			}
			if n < batchSize {
				break
			}
		}
	}
	return resealed, nil
}

func rotateBatch(ctx context.Context, pool *pgxpool.Pool, k *Keyring, c Column, batchSize int) (int, error) {
	table, col := pgx.Identifier{c.Table}.Sanitize(), pgx.Identifier{c.Name}.Sanitize()
	n := 0
	err := db.InTx(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT id, `+col+` FROM `+table+`
			WHERE `+col+` <> '' AND `+col+` NOT LIKE $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
			prefix+k.current.id+":%", batchSize)
		if err != nil {
			return err
		}
		type row struct{ id, value string }
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.id, &x.value)
		})
		if err != nil {
			return err
		}
		for _, r := range batch {
			plain, err := k.Open(c, r.value)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE `+table+` SET `+col+` = $2 WHERE id = $1`, r.id, k.Seal(c, plain)); err != nil {
				return err
			}
		}
		n = len(batch)
		return nil
	})
	return n, err
}
