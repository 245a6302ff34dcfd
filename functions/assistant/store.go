package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/assistantdata"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/listquery"
)

// Conversation is a conversation as the list and the read show it.
type Conversation struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// PersonaID is the persona its turns speak as: one of the user's, or
	// "default" for the built-in one.
	PersonaID string `json:"personaId"`
	// Review is what the conversation was opened to review, or null.
	Review *ReviewRef `json:"review"`
}

// conversationCols are the columns scanConversation reads.
const conversationCols = `id::text, title, created_at, updated_at, coalesce(persona_id::text, 'default'),
	review_kind, review_date, review_position_id::text`

func scanConversation(row pgx.Row) (Conversation, error) {
	var (
		c        Conversation
		kind     *string
		day      *time.Time
		position *string
	)
	if err := row.Scan(&c.ID, &c.Title, &c.CreatedAt, &c.UpdatedAt, &c.PersonaID, &kind, &day, &position); err != nil {
		return c, err
	}
	if kind != nil {
		c.Review = &ReviewRef{Kind: *kind, PositionID: position}
		if day != nil {
			d := day.Format(time.DateOnly)
			c.Review.Date = &d
		}
	}
	return c, nil
}

// Message is one question or answer.
type Message struct {
	ID   string `json:"id"`
	Role string `json:"role"` // user or assistant
	// Content is the text; an incomplete answer holds what streamed before
	// the turn ended.
	Content string `json:"content"`
	// Complete is false for an answer cut short by the budget, a
	// disconnect or a provider error.
	Complete  bool      `json:"complete"`
	TurnID    string    `json:"turnId"`
	CreatedAt time.Time `json:"createdAt"`
}

// store is the group's SQL, sealing and opening private text with the
// keyring (nil: plaintext).
type store struct {
	pool interface {
		db.Querier
		db.Beginner
	}
	keys *encrypt.Keyring
}

func (s store) open(col encrypt.Column, v string) (string, error) { return s.keys.Open(col, v) }

// searchBatch is how many conversations a search reads at a time. Titles
// are sealed at rest (encrypt.AssistantTitles), so a search opens and
// matches them here, walking the same keyset order as the plain list.
const searchBatch = 200

// list returns one page of the user's conversations, latest activity
// first; a non-empty search keeps those whose title contains it, ignoring
// case. The next cursor is the last item shown, so paging stays exact.
func (s store) list(ctx context.Context, userID, search string, after *listquery.Cursor, limit int) ([]Conversation, *string, error) {
	const q = `SELECT ` + conversationCols + ` FROM assistant_conversations
		WHERE user_id = $1 AND ($3::timestamptz IS NULL OR (updated_at, id) < ($3, $4::uuid))
		ORDER BY updated_at DESC, id DESC LIMIT $2`
	var (
		at    *time.Time
		id    *string
		items []Conversation
	)
	if after != nil {
		at, id = after.At, &after.ID
	}
	needle := strings.ToLower(search)
	batch := limit + 1
	if search != "" {
		batch = searchBatch
	}
	for len(items) <= limit {
		rows, err := s.pool.Query(ctx, q, userID, batch, at, id)
		if err != nil {
			return nil, nil, db.Classify(err)
		}
		got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Conversation, error) { return scanConversation(row) })
		if err != nil {
			return nil, nil, db.Classify(err)
		}
		for _, c := range got {
			if c.Title, err = s.open(encrypt.AssistantTitles, c.Title); err != nil {
				return nil, nil, err
			}
			if strings.Contains(strings.ToLower(c.Title), needle) {
				items = append(items, c)
			}
		}
		if len(got) < batch {
			break
		}
		last := got[len(got)-1]
		at, id = &last.UpdatedAt, &last.ID
	}
	var next *string
	if len(items) > limit {
		items = items[:limit]
		last := items[limit-1]
		at := last.UpdatedAt
		c := listquery.Cursor{At: &at, ID: last.ID}.Encode()
		next = &c
	}
	return items, next, nil
}

