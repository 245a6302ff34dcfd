package journalstore

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/journal"
)

// Playbooks (migration 0027): a user's named setups, each a checklist of
// criteria. A position follows at most one playbook and ticks the criteria
// of it that it met. The statistics read both from closed_trades, so every
// write that changes what a closed position follows or met (its playbook,
// its ticks, a playbook or a criterion deleted) refreshes the position's
// row in its transaction (writeTx).
//
// Lock order: the playbook, then positions (by id), then accounts. A
// writer of a position's playbook takes the playbook FOR KEY SHARE before
// the position; a deleter of a playbook or of its criteria takes it FOR
// UPDATE before the positions that follow it. So a position cannot take a
// playbook or a criterion that is being deleted, and a deleter finds every
// position whose row it must refresh.

// Limits of a playbook.
const (
	MaxPlaybooks            = 100 // a user's
	MaxPlaybookNameChars    = 100
	MaxPlaybookDescChars    = 4000
	MaxCriteria             = 30 // a playbook's
	MaxCriterionTextChars   = 200
	playbookNameConstraint  = "playbooks_user_name_key"
	errPlaybookTakenMessage = "you already have a playbook with this name"
)

// Playbook is a playbook as the API shows it: its criteria in checklist
// order.
type Playbook struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Archived    bool        `json:"archived"`
	Criteria    []Criterion `json:"criteria"`
	CreatedAt   time.Time   `json:"createdAt"`
	UpdatedAt   time.Time   `json:"updatedAt"`
}

// Criterion is one item of a playbook's checklist.
type Criterion struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// PlaybookInput is the body of POST and PATCH /api/playbooks: an absent
// field is unchanged (a create requires name). Criteria, when given, is
// the whole checklist in order: an item with the id of one of the
// playbook's criteria keeps it (and its ticks) with the new text, an item
// without an id is a new criterion, and a criterion left out is deleted
// with its ticks.
type PlaybookInput struct {
	Name        *string           `json:"name"`
	Description *string           `json:"description"`
	Archived    *bool             `json:"archived"`
	Criteria    *[]CriterionInput `json:"criteria"`
	// Demo marks a created playbook as the demo journal's (removed with
	// it); never read from a request.
	Demo bool `json:"-"`
}

// CriterionInput is one item of PlaybookInput.Criteria.
type CriterionInput struct {
	ID   *string `json:"id"`
	Text string  `json:"text"`
}

// PositionPlaybook is what a position follows: the body and the answer of
// PUT /api/positions/{positionId}/playbook. CriterionIDs are the criteria
// of the playbook it met, in checklist order.
type PositionPlaybook struct {
	PlaybookID   *string  `json:"playbookId"`
	CriterionIDs []string `json:"criterionIds"`
}

var errPlaybookTaken = apperr.New(apperr.Conflict, errPlaybookTakenMessage)

// validate checks in and returns it cleaned (names and texts trimmed).
func (in PlaybookInput) validate(create bool) (PlaybookInput, error) {
	var p journal.Problems
	switch {
	case in.Name != nil:
		if n, err := journal.Name("name", *in.Name, MaxPlaybookNameChars); err != nil {
			p.Merge(err)
		} else {
			in.Name = &n
		}
	case create:
		p.Add("name", "is required")
	}
	if in.Description != nil {
		p.Merge(journal.Text("description", *in.Description, MaxPlaybookDescChars))
	}
	if in.Criteria != nil {
		list := *in.Criteria
		if len(list) > MaxCriteria {
			p.Add("criteria", "must hold at most "+strconv.Itoa(MaxCriteria)+" criteria")
			return in, p.Err()
		}
		out := make([]CriterionInput, len(list))
		seen := map[string]bool{}
		for i, c := range list {
			field := "criteria[" + strconv.Itoa(i) + "]"
			if c.ID != nil {
				switch {
				case !db.ValidUUID(*c.ID):
					p.Add(field+".id", "must be a criterion id")
				case seen[*c.ID]:
					p.Add(field+".id", "is listed twice")
				}
				seen[*c.ID] = true
			}
			text, err := journal.Name(field+".text", c.Text, MaxCriterionTextChars)
			p.Merge(err)
			out[i] = CriterionInput{ID: c.ID, Text: text}
		}
		in.Criteria = &out
	}
	return in, p.Err()
}

