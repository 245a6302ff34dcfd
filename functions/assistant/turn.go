package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/wallet"
)

// Bounds of the prompt: the journal context, the conversation's history
// (its latest messages, each cut) and the question. maxPromptBytes sizes
// the credit reservation.
const (
	historyMessages   = 20
	historyEachBytes  = 2 << 10
	maxPromptBytes    = maxContextBytes + historyMessages*historyEachBytes + maxQuestionRunes*4 + len(systemPrompt) + maxPersonaPrompt + maxReviewBytes + 256
	bookkeepingWindow = 15 * time.Second // settling and storing after the client left
)

const systemPrompt = `You are the trade-review assistant of a trading journal. You help one trader understand their own trading: patterns in wins and losses, risk, timing, discipline, and what to review next. Ground every claim in the journal data below; say so when the data does not answer the question. Be concise and concrete, quote figures from the data, and never give personalised investment advice or predict prices.`

type submitBody struct {
	Content        *string `json:"content"`
	IdempotencyKey *string `json:"idempotencyKey"`
	// PersonaID and Context are for a new conversation (review.go).
	PersonaID *string    `json:"personaId"`
	Context   *ReviewRef `json:"context"`
}

// stream runs one turn: POST
// /api/assistant/conversations/{conversationId|new}/messages/stream.
func (h *handler) stream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := auth.CurrentUser(ctx)
	var body submitBody
	if err := httpx.Decode(w, r, &body); err != nil {
		httpx.Error(w, r, err)
		return
	}
	question, key, err := validSubmit(body)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	conversationID := r.PathValue("conversationId")
	if conversationID == "new" {
		conversationID = ""
	} else if _, err := h.store.get(ctx, h.app.DB, u.ID, conversationID); err != nil {
		httpx.Error(w, r, err)
		return
	}
	persona, review, err := h.newConversationOptions(ctx, u, conversationID, body)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}

	// A retried submit replays what the first one stored.
	if prev, err := h.store.findTurn(ctx, u.ID, key); err != nil || prev != nil {
		h.replayOrRefuse(w, r, prev, err, conversationID, question)
		return
	}

	// The pre-stream gate: nothing has been written yet, so a refusal is a
	// plain JSON error.
	hold, err := h.wallet.Reserve(ctx, u.ID, h.estimate)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	t := &turnRun{h: h, w: w, r: r, hold: hold}
	t.conversationID, t.turnID, err = h.store.beginTurn(ctx, newTurn{
		UserID: u.ID, ConversationID: conversationID, Key: key, Question: question, PersonaID: persona, Review: review,
		ReservationID: hold.ID, Now: h.app.Now(), StaleBefore: h.staleBefore(),
	})
	if err != nil {
		t.releaseHold()
		if errors.Is(err, errKeyTaken) { // a concurrent submit with the same key won
			prev, err := h.store.findTurn(ctx, u.ID, key)
			h.replayOrRefuse(w, r, prev, err, conversationID, question)
			return
		}
		httpx.Error(w, r, err)
		return
	}
	t.run(question)
}

// validSubmit checks the body of a submit.
func validSubmit(b submitBody) (question, key string, err error) {
	if b.Content == nil {
		return "", "", apperr.Invalid("content", "is required")
	}
	question = strings.TrimSpace(*b.Content)
	if err := checkText("content", question, maxQuestionRunes); err != nil {
		return "", "", err
	}
	if b.IdempotencyKey == nil || *b.IdempotencyKey == "" {
		return "", "", apperr.Invalid("idempotencyKey", "is required")
	}
	if !keyShape.MatchString(*b.IdempotencyKey) {
		return "", "", apperr.Invalid("idempotencyKey", "must be 1 to 128 letters, digits, '.', '_', ':' or '-' (a UUID is ideal)")
	}
	return question, *b.IdempotencyKey, nil
}

