package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"tradejournal/shared/apperr"
	"tradejournal/shared/assistantdata"
	"tradejournal/shared/backup"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
)

// assistantPersonas writes the user's own personas.
func (ex exporter) assistantPersonas(ctx context.Context) error {
	const q = `SELECT id::text, name, instructions, created_at FROM assistant_personas WHERE user_id = $1 ORDER BY created_at, id`
	return lines(ctx, ex, backup.EntryAssistantPersonas, q, func(p *backup.AssistantPersona) []any {
		return []any{&p.ID, &p.Name, &p.Instructions, &p.CreatedAt}
	}, nil)
}

// assistantSettings writes the user's consent, when they ever chose.
func (ex exporter) assistantSettings(ctx context.Context) error {
	var s backup.AssistantSettings
	err := ex.tx.QueryRow(ctx, `SELECT journal_access FROM assistant_settings WHERE user_id = $1`, ex.userID).Scan(&s.JournalAccess)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	w, err := ex.zw.Create(backup.EntryAssistantSettings, true)
	if err != nil {
		return err
	}
	return backup.NewLineWriter(w).Write(s)
}

// sealedTurn is a turn as the export's query reads it: its tool calls with
// their details still sealed.
type sealedTurn struct {
	backup.AssistantTurn
	Calls []struct {
		Round     int       `json:"round"`
		Name      string    `json:"name"`
		Detail    string    `json:"detail"`
		CreatedAt time.Time `json:"createdAt"`
	} `json:"calls"`
}

// assistantConversations writes each conversation with its turns and their
// tool calls, the title, the messages and the calls opened. A turn still
// running is written as abandoned, as the next turn of its user would
// close it.
func (ex exporter) assistantConversations(ctx context.Context) error {
	const q = `SELECT c.id::text, c.title, c.persona_id::text, c.review_kind, c.review_date::text, c.review_position_id::text,
			c.created_at, c.updated_at,
			coalesce((SELECT json_agg(json_build_object('question', qm.content, 'answer', am.content,
					'endReason', coalesce(t.end_reason, 'abandoned'), 'startedAt', t.started_at, 'finishedAt', t.finished_at,
					'calls', (SELECT coalesce(json_agg(json_build_object('round', coalesce(tc.round, 0), 'name', tc.name,
							'detail', tc.detail, 'createdAt', tc.created_at) ORDER BY tc.seq), '[]')
						FROM assistant_tool_calls tc WHERE tc.turn_id = t.id))
					ORDER BY qm.seq)
				FROM assistant_turns t JOIN assistant_messages qm ON qm.turn_id = t.id AND qm.role = 'user'
					LEFT JOIN assistant_messages am ON am.turn_id = t.id AND am.role = 'assistant'
				WHERE t.conversation_id = c.id), '[]')
		FROM assistant_conversations c WHERE c.user_id = $1 ORDER BY c.created_at, c.id`
	var (
		kind, day, position *string
		turns               []byte
	)
	keys := ex.h.app.Keyring
	return lines(ctx, ex, backup.EntryAssistantConversations, q, func(c *backup.AssistantConversation) []any {
		return []any{&c.ID, &c.Title, &c.PersonaID, &kind, &day, &position, &c.CreatedAt, &c.UpdatedAt, &turns}
	}, func(c *backup.AssistantConversation) (err error) {
		c.Review = nil
		if kind != nil {
			c.Review = &backup.AssistantReview{Kind: *kind, Date: day, PositionID: position}
		}
		var sealed []sealedTurn
		if err := json.Unmarshal(turns, &sealed); err != nil {
			return err
		}
		if c.Title, err = keys.Open(encrypt.AssistantTitles, c.Title); err != nil {
			return err
		}
		c.Turns = make([]backup.AssistantTurn, len(sealed))
		for i, st := range sealed {
			t := &c.Turns[i]
			*t = st.AssistantTurn
			for _, call := range st.Calls {
				plain, err := keys.Open(encrypt.AssistantToolCalls, call.Detail)
				if err != nil {
					return err
				}
				var d assistantdata.ToolDetail
				if err := json.Unmarshal([]byte(plain), &d); err != nil {
					return err
				}
				t.ToolCalls = append(t.ToolCalls, backup.AssistantToolCall{Round: call.Round, Name: call.Name, Arguments: d.Arguments,
					Result: d.Result, CreatedAt: call.CreatedAt})
			}
			if t.Question, err = keys.Open(encrypt.AssistantMessages, t.Question); err != nil {
				return err
			}
			if t.Answer != nil {
				a, err := keys.Open(encrypt.AssistantMessages, *t.Answer)
				if err != nil {
					return err
				}
				t.Answer = &a
			}
		}
		return nil
	})
}