const playbookColumns = `id::text, name, description, archived, created_at, updated_at`

func (s *Store) scanPlaybook(row pgx.Row) (Playbook, error) {
	var b Playbook
	if err := row.Scan(&b.ID, &b.Name, &b.Description, &b.Archived, &b.CreatedAt, &b.UpdatedAt); err != nil {
		return Playbook{}, db.Classify(err)
	}
	d, err := s.keyring.Open(encrypt.PlaybookDescriptions, b.Description)
	if err != nil {
		return Playbook{}, err
	}
	b.Description, b.Criteria = d, []Criterion{}
	return b, nil
}

// Playbooks lists the user's playbooks by name (regardless of case), each
// with its criteria.
func (s *Store) Playbooks(ctx context.Context, userID string) ([]Playbook, error) {
	out := []Playbook{}
	err := pgx.BeginTxFunc(ctx, s.pool, db.Snapshot, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+playbookColumns+` FROM playbooks WHERE user_id = $1 ORDER BY lower(name), id`, userID)
		if err != nil {
			return db.Classify(err)
		}
		if out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Playbook, error) { return s.scanPlaybook(r) }); err != nil {
			return db.Classify(err)
		}
		index := map[string]int{}
		for i, b := range out {
			index[b.ID] = i
		}
		const q = `SELECT c.playbook_id::text, c.id::text, c.text FROM playbook_criteria c JOIN playbooks b ON b.id = c.playbook_id
			WHERE b.user_id = $1 ORDER BY c.sort_order, c.id`
		rows, err = tx.Query(ctx, q, userID)
		if err != nil {
			return db.Classify(err)
		}
		var book string
		var c Criterion
		_, err = pgx.ForEachRow(rows, []any{&book, &c.ID, &c.Text}, func() error {
			if i, ok := index[book]; ok {
				out[i].Criteria = append(out[i].Criteria, c)
			}
			return nil
		})
		return db.Classify(err)
	})
	return out, err
}

// Playbook reads one of the user's playbooks; a malformed, missing or
// foreign id is apperr.ErrNotFound.
func (s *Store) Playbook(ctx context.Context, userID, id string) (Playbook, error) {
	if !db.ValidUUID(id) {
		return Playbook{}, apperr.ErrNotFound
	}
	return s.readPlaybook(ctx, s.pool, userID, id)
}

func (s *Store) readPlaybook(ctx context.Context, q db.Querier, userID, id string) (Playbook, error) {
	b, err := s.scanPlaybook(q.QueryRow(ctx, `SELECT `+playbookColumns+` FROM playbooks WHERE id = $1 AND user_id = $2`, id, userID))
	if err != nil {
		return Playbook{}, err
	}
	rows, err := q.Query(ctx, `SELECT id::text, text FROM playbook_criteria WHERE playbook_id = $1 ORDER BY sort_order, id`, id)
	if err != nil {
		return Playbook{}, db.Classify(err)
	}
	b.Criteria, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Criterion])
	if err != nil {
		return Playbook{}, db.Classify(err)
	}
	if b.Criteria == nil {
		b.Criteria = []Criterion{}
	}
	return b, nil
}

// CreatePlaybook creates a playbook with its criteria; names are unique
// per user regardless of case (409), and a user has at most MaxPlaybooks.
func (s *Store) CreatePlaybook(ctx context.Context, userID string, in PlaybookInput) (Playbook, error) {
	in, err := in.validate(true)
	if err != nil {
		return Playbook{}, err
	}
	if in.Criteria != nil {
		for i, c := range *in.Criteria {
			if c.ID != nil {
				return Playbook{}, apperr.Invalid("criteria["+strconv.Itoa(i)+"].id", "must be left out for a new playbook's criteria")
			}
		}
	}
	var out Playbook
	err = s.write(ctx, userID, func(w *writeTx) error {
		// The user's row orders creates, so two never both pass the count.
		if _, err := w.Exec(ctx, `SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, userID); err != nil {
			return db.Classify(err)
		}
		var n int
		if err := w.QueryRow(ctx, `SELECT count(*) FROM playbooks WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return db.Classify(err)
		}
		if n >= MaxPlaybooks {
			return apperr.New(apperr.Conflict, "you have %d playbooks, the most one user may have; delete one first", n)
		}
		desc, archived := "", false
		if in.Description != nil {
			desc = *in.Description
		}
		if in.Archived != nil {
			archived = *in.Archived
		}
		var id string
		err := w.QueryRow(ctx, `INSERT INTO playbooks (user_id, name, description, archived, demo) VALUES ($1, $2, $3, $4, $5) RETURNING id::text`,
			userID, *in.Name, s.keyring.Seal(encrypt.PlaybookDescriptions, desc), archived, in.Demo).Scan(&id)
		if db.IsUniqueViolation(err, playbookNameConstraint) {
			return errPlaybookTaken
		}
		if err != nil {
			return db.Classify(err)
		}
		if err := writeCriteria(ctx, w, id, in.Criteria); err != nil {
			return err
		}
		out, err = s.readPlaybook(ctx, w, userID, id)
		return err
	})
	return out, err
}