// replayOrRefuse answers a submit whose idempotency key is already used:
// the stored answer again, as the same events, when the key was used for
// the same question (in the same conversation, or "new"); 409 while that
// turn still streams; 409 when the key was used for another question.
func (h *handler) replayOrRefuse(w http.ResponseWriter, r *http.Request, prev *turn, err error, conversationID, question string) {
	if err == nil && prev == nil {
		err = errors.New("assistant: idempotency key vanished between insert and look-up")
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if prev.Status == "running" {
		httpx.Error(w, r, errTurnInProgress)
		return
	}
	asked, answer, err := h.store.turnMessages(r.Context(), prev.ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if asked == nil || asked.Content != question || (conversationID != "" && conversationID != prev.ConversationID) {
		httpx.Error(w, r, apperr.New(apperr.Conflict, "this idempotencyKey was already used for another question; use a new key for a new question"))
		return
	}
	sse := startEvents(w)
	sse.send("start", startEvent{ConversationID: prev.ConversationID, TurnID: prev.ID, Replay: true})
	done := doneEvent{ConversationID: prev.ConversationID, TurnID: prev.ID, Status: prev.Status, Reason: prev.EndReason,
		Usage: prev.Usage, CreditsCharged: prev.CreditsCharged, Replay: true}
	if answer != nil {
		if answer.Content != "" {
			sse.send("delta", deltaEvent{Content: answer.Content})
		}
		done.MessageID = answer.ID
	}
	sse.send("done", done)
}

// The events of the stream, each an SSE event with a JSON data line.
type startEvent struct {
	ConversationID string `json:"conversationId"`
	TurnID         string `json:"turnId"`
	Replay         bool   `json:"replay,omitempty"`
}

type deltaEvent struct {
	Content string `json:"content"`
}

type doneEvent struct {
	ConversationID string `json:"conversationId"`
	TurnID         string `json:"turnId"`
	MessageID      string `json:"messageId,omitempty"`
	// Status is complete, or incomplete when the turn was cut short.
	Status string `json:"status"`
	// Reason is complete, budget, disconnect, provider_error or error.
	Reason string `json:"reason"`
	// Usage is what the provider reported, or null when it reported
	// nothing (the hold was then released: nothing charged).
	Usage          *Usage `json:"usage"`
	CreditsCharged int64  `json:"creditsCharged"`
	Replay         bool   `json:"replay,omitempty"`
}

// events writes server-sent events and flushes each one through every
// wrapper of the ResponseWriter (http.ResponseController). A host that
// cannot flush (the API Gateway adapter) delivers the events together at
// the end; that is why the function platform serves this group through a
// streaming Function URL.
type events struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	dead bool // a write failed: the client is gone
}

func startEvents(w http.ResponseWriter) *events {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass each event on at once
	w.WriteHeader(http.StatusOK)
	e := &events{w: w, rc: http.NewResponseController(w)}
	e.flush()
	return e
}

func (e *events) send(name string, v any) {
	if e.dead {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		e.dead = true
		return
	}
	msg := make([]byte, 0, len(name)+len(data)+16)
	msg = append(append(append(msg, "event: "...), name...), "\ndata: "...)
	msg = append(append(msg, data...), "\n\n"...)
	if _, err := e.w.Write(msg); err != nil {
		e.dead = true
		return
	}
	e.flush()
}

func (e *events) flush() {
	if err := e.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		e.dead = true
	}
}

// turnRun is one running turn, from the recorded turn to its end.
type turnRun struct {
	h              *handler
	w              http.ResponseWriter
	r              *http.Request
	hold           wallet.Reservation
	conversationID string
	turnID         string
	closed         bool // the hold was settled or released
}

// run builds the prompt, streams the provider's answer and ends the turn.
func (t *turnRun) run(question string) {
	h, r := t.h, t.r
	ctx, cancel := context.WithTimeout(r.Context(), h.budget)
	defer cancel()

	messages, err := h.prompt(ctx, t.conversationID, t.turnID, question)
	if err != nil {
		t.end(ctx, nil, ending{Reason: t.reason(ctx, err)}, err)
		return
	}
	st, err := h.provider.open(ctx, messages)
	if err != nil {
		t.end(ctx, nil, ending{Reason: t.reason(ctx, err)}, err)
		return
	}
	defer st.Close()

	sse := startEvents(t.w)
	sse.send("start", startEvent{ConversationID: t.conversationID, TurnID: t.turnID})
	var (
		answer strings.Builder
		usage  *Usage
	)
	for {
		p, err := st.Next()
		if errors.Is(err, errDone) {
			break
		}
		if err != nil {
			t.end(ctx, sse, ending{Reason: t.reason(ctx, err), Answer: answer.String(), Usage: usage}, err)
			return
		}
		if p.Usage != nil {
			usage = p.Usage
			continue
		}
		text := truncate(p.Text, maxAnswerBytes-answer.Len())
		answer.WriteString(text)
		sse.send("delta", deltaEvent{Content: text})
		if sse.dead {
			cancel() // stop the provider: nobody is listening
			t.end(ctx, sse, ending{Reason: "disconnect", Answer: answer.String(), Usage: usage}, nil)
			return
		}
	}
	t.end(ctx, sse, ending{Reason: "complete", Answer: answer.String(), Usage: usage}, nil)
}

