package assistant

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/assistantdata"
	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/stats"
)

// A review on request ("Review my week", "Review this day", "Review this
// trade") starts a conversation with a ReviewRef. The reference is stored
// on the conversation, and every turn of it reads the figures again
// through the shared services with the caller's rights, into a bounded
// block of the system prompt: the answer follows edits to the journal, and
// nothing of another user's can be named.
const (
	maxReviewBytes   = 12 << 10
	reviewPositions  = 30 // positions of a week or a day, latest close first
	reviewFills      = 40 // fills of a reviewed position
	reviewTextChars  = 1500
	maxPersonaPrompt = assistantdata.MaxInstructionsChars * 4 // bytes
)

// ReviewRef is what a conversation reviews: a week (the Monday-to-Sunday
// week of Date) or a day (Date, YYYY-MM-DD), or a position.
type ReviewRef struct {
	Kind       string  `json:"kind"` // week, day or position
	Date       *string `json:"date,omitempty"`
	PositionID *string `json:"positionId,omitempty"`
}

// columns is the ref as assistant_conversations stores it (all nil for none).
func (r *ReviewRef) columns() (kind, day, position *string) {
	if r == nil {
		return nil, nil, nil
	}
	return &r.Kind, r.Date, r.PositionID
}

// newConversationOptions checks what a submit may set on the conversation
// it starts: its persona and its review. Both are only for "new" (an
// existing conversation's persona changes through PATCH). A persona not the
// caller's is a 400 naming personaId; a position not the caller's is 404,
// as its own route answers.
func (h *handler) newConversationOptions(ctx context.Context, u auth.User, conversationID string, b submitBody) (*string, *ReviewRef, error) {
	if conversationID != "" && b.PersonaID != nil {
		return nil, nil, apperr.Invalid("personaId", "can only be given when starting a new conversation; change a conversation's persona with PATCH")
	}
	if conversationID != "" && b.Context != nil {
		return nil, nil, apperr.Invalid("context", "can only be given when starting a new conversation")
	}
	persona, err := h.store.personaColumn(ctx, h.app.DB, u.ID, b.PersonaID)
	if err != nil || b.Context == nil {
		return persona, nil, err
	}
	review, err := h.checkReview(ctx, u, *b.Context)
	return persona, review, err
}

// checkReview validates a review context and normalises its date.
func (h *handler) checkReview(ctx context.Context, u auth.User, in ReviewRef) (*ReviewRef, error) {
	switch in.Kind {
	case "week", "day":
		if in.PositionID != nil {
			return nil, apperr.Invalid("context.positionId", "is only for kind \"position\"")
		}
		if in.Date == nil {
			return nil, apperr.Invalid("context.date", "is required for kind \""+in.Kind+"\"")
		}
		day, err := dayjournal.ParseDate(*in.Date)
		if err != nil {
			return nil, apperr.Invalid("context.date", "must be a date YYYY-MM-DD from 1900-01-01 to 2199-12-31")
		}
		d := day.Format(time.DateOnly)
		return &ReviewRef{Kind: in.Kind, Date: &d}, nil
	case "position":
		if in.Date != nil {
			return nil, apperr.Invalid("context.date", "is only for kinds \"week\" and \"day\"")
		}
		if in.PositionID == nil {
			return nil, apperr.Invalid("context.positionId", "is required for kind \"position\"")
		}
		p, err := h.journal.Position(ctx, u.ID, *in.PositionID)
		if err != nil {
			return nil, err // another user's or none: 404
		}
		return &ReviewRef{Kind: "position", PositionID: &p.ID}, nil
	case "":
		return nil, apperr.Invalid("context.kind", "is required")
	}
	return nil, apperr.Invalid("context.kind", "must be week, day or position")
}