// writeCriteria makes the playbook's checklist list (nil: unchanged): the
// listed criteria in order, new ones inserted. The caller has deleted the
// criteria left out.
func writeCriteria(ctx context.Context, w *writeTx, playbookID string, list *[]CriterionInput) error {
	if list == nil {
		return nil
	}
	var ids, texts []*string
	var orders []int32
	for i, c := range *list {
		ids, texts, orders = append(ids, c.ID), append(texts, &c.Text), append(orders, int32(i))
	}
	const upd = `UPDATE playbook_criteria c SET text = v.text, sort_order = v.ord
		FROM unnest($2::uuid[], $3::text[], $4::int[]) AS v(id, text, ord)
		WHERE v.id IS NOT NULL AND c.id = v.id AND c.playbook_id = $1`
	if _, err := w.Exec(ctx, upd, playbookID, ids, texts, orders); err != nil {
		return db.Classify(err)
	}
	const ins = `INSERT INTO playbook_criteria (playbook_id, sort_order, text)
		SELECT $1, v.ord, v.text FROM unnest($2::uuid[], $3::text[], $4::int[]) AS v(id, text, ord) WHERE v.id IS NULL`
	_, err := w.Exec(ctx, ins, playbookID, ids, texts, orders)
	return db.Classify(err)
}

// UpdatePlaybook changes the given fields of the user's playbook. A
// criterion left out of in.Criteria is deleted, its ticks with it, and the
// statistics' rows of the closed positions that ticked it are refreshed.
func (s *Store) UpdatePlaybook(ctx context.Context, userID, id string, in PlaybookInput) (Playbook, error) {
	if !db.ValidUUID(id) {
		return Playbook{}, apperr.ErrNotFound
	}
	in, err := in.validate(false)
	if err != nil {
		return Playbook{}, err
	}
	var out Playbook
	err = s.write(ctx, userID, func(w *writeTx) error {
		if err := lockPlaybook(ctx, w, userID, id); err != nil {
			return err
		}
		if in.Criteria != nil {
			keep := []string{}
			for _, c := range *in.Criteria {
				if c.ID != nil {
					keep = append(keep, *c.ID)
				}
			}
			if err := checkCriteria(ctx, w, id, *in.Criteria, keep); err != nil {
				return err
			}
			const gone = `SELECT id::text FROM playbook_criteria WHERE playbook_id = $1 AND id <> ALL($2::uuid[])`
			removed, err := idList(w.Query(ctx, gone, id, keep))
			if err != nil {
				return err
			}
			if err := deleteCriteria(ctx, w, removed); err != nil {
				return err
			}
		}
		var desc *string
		if in.Description != nil {
			sealed := s.keyring.Seal(encrypt.PlaybookDescriptions, *in.Description)
			desc = &sealed
		}
		const upd = `UPDATE playbooks SET name = coalesce($2, name), description = coalesce($3, description),
			archived = coalesce($4, archived), updated_at = now() WHERE id = $1`
		_, err := w.Exec(ctx, upd, id, in.Name, desc, in.Archived)
		if db.IsUniqueViolation(err, playbookNameConstraint) {
			return errPlaybookTaken
		}
		if err != nil {
			return db.Classify(err)
		}
		if err := writeCriteria(ctx, w, id, in.Criteria); err != nil {
			return err
		}
		out, err = s.readPlaybook(ctx, w, userID, id)
		return err
	})
	return out, err
}