// reason names why a turn stopped on err: the client left, the budget ran
// out, the provider failed, or something of ours failed.
func (t *turnRun) reason(ctx context.Context, err error) string {
	var pe *ProviderError
	switch {
	case t.r.Context().Err() != nil:
		return "disconnect"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "budget"
	case errors.As(err, &pe):
		return "provider_error"
	}
	return "error"
}

// end is the one way a turn ends: it settles the hold for the reported
// usage (or releases it when none was reported), stores the answer marked
// complete or incomplete, and tells the client. sse is nil when nothing
// was streamed yet: the client then gets a JSON error instead.
func (t *turnRun) end(ctx context.Context, sse *events, e ending, cause error) {
	h := t.h
	log := httpx.Logger(t.r.Context())
	// The bookkeeping outlives the client and the budget.
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), bookkeepingWindow)
	defer cancel()

	if e.Usage != nil {
		settled, err := h.wallet.Settle(bg, t.hold.ID, h.rawCost(*e.Usage))
		t.closed = true
		if err != nil {
			log.Error("assistant: settling the turn failed; the hold expires through the sweeper", "turn", t.turnID, "err", err)
		}
		e.CreditsCharged = settled.Charged
	} else {
		t.releaseHold()
	}
	if cause != nil && e.Reason != "disconnect" && e.Reason != "budget" {
		log.Warn("assistant: turn ended early", "turn", t.turnID, "reason", e.Reason, "err", cause)
	}
	e.Now = h.app.Now()
	messageID, err := h.store.finishTurn(bg, t.turnID, t.conversationID, e)
	if err != nil {
		log.Error("assistant: storing the answer failed", "turn", t.turnID, "err", err)
	}
	status := "incomplete"
	if e.Reason == "complete" {
		status = "complete"
	}

	if sse == nil {
		switch e.Reason {
		case "disconnect":
			// Nobody to answer; the access log still wants a status.
			t.w.WriteHeader(499)
		case "budget":
			httpx.Error(t.w, t.r, apperr.New(apperr.GatewayTimeout, "the assistant did not answer within the turn budget"))
		case "provider_error":
			httpx.Error(t.w, t.r, apperr.New(apperr.BadGateway, "the assistant's model provider did not answer; try again"))
		default:
			httpx.Error(t.w, t.r, cause)
		}
		return
	}
	sse.send("done", doneEvent{ConversationID: t.conversationID, TurnID: t.turnID, MessageID: messageID,
		Status: status, Reason: e.Reason, Usage: e.Usage, CreditsCharged: e.CreditsCharged})
}

// releaseHold frees the reservation when the turn reported no usage.
func (t *turnRun) releaseHold() {
	if t.closed {
		return
	}
	t.closed = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.r.Context()), bookkeepingWindow)
	defer cancel()
	if err := t.h.wallet.Release(ctx, t.hold.ID); err != nil {
		httpx.Logger(t.r.Context()).Error("assistant: releasing the credit hold failed; it expires through the sweeper", "err", err)
	}
}

// rawCost is the provider's cost of the usage in credits (micro-USD):
// tokens times the price per million tokens.
func (h *handler) rawCost(u Usage) decimal.Decimal {
	cfg := h.app.Config.Assistant
	return decimal.NewFromInt(u.PromptTokens).Mul(decimal.NewFromInt(cfg.InputPrice)).
		Add(decimal.NewFromInt(u.CompletionTokens).Mul(decimal.NewFromInt(cfg.OutputPrice))).
		Div(decimal.NewFromInt(1_000_000))
}

// prompt is what the model gets: the instructions with the caller's
// journal, the conversation so far (bounded), and the question.
func (h *handler) prompt(ctx context.Context, conversationID, turnID, question string) ([]chatMessage, error) {
	grounding, err := h.journalContext(ctx, auth.CurrentUser(ctx), question)
	if err != nil {
		return nil, err
	}
	history, err := h.store.messages(ctx, conversationID, historyMessages+1)
	if err != nil {
		return nil, err
	}
	chosen, err := h.conversationPrompt(ctx, auth.CurrentUser(ctx), conversationID)
	if err != nil {
		return nil, err
	}
	out := []chatMessage{{Role: "system", Content: systemPrompt + chosen + "\n\n" + grounding}}
	for _, m := range history {
		if m.TurnID == turnID || m.Content == "" {
			continue // this turn's question goes last, whole; an empty cut-off answer says nothing
		}
		out = append(out, chatMessage{Role: m.Role, Content: truncate(m.Content, historyEachBytes)})
	}
	return append(out, chatMessage{Role: "user", Content: question}), nil
}