// get returns the user's conversation; another user's is ErrNotFound.
func (s store) get(ctx context.Context, q db.Querier, userID, id string) (Conversation, error) {
	if !db.ValidUUID(id) {
		return Conversation{}, apperr.ErrNotFound
	}
	c, err := scanConversation(q.QueryRow(ctx, `SELECT `+conversationCols+` FROM assistant_conversations
		WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return Conversation{}, db.Classify(err)
	}
	c.Title, err = s.open(encrypt.AssistantTitles, c.Title)
	return c, err
}

// messages returns a conversation's messages in order, the last limit of
// them when limit > 0.
func (s store) messages(ctx context.Context, conversationID string, limit int) ([]Message, error) {
	const q = `SELECT id::text, role, content, complete, turn_id::text, created_at FROM (
			SELECT * FROM assistant_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2
		) m ORDER BY seq`
	var max any // NULL: no limit
	if limit > 0 {
		max = limit
	}
	rows, err := s.pool.Query(ctx, q, conversationID, max)
	if err != nil {
		return nil, db.Classify(err)
	}
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Message, error) {
		var m Message
		err := row.Scan(&m.ID, &m.Role, &m.Content, &m.Complete, &m.TurnID, &m.CreatedAt)
		return m, err
	})
	if err != nil {
		return nil, db.Classify(err)
	}
	for i := range msgs {
		if msgs[i].Content, err = s.open(encrypt.AssistantMessages, msgs[i].Content); err != nil {
			return nil, err
		}
	}
	return msgs, nil
}

// change is what a PATCH of a conversation sets; nil fields stay.
type change struct {
	Title     *string
	PersonaID *string // a persona of the user's, or assistantdata.DefaultID
}

// update sets a conversation's title and persona; a persona that is not
// the user's is a validation error of personaId.
func (s store) update(ctx context.Context, userID, id string, ch change, now time.Time) (Conversation, error) {
	if !db.ValidUUID(id) {
		return Conversation{}, apperr.ErrNotFound
	}
	var title *string
	if ch.Title != nil {
		sealed := s.keys.Seal(encrypt.AssistantTitles, *ch.Title)
		title = &sealed
	}
	persona, err := s.personaColumn(ctx, s.pool, userID, ch.PersonaID)
	if err != nil {
		return Conversation{}, err
	}
	c, err := scanConversation(s.pool.QueryRow(ctx, `UPDATE assistant_conversations
		SET title = coalesce($3, title), persona_id = CASE WHEN $4 THEN $5::uuid ELSE persona_id END, updated_at = $6
		WHERE id = $1 AND user_id = $2 RETURNING `+conversationCols,
		id, userID, title, ch.PersonaID != nil, persona, now))
	if err != nil {
		return Conversation{}, db.Classify(err)
	}
	c.Title, err = s.open(encrypt.AssistantTitles, c.Title)
	return c, err
}

// personaColumn is the persona_id a chosen persona is stored as: NULL for
// none chosen and for the default, else the id of one of the user's own.
func (s store) personaColumn(ctx context.Context, q db.Querier, userID string, personaID *string) (*string, error) {
	if personaID == nil || *personaID == assistantdata.DefaultID {
		return nil, nil
	}
	p, err := assistantdata.Get(ctx, q, userID, *personaID)
	if errors.Is(err, apperr.ErrNotFound) {
		return nil, errNotYourPersona
	}
	if err != nil {
		return nil, err
	}
	return &p.ID, nil
}

var errNotYourPersona = apperr.Invalid("personaId", "must be one of your personas, or \"default\"")

// remove deletes the user's conversation with its turns and messages. A
// conversation whose turn is still streaming is refused: the turn must end
// (and settle) first.
func (s store) remove(ctx context.Context, userID, id string, staleBefore, now time.Time) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	return db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := s.lockConversation(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := closeStale(ctx, tx, userID, staleBefore, now); err != nil {
			return err
		}
		var running bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM assistant_turns WHERE conversation_id = $1 AND status = 'running')`, id).Scan(&running); err != nil {
			return db.Classify(err)
		}
		if running {
			return errTurnInProgress
		}
		_, err := tx.Exec(ctx, `DELETE FROM assistant_conversations WHERE id = $1`, id)
		return db.Classify(err)
	})
}