// checkCriteria refuses criterion ids of list (keep: those given) that are
// not the playbook's, naming each by its index.
func checkCriteria(ctx context.Context, q db.Querier, playbookID string, list []CriterionInput, keep []string) error {
	found, err := idList(q.Query(ctx, `SELECT id::text FROM playbook_criteria WHERE playbook_id = $1 AND id = ANY($2::uuid[])`,
		playbookID, keep))
	if err != nil || len(found) == len(keep) {
		return err
	}
	mine := map[string]bool{}
	for _, id := range found {
		mine[id] = true
	}
	var p journal.Problems
	for i, c := range list {
		if c.ID != nil && !mine[*c.ID] {
			p.Add("criteria["+strconv.Itoa(i)+"].id", "is not a criterion of this playbook")
		}
	}
	return p.Err()
}

// lockPlaybook locks the user's playbook FOR UPDATE: no position takes it
// or one of its criteria until this transaction ends.
func lockPlaybook(ctx context.Context, q db.Querier, userID, id string) error {
	var ok bool
	err := q.QueryRow(ctx, `SELECT true FROM playbooks WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID).Scan(&ok)
	return db.Classify(err)
}

// deleteCriteria deletes criteria (of a playbook the caller has locked)
// with their ticks; the positions that ticked them are locked first, so
// their rows are refreshed.
func deleteCriteria(ctx context.Context, w *writeTx, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := w.lockPositions(ctx, `p.id IN (SELECT position_id FROM position_criteria WHERE criterion_id = ANY($2::uuid[]))`,
		ids); err != nil {
		return err
	}
	_, err := w.Exec(ctx, `DELETE FROM playbook_criteria WHERE id = ANY($1::uuid[])`, ids)
	return db.Classify(err)
}

// DeletePlaybook deletes the user's playbook with its criteria and their
// ticks; its positions follow none afterwards (locked first, so the rows
// of the closed ones are refreshed).
func (s *Store) DeletePlaybook(ctx context.Context, userID, id string) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	return s.write(ctx, userID, func(w *writeTx) error {
		if err := lockPlaybook(ctx, w, userID, id); err != nil {
			return err
		}
		if _, err := w.lockPositions(ctx, `p.playbook_id = $2`, id); err != nil {
			return err
		}
		_, err := w.Exec(ctx, `DELETE FROM playbooks WHERE id = $1`, id)
		return db.Classify(err)
	})
}

// PositionPlaybook reads what the user's position follows; a malformed,
// missing or foreign id is apperr.ErrNotFound.
func (s *Store) PositionPlaybook(ctx context.Context, userID, positionID string) (PositionPlaybook, error) {
	if !db.ValidUUID(positionID) {
		return PositionPlaybook{}, apperr.ErrNotFound
	}
	return positionPlaybook(ctx, s.pool, userID, positionID)
}

func positionPlaybook(ctx context.Context, q db.Querier, userID, positionID string) (PositionPlaybook, error) {
	var out PositionPlaybook
	if err := q.QueryRow(ctx, `SELECT playbook_id::text FROM positions WHERE id = $1 AND user_id = $2`, positionID, userID).
		Scan(&out.PlaybookID); err != nil {
		return PositionPlaybook{}, db.Classify(err)
	}
	const met = `SELECT c.id::text FROM position_criteria pc JOIN playbook_criteria c ON c.id = pc.criterion_id
		WHERE pc.position_id = $1 ORDER BY c.sort_order, c.id`
	ids, err := idList(q.Query(ctx, met, positionID))
	if err != nil {
		return PositionPlaybook{}, err
	}
	out.CriterionIDs = ids
	if out.CriterionIDs == nil {
		out.CriterionIDs = []string{}
	}
	return out, nil
}

// SetPositionPlaybook makes the user's position follow in.PlaybookID (null:
// none) and tick exactly in.CriterionIDs, which must be criteria of that
// playbook (400 otherwise, naming each by its index). Its statistics row
// is refreshed when it is closed.
func (s *Store) SetPositionPlaybook(ctx context.Context, userID, positionID string, in PositionPlaybook) (PositionPlaybook, error) {
	if !db.ValidUUID(positionID) {
		return PositionPlaybook{}, apperr.ErrNotFound
	}
	var p journal.Problems
	if in.PlaybookID != nil && !db.ValidUUID(*in.PlaybookID) {
		p.Add("playbookId", "must be a playbook id")
	}
	if in.PlaybookID == nil && len(in.CriterionIDs) > 0 {
		p.Add("criterionIds", "must be empty without a playbook")
	}
	if len(in.CriterionIDs) > MaxCriteria {
		p.Add("criterionIds", "must hold at most "+strconv.Itoa(MaxCriteria)+" criteria")
	}
	ids := []string{}
	seen := map[string]bool{}
	for i, id := range in.CriterionIDs {
		switch {
		case !db.ValidUUID(id):
			p.Add("criterionIds["+strconv.Itoa(i)+"]", "must be a criterion id")
		case !seen[id]:
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if err := p.Err(); err != nil {
		return PositionPlaybook{}, err
	}
	var out PositionPlaybook
	err := s.write(ctx, userID, func(w *writeTx) error {
		if in.PlaybookID != nil {
			var ok bool
			err := w.QueryRow(ctx, `SELECT true FROM playbooks WHERE id = $1 AND user_id = $2 FOR KEY SHARE`, *in.PlaybookID, userID).Scan(&ok)
			if err == pgx.ErrNoRows {
				return apperr.Invalid("playbookId", "is not one of your playbooks")
			}
			if err != nil {
				return db.Classify(err)
			}
		}
		if err := w.lockPosition(ctx, positionID); err != nil {
			return err
		}
		if _, err := w.Exec(ctx, `DELETE FROM position_criteria WHERE position_id = $1`, positionID); err != nil {
			return db.Classify(err)
		}
		const set = `UPDATE positions SET playbook_id = $2, updated_at = now() WHERE id = $1`
		if _, err := w.Exec(ctx, set, positionID, in.PlaybookID); err != nil {
			return db.Classify(err)
		}
		if len(ids) > 0 {
			// Only the criteria of the position's playbook are ticked: one
			// that is not is not inserted, and is named below.
			const tick = `INSERT INTO position_criteria (position_id, criterion_id)
				SELECT $1, c.id FROM playbook_criteria c WHERE c.id = ANY($2::uuid[]) AND c.playbook_id = $3 RETURNING criterion_id::text`
			ticked, err := idList(w.Query(ctx, tick, positionID, ids, *in.PlaybookID))
			if err != nil {
				return err
			}
			if len(ticked) != len(ids) {
				mine := map[string]bool{}
				for _, id := range ticked {
					mine[id] = true
				}
				var p journal.Problems
				for i, id := range in.CriterionIDs {
					if !mine[id] {
						p.Add("criterionIds["+strconv.Itoa(i)+"]", "is not a criterion of this playbook")
					}
				}
				return p.Err()
			}
		}
		var err error
		out, err = positionPlaybook(ctx, w, userID, positionID)
		return err
	})
	return out, err
}

// idList is the ids a query returns, none being no error (collectIDs
// answers none with ErrNotFound).
func idList(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, db.Classify(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, db.Classify(err)
}

// RestoredFollow is what a restored position follows (new ids): a
// playbook and the criteria of it the position met.
type RestoredFollow struct {
	PositionID, PlaybookID string
	CriterionIDs           []string
}

// restoreFollows writes a restored journal's position playbooks and
// ticks (positions the restore created). Each criterion was checked to be
// of its playbook; the insert takes only such criteria regardless.
func restoreFollows(ctx context.Context, w *writeTx, in []RestoredFollow) error {
	if len(in) == 0 {
		return nil
	}
	var positions, books, tickPositions, ticks []string
	for _, f := range in {
		positions, books = append(positions, f.PositionID), append(books, f.PlaybookID)
		for _, c := range f.CriterionIDs {
			tickPositions, ticks = append(tickPositions, f.PositionID), append(ticks, c)
		}
	}
	const set = `UPDATE positions p SET playbook_id = x.b FROM unnest($2::uuid[], $3::uuid[]) AS x(id, b)
		WHERE p.id = x.id AND p.user_id = $1`
	if _, err := w.Exec(ctx, set, w.userID, positions, books); err != nil {
		return db.Classify(err)
	}
	w.touch(positions...)
	const tick = `INSERT INTO position_criteria (position_id, criterion_id)
		SELECT x.p, x.c FROM unnest($1::uuid[], $2::uuid[]) AS x(p, c)
		JOIN positions p ON p.id = x.p JOIN playbook_criteria c ON c.id = x.c AND c.playbook_id = p.playbook_id
		ON CONFLICT DO NOTHING`
	_, err := w.Exec(ctx, tick, tickPositions, ticks)
	return db.Classify(err)
}