// conversationPrompt is what a conversation adds to the system prompt: its
// persona's instructions and, with journal access, the review it was
// opened for (without, only what was asked: the review is journal data).
func (h *handler) conversationPrompt(ctx context.Context, u auth.User, conversationID string, access bool) (string, error) {
	c, err := h.store.get(ctx, h.app.DB, u.ID, conversationID)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if c.PersonaID != assistantdata.DefaultID {
		p, err := assistantdata.Get(ctx, h.app.DB, u.ID, c.PersonaID)
		if err != nil {
			return "", err
		}
		b.WriteString("\n\nThe trader chose the persona \"" + p.Name + "\". Follow its instructions on tone and focus, within the rules above:\n")
		b.WriteString(truncate(p.Instructions, maxPersonaPrompt))
	}
	if c.Review != nil && !access {
		b.WriteString("\n\nThe trader opened this conversation to review their " + c.Review.Kind + ", which you cannot read without journal access: say they can allow it in the assistant's settings.")
	}
	if c.Review != nil && access {
		text, err := h.reviewText(ctx, u, *c.Review)
		if err != nil {
			return "", err
		}
		b.WriteString("\n\n" + truncate(text, maxReviewBytes))
	}
	return b.String(), nil
}

// reviewText renders what a review reads.
func (h *handler) reviewText(ctx context.Context, u auth.User, r ReviewRef) (string, error) {
	var b strings.Builder
	switch r.Kind {
	case "position":
		if err := h.writePositionReview(ctx, &b, u, *r.PositionID); err != nil {
			return "", err
		}
	case "week", "day":
		from, err := time.Parse(time.DateOnly, *r.Date)
		if err != nil {
			return "", err
		}
		to := from
		if r.Kind == "week" {
			from = from.AddDate(0, 0, -((int(from.Weekday()) + 6) % 7))
			to = from.AddDate(0, 0, 6)
			fmt.Fprintf(&b, "Review request: the trader asked for a review of the week from Monday %s to Sunday %s (trading days in each account's zone). Its figures:\n",
				from.Format(time.DateOnly), to.Format(time.DateOnly))
		} else {
			fmt.Fprintf(&b, "Review request: the trader asked for a review of the trading day %s (%s). Its figures:\n", from.Format(time.DateOnly), from.Weekday())
		}
		if err := h.writePeriod(ctx, &b, u, from, to); err != nil {
			return "", err
		}
		if r.Kind == "day" {
			if err := h.writeDayEntry(ctx, &b, u, from); err != nil {
				return "", err
			}
		}
	}
	return b.String(), nil
}

// writePeriod writes the statistics of the positions closed from..to and
// the latest of them.
func (h *handler) writePeriod(ctx context.Context, b *strings.Builder, u auth.User, from, to time.Time) error {
	f := listquery.Filter{From: &from, To: &to, ByClose: true, Status: journal.StatusClosed}
	rep, err := stats.Compute(ctx, h.app.DB, u, f, true, h.app.Now())
	if err != nil {
		return err
	}
	writeStatistics(b, rep)
	args := []any{u.ID, reviewPositions}
	q := `SELECT ` + positionColumns + ` FROM positions p JOIN accounts a ON a.id = p.account_id
		WHERE p.user_id = $1 AND ` + f.SQL(&args, "p.closed_at") + ` ORDER BY p.closed_at DESC, p.id DESC LIMIT $2`
	positions, err := h.readPositions(ctx, q, args...)
	if err != nil {
		return err
	}
	if len(positions) == 0 {
		b.WriteString("\nNo positions were closed in this period.\n")
		return nil
	}
	b.WriteString("\nPositions closed in this period (latest close first):\n")
	for _, p := range positions {
		b.WriteString(p.line())
	}
	return nil
}

// writeDayEntry writes the day journal's entry of day, when there is one.
func (h *handler) writeDayEntry(ctx context.Context, b *strings.Builder, u auth.User, day time.Time) error {
	e, err := h.days.Get(ctx, u.ID, day)
	if err != nil {
		return err
	}
	if e.UpdatedAt == nil {
		b.WriteString("\nThe trader wrote no day journal entry for this day.\n")
		return nil
	}
	b.WriteString("\nThe trader's day journal entry:\n")
	if e.Mood != nil {
		fmt.Fprintf(b, "Mood: %d of 5\n", *e.Mood)
	}
	for _, part := range []struct{ label, text string }{{"Plan", e.Plan}, {"Review", e.Review}, {"Notes", e.Notes}} {
		if t := strings.TrimSpace(part.text); t != "" {
			fmt.Fprintf(b, "%s: %q\n", part.label, excerpt(t))
		}
	}
	if len(e.Tags) > 0 {
		names := make([]string, len(e.Tags))
		for i, t := range e.Tags {
			names[i] = t.Name
		}
		fmt.Fprintf(b, "Day tags: %s\n", strings.Join(names, ", "))
	}
	return nil
}

