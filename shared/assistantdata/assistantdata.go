// Package assistantdata is the assistant's stored data that more than one
// route group handles: personas (their rules and every read and write of
// assistant_personas) and the limits of a conversation's texts.
// functions/assistant serves them; functions/backup carries them in the
// archive and back through the same checks.
package assistantdata

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/journal"
)

// Limits of the assistant's texts. A persona's instructions go into every
// prompt of its conversations, so they are short.
const (
	MaxTitleChars        = 200
	MaxQuestionChars     = 4000
	MaxNameChars         = 60
	MaxInstructionsChars = 2000
	MaxPersonas          = 20 // a user's own, besides the built-in default
)

// DefaultID names the built-in default persona: the assistant's own manner
// with no instructions added. A conversation without a persona uses it.
const DefaultID = "default"

// Persona is a persona as the API shows it.
type Persona struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Instructions string `json:"instructions"`
	// BuiltIn is true for the default, which cannot be changed or deleted.
	BuiltIn   bool       `json:"builtIn"`
	CreatedAt *time.Time `json:"createdAt"`
	UpdatedAt *time.Time `json:"updatedAt"`
}

// Default is the built-in persona.
var Default = Persona{ID: DefaultID, Name: "Default", BuiltIn: true}

// Input is a persona's fields as a create or an update sends them.
type Input struct {
	Name         *string `json:"name"`
	Instructions *string `json:"instructions"`
}

// CheckText refuses empty text, text over max characters, invalid UTF-8
// and NUL (which PostgreSQL refuses).
func CheckText(field, s string, max int) error {
	switch {
	case s == "":
		return apperr.Invalid(field, "is required")
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return apperr.Invalid(field, "must be valid UTF-8 text")
	case utf8.RuneCountInString(s) > max:
		return apperr.Invalid(field, "must be at most "+strconv.Itoa(max)+" characters")
	}
	return nil
}

// Check returns the input's trimmed name and instructions, or a
// validation error naming every field that is wrong.
func (in Input) Check() (name, instructions string, err error) {
	var problems []apperr.FieldError
	add := func(e error) {
		if a, ok := apperr.As(e); ok {
			problems = append(problems, a.Details...)
		}
	}
	if in.Name == nil {
		add(apperr.Invalid("name", "is required"))
	} else if name, err = journal.Name("name", *in.Name, MaxNameChars); err != nil {
		add(err)
	}
	if in.Instructions == nil {
		add(apperr.Invalid("instructions", "is required"))
	} else {
		instructions = strings.TrimSpace(*in.Instructions)
		add(CheckText("instructions", instructions, MaxInstructionsChars))
	}
	if len(problems) > 0 {
		return "", "", apperr.Fields(problems)
	}
	return name, instructions, nil
}

var (
	errNameTaken = apperr.New(apperr.Conflict, "you already have a persona with this name")
	errTooMany   = apperr.New(apperr.Conflict, "you have %d personas, the most one user may have; delete one first", MaxPersonas)
)

const nameConstraint = "assistant_personas_user_name_idx"

const cols = `id::text, name, instructions, created_at, updated_at`

func scan(row pgx.CollectableRow) (Persona, error) {
	var p Persona
	var created, updated time.Time
	err := row.Scan(&p.ID, &p.Name, &p.Instructions, &created, &updated)
	p.CreatedAt, p.UpdatedAt = &created, &updated
	return p, err
}

// List returns the built-in default, then the user's personas by name.
func List(ctx context.Context, q db.Querier, userID string) ([]Persona, error) {
	rows, err := q.Query(ctx, `SELECT `+cols+` FROM assistant_personas WHERE user_id = $1 ORDER BY lower(name), id`, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	own, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, db.Classify(err)
	}
	return append([]Persona{Default}, own...), nil
}

// Get returns the user's persona, or the default for DefaultID; another
// user's or a malformed id is apperr.ErrNotFound.
func Get(ctx context.Context, q db.Querier, userID, id string) (Persona, error) {
	if id == DefaultID {
		return Default, nil
	}
	if !db.ValidUUID(id) {
		return Persona{}, apperr.ErrNotFound
	}
	rows, err := q.Query(ctx, `SELECT `+cols+` FROM assistant_personas WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return Persona{}, db.Classify(err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, scan)
	return p, db.Classify(err)
}

// Create adds a persona of the user's own in tx, under the user's row lock
// so the count holds with concurrent creates. The restore calls it too.
func Create(ctx context.Context, tx pgx.Tx, userID string, in Input, now time.Time) (Persona, error) {
	name, instructions, err := in.Check()
	if err != nil {
		return Persona{}, err
	}
	var n int
	err = tx.QueryRow(ctx, `SELECT (SELECT count(*) FROM assistant_personas WHERE user_id = $1) FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID).Scan(&n)
	if err != nil {
		return Persona{}, db.Classify(err)
	}
	if n >= MaxPersonas {
		return Persona{}, errTooMany
	}
	rows, err := tx.Query(ctx, `INSERT INTO assistant_personas (user_id, name, instructions, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $4) RETURNING `+cols, userID, name, instructions, now)
	if err != nil {
		return Persona{}, db.Classify(err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, scan)
	if db.IsUniqueViolation(err, nameConstraint) {
		return Persona{}, errNameTaken
	}
	return p, db.Classify(err)
}

// Update replaces a persona's name and instructions; the default and
// another user's are apperr.ErrNotFound.
func Update(ctx context.Context, q db.Querier, userID, id string, in Input, now time.Time) (Persona, error) {
	if !db.ValidUUID(id) {
		return Persona{}, apperr.ErrNotFound
	}
	name, instructions, err := in.Check()
	if err != nil {
		return Persona{}, err
	}
	rows, err := q.Query(ctx, `UPDATE assistant_personas SET name = $3, instructions = $4, updated_at = $5
		WHERE id = $1 AND user_id = $2 RETURNING `+cols, id, userID, name, instructions, now)
	if err != nil {
		return Persona{}, db.Classify(err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, scan)
	if db.IsUniqueViolation(err, nameConstraint) {
		return Persona{}, errNameTaken
	}
	return p, db.Classify(err)
}

// Delete deletes a persona of the user's own; its conversations go back to
// the default (the foreign key's ON DELETE SET NULL).
func Delete(ctx context.Context, q db.Querier, userID, id string) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	tag, err := q.Exec(ctx, `DELETE FROM assistant_personas WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return db.Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.ErrNotFound
	}
	return nil
}

// MaxAnswerBytes bounds an answer's text, as the provider's stream decoder
// stores at most this much of one turn.
const MaxAnswerBytes = 1 << 20

// EndReasons are how a stored turn ended (assistant_turns.end_reason).
var EndReasons = []string{"complete", "budget", "disconnect", "provider_error", "error", "abandoned", "insufficient_credits"}