// assistantPersonas restores the personas through the routes' own create
// (its checks, its cap, its unique names).
func (rs *restorer) assistantPersonas(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryAssistantPersonas, backup.MaxAssistantPersonas, func(p backup.AssistantPersona) error {
		if _, dup := rs.ids["persona:"+p.ID]; dup {
			return invalidf("two personas share the id %q", p.ID)
		}
		made, err := assistantdata.Create(ctx, tx, rs.userID, assistantdata.Input{Name: &p.Name, Instructions: &p.Instructions}, p.CreatedAt)
		if e, ok := apperr.As(err); ok {
			return invalidf("the persona %q: %s", p.Name, e.Message)
		}
		if err != nil {
			return err
		}
		rs.ids["persona:"+p.ID] = made.ID
		rs.count.AssistantPersonas++
		return nil
	})
}

// assistantSettings restores the consent, as PUT /api/assistant/settings
// stores it.
func (rs *restorer) assistantSettings(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryAssistantSettings, 1, func(s backup.AssistantSettings) error {
		return assistantdata.SetJournalAccess(ctx, tx, rs.userID, s.JournalAccess, rs.h.app.Now())
	})
}

// assistantConversations restores the conversations, their turns with
// their tool calls, and messages under new ids, each text held to the
// assistant's limits and sealed with this instance's key; four COPYs write
// them.
func (rs *restorer) assistantConversations(ctx context.Context, tx pgx.Tx) error {
	var convs, turns, msgs, calls [][]any
	keys := rs.h.app.Keyring
	err := backup.Lines(rs.a, backup.EntryAssistantConversations, backup.MaxAssistantConversations, func(c backup.AssistantConversation) error {
		if _, dup := rs.ids["conversation:"+c.ID]; dup || c.ID == "" {
			return invalidf("two conversations share the id %q", c.ID)
		}
		if err := assistantdata.CheckText("title", c.Title, assistantdata.MaxTitleChars); err != nil {
			return invalidf("a conversation's title is empty or longer than %d characters", assistantdata.MaxTitleChars)
		}
		if len(turns)+len(c.Turns) > backup.MaxAssistantTurns {
			return invalidf("more assistant turns than a restore accepts")
		}
		var persona *string
		if c.PersonaID != nil {
			id, err := rs.mapped("persona", *c.PersonaID)
			if err != nil {
				return err
			}
			persona = &id
		}
		kind, day, position, err := rs.review(c.Review)
		if err != nil {
			return err
		}
		id := db.NewUUID()
		rs.ids["conversation:"+c.ID] = uuidText(id)
		convs = append(convs, []any{id, rs.userID, keys.Seal(encrypt.AssistantTitles, c.Title), c.CreatedAt, c.UpdatedAt, persona, kind, day, position})
		for _, t := range c.Turns {
			if err := checkTurn(t); err != nil {
				return err
			}
			turn, finished := db.NewUUID(), t.StartedAt
			if t.FinishedAt != nil {
				finished = *t.FinishedAt
			}
			status := "incomplete"
			if t.EndReason == "complete" {
				status = "complete"
			}
			turns = append(turns, []any{turn, rs.userID, id, "restored:" + uuidText(turn), status, t.EndReason, t.StartedAt, finished})
			msgs = append(msgs, []any{id, turn, "user", keys.Seal(encrypt.AssistantMessages, t.Question), true, t.StartedAt})
			if t.Answer != nil {
				msgs = append(msgs, []any{id, turn, "assistant", keys.Seal(encrypt.AssistantMessages, *t.Answer), status == "complete", finished})
			}
			if len(calls)+len(t.ToolCalls) > backup.MaxAssistantToolCalls {
				return invalidf("more assistant tool calls than a restore accepts")
			}
			for seq, c := range t.ToolCalls {
				if err := checkToolCall(t.ToolCalls, seq); err != nil {
					return err
				}
				detail, err := json.Marshal(assistantdata.ToolDetail{Arguments: c.Arguments, Result: c.Result})
				if err != nil {
					return err
				}
				calls = append(calls, []any{turn, seq, c.Round, c.Name, keys.Seal(encrypt.AssistantToolCalls, string(detail)), c.CreatedAt})
				rs.count.AssistantToolCalls++
			}
		}
		rs.count.AssistantConversations++
		return nil
	})
	if err != nil || len(convs) == 0 {
		return err
	}
	for _, c := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"assistant_conversations", []string{"id", "user_id", "title", "created_at", "updated_at", "persona_id", "review_kind", "review_date", "review_position_id"}, convs},
		{"assistant_turns", []string{"id", "user_id", "conversation_id", "idempotency_key", "status", "end_reason", "started_at", "finished_at"}, turns},
		{"assistant_messages", []string{"conversation_id", "turn_id", "role", "content", "complete", "created_at"}, msgs},
		{"assistant_tool_calls", []string{"turn_id", "seq", "round", "name", "detail", "created_at"}, calls},
	} {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{c.table}, c.cols, pgx.CopyFromRows(c.rows)); err != nil {
			return err
		}
	}
	return nil
}

