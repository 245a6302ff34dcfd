package backup

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/backup"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
)

// playbooks writes each playbook with its checklist, the description
// opened.
func (ex exporter) playbooks(ctx context.Context) error {
	const q = `SELECT b.id::text, b.name, b.description, b.archived, b.created_at, b.demo,
			coalesce((SELECT json_agg(json_build_object('id', c.id, 'text', c.text) ORDER BY c.sort_order, c.id)
				FROM playbook_criteria c WHERE c.playbook_id = b.id), '[]')
		FROM playbooks b WHERE b.user_id = $1 ORDER BY b.created_at, b.id`
	var criteria []byte
	keyring := ex.h.app.Keyring
	return lines(ctx, ex, backup.EntryPlaybooks, q, func(b *backup.Playbook) []any {
		return []any{&b.ID, &b.Name, &b.Description, &b.Archived, &b.CreatedAt, &b.Demo, &criteria}
	}, func(b *backup.Playbook) error {
		b.Criteria = nil
		if err := json.Unmarshal(criteria, &b.Criteria); err != nil {
			return err
		}
		d, err := keyring.Open(encrypt.PlaybookDescriptions, b.Description)
		b.Description = d
		return err
	})
}

// positionPlaybooks writes what each position that follows a playbook
// follows and met.
func (ex exporter) positionPlaybooks(ctx context.Context) error {
	const q = `SELECT p.id::text, p.playbook_id::text,
			coalesce((SELECT array_agg(pc.criterion_id::text ORDER BY pc.criterion_id) FROM position_criteria pc WHERE pc.position_id = p.id), '{}')
		FROM positions p WHERE p.user_id = $1 AND p.playbook_id IS NOT NULL ORDER BY p.created_at, p.id`
	return lines(ctx, ex, backup.EntryPositionPlaybooks, q, func(f *backup.PositionPlaybook) []any {
		return []any{&f.PositionID, &f.PlaybookID, &f.CriterionIDs}
	}, nil)
}

// playbooks restores each playbook and its checklist under new ids, held
// to the app's rules.
func (rs *restorer) playbooks(ctx context.Context, tx pgx.Tx) error {
	return backup.Lines(rs.a, backup.EntryPlaybooks, backup.MaxPlaybooks, func(b backup.Playbook) error {
		name, err := journal.Name("name", b.Name, journalstore.MaxPlaybookNameChars)
		if err != nil || journal.Text("description", b.Description, journalstore.MaxPlaybookDescChars) != nil ||
			len(b.Criteria) > journalstore.MaxCriteria {
			return invalidf("the playbook %q does not hold to the app's rules", b.ID)
		}
		const ins = `INSERT INTO playbooks (user_id, name, description, archived, created_at, demo) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text`
		var id string
		if err := tx.QueryRow(ctx, ins, rs.userID, name, rs.h.app.Keyring.Seal(encrypt.PlaybookDescriptions, b.Description),
			b.Archived, b.CreatedAt, b.Demo).Scan(&id); err != nil {
			return err
		}
		rs.ids["playbook:"+b.ID] = id
		for i, c := range b.Criteria {
			text, err := journal.Name("text", c.Text, journalstore.MaxCriterionTextChars)
			if _, dup := rs.ids["criterion:"+c.ID]; err != nil || dup {
				return invalidf("a criterion of the playbook %q does not hold to the app's rules", b.ID)
			}
			const insC = `INSERT INTO playbook_criteria (playbook_id, sort_order, text) VALUES ($1, $2, $3) RETURNING id::text`
			var cid string
			if err := tx.QueryRow(ctx, insC, id, i, text).Scan(&cid); err != nil {
				return err
			}
			rs.ids["criterion:"+c.ID] = cid
			rs.ids["criterion-of:"+cid] = id
		}
		rs.count.Playbooks++
		return nil
	})
}

// positionPlaybooks restores what each position follows and met, through
// the journal store (the statistics read both).
func (rs *restorer) positionPlaybooks(ctx context.Context, tx pgx.Tx) error {
	var follows []journalstore.RestoredFollow
	seen := map[string]bool{}
	err := backup.Lines(rs.a, backup.EntryPositionPlaybooks, backup.MaxPositions, func(f backup.PositionPlaybook) error {
		position, err := rs.mapped("position", f.PositionID)
		if err != nil {
			return err
		}
		book, err := rs.mapped("playbook", f.PlaybookID)
		if err != nil {
			return err
		}
		if seen[position] || len(f.CriterionIDs) > journalstore.MaxCriteria {
			return invalidf("the playbook of position %q is not consistent", f.PositionID)
		}
		seen[position] = true
		out := journalstore.RestoredFollow{PositionID: position, PlaybookID: book}
		for _, c := range f.CriterionIDs {
			id, err := rs.mapped("criterion", c)
			if err != nil {
				return err
			}
			if rs.ids["criterion-of:"+id] != book {
				return invalidf("position %q met a criterion of another playbook", f.PositionID)
			}
			out.CriterionIDs = append(out.CriterionIDs, id)
		}
		follows = append(follows, out)
		return nil
	})
	if err != nil {
		return err
	}
	return rs.journal.Follows(ctx, follows)
}