// writePositionReview writes one position in full: its figures, fills,
// tags and notes. A position deleted since the conversation began is said
// to be gone.
func (h *handler) writePositionReview(ctx context.Context, b *strings.Builder, u auth.User, id string) error {
	p, err := h.journal.Position(ctx, u.ID, id)
	if errors.Is(err, apperr.ErrNotFound) {
		b.WriteString("Review request: the trader asked for a review of one position, which has since been deleted from the journal.\n")
		return nil
	}
	if err != nil {
		return err
	}
	var currency, zone string
	if err := h.app.DB.QueryRow(ctx, `SELECT currency, timezone FROM accounts WHERE id = $1 AND user_id = $2`, p.AccountID, u.ID).Scan(&currency, &zone); err != nil {
		return err
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	at := func(t *time.Time) string {
		if t == nil {
			return "n/a"
		}
		return t.In(loc).Format("2006-01-02 15:04 Mon")
	}
	fmt.Fprintf(b, "Review request: the trader asked for a review of this position (times in the account's zone %s, amounts in %s):\n", zone, currency)
	fmt.Fprintf(b, "%s %s (%s), %s, opened %s, closed %s.\n", p.Symbol, p.Side, p.AssetType, p.Status, at(p.OpenedAt), at(p.ClosedAt))
	fmt.Fprintf(b, "Entry quantity %s at average %s; exit quantity %s at average %s; open quantity %s.\n",
		p.EntryQuantity, orNA(p.AvgEntryPrice), p.ExitQuantity, orNA(p.AvgExitPrice), p.OpenQuantity)
	fmt.Fprintf(b, "Stop %s, target %s, initial risk %s, gross P&L %s, fees %s, net P&L %s, R multiple %s.\n",
		orNA(p.StopLoss), orNA(p.TargetPrice), orNA(p.InitialRisk), p.GrossPnl, p.Fees, p.NetPnl, orNA(p.RMultiple))
	if p.Review.HoldSeconds != nil {
		fmt.Fprintf(b, "Held %s.", time.Duration(*p.Review.HoldSeconds)*time.Second)
	}
	if p.Review.PlannedRR != nil {
		fmt.Fprintf(b, " Planned reward:risk %s.", *p.Review.PlannedRR)
	}
	if e := p.Review.MAE; e != nil {
		fmt.Fprintf(b, " Maximum adverse excursion %s (%s, %sR).", e.Price, e.Amount, orNA(e.R))
	}
	if e := p.Review.MFE; e != nil {
		fmt.Fprintf(b, " Maximum favourable excursion %s (%s, %sR).", e.Price, e.Amount, orNA(e.R))
	}
	b.WriteString("\n")
	if len(p.Tags) > 0 {
		names := make([]string, len(p.Tags))
		for i, t := range p.Tags {
			names[i] = t.Name
		}
		fmt.Fprintf(b, "Tags: %s\n", strings.Join(names, ", "))
	}
	writeFills(b, p.Fills, loc)
	if notes := strings.TrimSpace(p.Notes); notes != "" {
		fmt.Fprintf(b, "Notes: %q\n", excerpt(notes))
	}
	return nil
}

func writeFills(b *strings.Builder, fills []journalstore.Fill, loc *time.Location) {
	b.WriteString("Fills:\n")
	for i, f := range fills {
		if i == reviewFills {
			fmt.Fprintf(b, "(%d more fills left out for length)\n", len(fills)-i)
			break
		}
		fmt.Fprintf(b, "- %s %s at %s, fees %s, %s\n", f.Type, f.Quantity, f.Price, f.Fees, f.FilledAt.In(loc).Format("2006-01-02 15:04"))
	}
}

// excerpt is the first reviewTextChars characters of a text, on one line.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > reviewTextChars {
		return string(r[:reviewTextChars]) + "…"
	}
	return s
}