// review maps an archived review to its columns: a position the archive
// does not hold (deleted before the backup) leaves the conversation
// without one.
func (rs *restorer) review(r *backup.AssistantReview) (kind, day, position *string, err error) {
	if r == nil {
		return nil, nil, nil, nil
	}
	switch r.Kind {
	case "week", "day":
		if r.Date == nil || r.PositionID != nil {
			return nil, nil, nil, invalidf("a conversation's review of a %s has no date", r.Kind)
		}
		if _, err := time.Parse(time.DateOnly, *r.Date); err != nil {
			return nil, nil, nil, invalidf("a conversation's review date %q is not a date", *r.Date)
		}
		return &r.Kind, r.Date, nil, nil
	case "position":
		if r.PositionID == nil || r.Date != nil {
			return nil, nil, nil, invalidf("a conversation's review of a position names none")
		}
		if id, ok := rs.ids["position:"+*r.PositionID]; ok {
			return &r.Kind, nil, &id, nil
		}
		return nil, nil, nil, nil
	}
	return nil, nil, nil, invalidf("a conversation's review is of %q, not a week, a day or a position", r.Kind)
}

// checkToolCall holds a turn's archived call (the seq-th) to what the
// assistant stores: a tool's name, arguments and a result within its
// limits, rounds in order and no more calls to a round than an answer may
// ask for.
func checkToolCall(calls []backup.AssistantToolCall, seq int) error {
	c := calls[seq]
	if err := assistantdata.CheckText("name", c.Name, assistantdata.MaxToolNameChars); err != nil {
		return invalidf("a tool call's name is empty or longer than %d characters", assistantdata.MaxToolNameChars)
	}
	// As stored: the model's JSON object, or the text of arguments that were not one.
	if args := c.Arguments; len(args) == 0 || len(args) > assistantdata.MaxToolArgumentBytes || args[0] != '{' && args[0] != '"' {
		return invalidf("a tool call's arguments are not a JSON object (or a string) of at most %d bytes", assistantdata.MaxToolArgumentBytes)
	}
	if len(c.Result) > assistantdata.MaxToolResultBytes || !utf8.ValidString(c.Result) || strings.ContainsRune(c.Result, 0) {
		return invalidf("a tool call's result is longer than %d bytes or not text", assistantdata.MaxToolResultBytes)
	}
	inRound := 0
	for _, prev := range calls[:seq] {
		if prev.Round == c.Round {
			inRound++
		}
	}
	if c.Round < 0 || c.Round >= assistantdata.MaxToolRounds || (seq > 0 && c.Round < calls[seq-1].Round) || inRound >= assistantdata.MaxToolCallsPerRound {
		return invalidf("a turn's tool calls are not in rounds 0 to %d of at most %d calls each", assistantdata.MaxToolRounds-1, assistantdata.MaxToolCallsPerRound)
	}
	return nil
}

// checkTurn holds an archived turn to what the assistant stores.
func checkTurn(t backup.AssistantTurn) error {
	if err := assistantdata.CheckText("question", t.Question, assistantdata.MaxQuestionChars); err != nil {
		return invalidf("a question is empty or longer than %d characters", assistantdata.MaxQuestionChars)
	}
	if a := t.Answer; a != nil && (len(*a) > assistantdata.MaxAnswerBytes || !utf8.ValidString(*a) || slices.Contains([]byte(*a), 0)) {
		return invalidf("an answer is longer than %d bytes or not text", assistantdata.MaxAnswerBytes)
	}
	if !slices.Contains(assistantdata.EndReasons, t.EndReason) {
		return invalidf("a turn ended for the unknown reason %q", t.EndReason)
	}
	if t.FinishedAt != nil && t.FinishedAt.Before(t.StartedAt) {
		return invalidf("a turn finished before it started")
	}
	return nil
}

func uuidText(u pgtype.UUID) string {
	b := u.Bytes
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