func (s store) lockConversation(ctx context.Context, tx pgx.Tx, userID, id string) (string, error) {
	var got string
	err := tx.QueryRow(ctx, `SELECT id::text FROM assistant_conversations WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID).Scan(&got)
	return got, db.Classify(err)
}

var errTurnInProgress = apperr.New(apperr.TurnInProgress, "an assistant answer is still streaming for this account; wait for it to finish")

// turn is a stored turn.
type turn struct {
	ID             string
	ConversationID string
	Status         string // running, complete or incomplete
	EndReason      string
	Usage          *Usage
	CreditsCharged int64
}

// findTurn returns the user's turn with the idempotency key, or nil.
func (s store) findTurn(ctx context.Context, userID, key string) (*turn, error) {
	var (
		t              turn
		reason         *string
		prompt, answer *int64
	)
	err := s.pool.QueryRow(ctx, `SELECT id::text, conversation_id::text, status, end_reason, prompt_tokens, completion_tokens, credits_charged
		FROM assistant_turns WHERE user_id = $1 AND idempotency_key = $2`, userID, key).
		Scan(&t.ID, &t.ConversationID, &t.Status, &reason, &prompt, &answer, &t.CreditsCharged)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, db.Classify(err)
	}
	if reason != nil {
		t.EndReason = *reason
	}
	if prompt != nil && answer != nil {
		t.Usage = &Usage{PromptTokens: *prompt, CompletionTokens: *answer}
	}
	return &t, nil
}

// turnMessages returns the question and the answer (nil while running) of
// a turn.
func (s store) turnMessages(ctx context.Context, turnID string) (question, answer *Message, err error) {
	rows, err := s.pool.Query(ctx, `SELECT id::text, role, content, complete, turn_id::text, created_at
		FROM assistant_messages WHERE turn_id = $1`, turnID)
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	msgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Message, error) {
		var m Message
		err := row.Scan(&m.ID, &m.Role, &m.Content, &m.Complete, &m.TurnID, &m.CreatedAt)
		return m, err
	})
	if err != nil {
		return nil, nil, db.Classify(err)
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Content, err = s.open(encrypt.AssistantMessages, m.Content); err != nil {
			return nil, nil, err
		}
		if m.Role == "user" {
			question = m
		} else {
			answer = m
		}
	}
	return question, answer, nil
}

// newTurn is what beginTurn records.
type newTurn struct {
	UserID         string
	ConversationID string // "" starts a new conversation
	Key            string
	Question       string
	PersonaID      *string    // a new conversation's (checked by the caller: personaColumn)
	Review         *ReviewRef // a new conversation's (checked by the caller: checkReview)
	ReservationID  string     // "" on the trader's own key: no credits held
	Model          string
	Now            time.Time
	StaleBefore    time.Time // see closeStale
}

// errKeyTaken: the idempotency key was recorded by a concurrent submit
// between the caller's look-up and its insert.
var errKeyTaken = errors.New("idempotency key taken")

// beginTurn records a running turn and its question in one transaction,
// creating the conversation (titled after the question) when asked to. It
// refuses a second running turn of the user with errTurnInProgress, and a
// key another submit just took with errKeyTaken.
func (s store) beginTurn(ctx context.Context, n newTurn) (conversationID, turnID string, err error) {
	err = db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := closeStale(ctx, tx, n.UserID, n.StaleBefore, n.Now); err != nil {
			return err
		}
		conversationID = n.ConversationID
		if conversationID == "" {
			kind, day, position := n.Review.columns()
			err := tx.QueryRow(ctx, `INSERT INTO assistant_conversations (user_id, title, created_at, updated_at, persona_id,
					review_kind, review_date, review_position_id)
				VALUES ($1, $2, $3, $3, $4, $5, $6, $7) RETURNING id::text`, n.UserID, s.keys.Seal(encrypt.AssistantTitles, titleOf(n.Question)), n.Now,
				n.PersonaID, kind, day, position).Scan(&conversationID)
			if err != nil {
				return db.Classify(err)
			}
		} else {
			if _, err := s.lockConversation(ctx, tx, n.UserID, conversationID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE assistant_conversations SET updated_at = $2 WHERE id = $1`, conversationID, n.Now); err != nil {
				return db.Classify(err)
			}
		}
		err := tx.QueryRow(ctx, `INSERT INTO assistant_turns (user_id, conversation_id, idempotency_key, reservation_id, model, started_at)
			VALUES ($1, $2, $3, NULLIF($4, '')::uuid, $5, $6) RETURNING id::text`, n.UserID, conversationID, n.Key, n.ReservationID, n.Model, n.Now).Scan(&turnID)
		switch {
		case db.IsUniqueViolation(err, "assistant_turns_one_running_idx"):
			return errTurnInProgress
		case db.IsUniqueViolation(err, "assistant_turns_user_id_idempotency_key_key"):
			return errKeyTaken
		case err != nil:
			return db.Classify(err)
		}
		_, err = tx.Exec(ctx, `INSERT INTO assistant_messages (conversation_id, turn_id, role, content, complete, created_at)
			VALUES ($1, $2, 'user', $3, true, $4)`, conversationID, turnID, s.keys.Seal(encrypt.AssistantMessages, n.Question), n.Now)
		return db.Classify(err)
	})
	return conversationID, turnID, err
}

// closeStale closes as abandoned the user's running turn that started
// before staleBefore: it belongs to a process that died mid-turn (a live
// one ends its turn at the budget). Its credit hold expires on its own
// through the wallet's sweeper.
func closeStale(ctx context.Context, tx pgx.Tx, userID string, staleBefore, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE assistant_turns SET status = 'incomplete', end_reason = 'abandoned', finished_at = $3
		WHERE user_id = $1 AND status = 'running' AND started_at < $2`, userID, staleBefore, now)
	return db.Classify(err)
}

// ending is how a turn ended.
type ending struct {
	Reason         string // complete, budget, disconnect, provider_error, insufficient_credits or error
	Code           string // with insufficient_credits: the wallet's refusal code
	Answer         string
	Usage          *Usage
	CreditsCharged int64
	Now            time.Time
}

// finishTurn stores the answer and closes the turn, in one transaction.
func (s store) finishTurn(ctx context.Context, turnID, conversationID string, e ending) (messageID string, err error) {
	status := "incomplete"
	if e.Reason == "complete" {
		status = "complete"
	}
	var prompt, answer *int64
	if e.Usage != nil {
		prompt, answer = &e.Usage.PromptTokens, &e.Usage.CompletionTokens
	}
	err = db.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE assistant_turns SET status = $2, end_reason = $3, prompt_tokens = $4,
			completion_tokens = $5, credits_charged = $6, finished_at = $7 WHERE id = $1`,
			turnID, status, e.Reason, prompt, answer, e.CreditsCharged, e.Now)
		if err != nil {
			return db.Classify(err)
		}
		if tag.RowsAffected() != 1 {
			return apperr.ErrNotFound // the conversation was deleted meanwhile
		}
		err = tx.QueryRow(ctx, `INSERT INTO assistant_messages (conversation_id, turn_id, role, content, complete, created_at)
			VALUES ($1, $2, 'assistant', $3, $4, $5) RETURNING id::text`,
			conversationID, turnID, s.keys.Seal(encrypt.AssistantMessages, e.Answer), status == "complete", e.Now).Scan(&messageID)
		return db.Classify(err)
	})
	return messageID, err
}

// ToolCall is a tool call of a turn with its result, as the conversation
// shows it.
type ToolCall struct {
	TurnID    string          `json:"turnId"`
	Seq       int             `json:"seq"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Result    string          `json:"result"`
	// Round is the provider call of the turn that asked for it (0 for
	// calls stored before rounds were).
	Round int `json:"-"`
}

// callID is the id a stored call goes by in a replay and a later prompt:
// its turn's and its order (the provider's own id is not kept).
func (c ToolCall) callID() string { return c.TurnID + "-" + strconv.Itoa(c.Seq) }

// addToolCall stores a call of the turn's round and its result (sealed)
// as the turn runs.
func (s store) addToolCall(ctx context.Context, turnID string, seq, round int, c toolCall, result string, now time.Time) error {
	detail, err := json.Marshal(assistantdata.ToolDetail{Arguments: c.Arguments, Result: result})
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO assistant_tool_calls (turn_id, seq, round, name, detail, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		turnID, seq, round, truncate(c.Name, assistantdata.MaxToolNameChars), s.keys.Seal(encrypt.AssistantToolCalls, string(detail)), now)
	return db.Classify(err)
}

// toolCallCols are the columns readToolCalls scans, of the calls (c)
// joined to their turns (t).
const toolCallCols = `c.turn_id::text AS turn_id, c.seq, coalesce(c.round, 0) AS round, c.name, c.detail`

// toolCalls returns a conversation's tool calls in order.
func (s store) toolCalls(ctx context.Context, conversationID string) ([]ToolCall, error) {
	return s.readToolCalls(ctx, `SELECT `+toolCallCols+` FROM assistant_tool_calls c
		JOIN assistant_turns t ON t.id = c.turn_id WHERE t.conversation_id = $1 ORDER BY t.started_at, c.turn_id, c.seq`, conversationID)
}

// recentToolCalls returns the last limit tool calls of the turns, in order.
func (s store) recentToolCalls(ctx context.Context, turnIDs []string, limit int) ([]ToolCall, error) {
	return s.readToolCalls(ctx, `SELECT turn_id, seq, round, name, detail FROM (
			SELECT `+toolCallCols+`, t.started_at FROM assistant_tool_calls c JOIN assistant_turns t ON t.id = c.turn_id
			WHERE c.turn_id = ANY($1::uuid[]) ORDER BY t.started_at DESC, c.turn_id DESC, c.seq DESC LIMIT $2
		) recent ORDER BY started_at, turn_id, seq`, turnIDs, limit)
}

// readToolCalls runs a query of toolCallCols and opens each call's detail.
func (s store) readToolCalls(ctx context.Context, q string, args ...any) ([]ToolCall, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, db.Classify(err)
	}
	calls := []ToolCall{}
	var sealed []string
	for rows.Next() {
		var c ToolCall
		var d string
		if err := rows.Scan(&c.TurnID, &c.Seq, &c.Round, &c.Name, &d); err != nil {
			rows.Close()
			return nil, db.Classify(err)
		}
		calls, sealed = append(calls, c), append(sealed, d)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Classify(err)
	}
	for i := range calls {
		plain, err := s.open(encrypt.AssistantToolCalls, sealed[i])
		if err != nil {
			return nil, err
		}
		var d assistantdata.ToolDetail
		if err := json.Unmarshal([]byte(plain), &d); err != nil {
			return nil, err
		}
		calls[i].Arguments, calls[i].Result = d.Arguments, d.Result
	}
	return calls, nil
}
