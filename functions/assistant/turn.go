package assistant

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/imagetype"
	"tradejournal/shared/wallet"
)

// Bounds of the prompt: the journal context, the conversation's history
// (its latest messages and tool calls, each cut) and the question.
// maxPromptBytes sizes the credit reservation.
const (
	historyMessages   = 20
	historyToolCalls  = 16
	historyEachBytes  = 2 << 10
	maxPromptBytes    = maxContextBytes + historyMessages*historyEachBytes + historyToolCalls*(2*historyEachBytes+256) + maxQuestionRunes*4 + len(systemPrompt) + maxPersonaPrompt + maxReviewBytes + 256
	bookkeepingWindow = 15 * time.Second // settling and storing after the client left
)

const systemPrompt = `You are the trade-review assistant of a trading journal. You help one trader understand their own trading: patterns in wins and losses, risk, timing, discipline, and what to review next. Ground every claim in the journal data below; say so when the data does not answer the question. Be concise and concrete, quote figures from the data, and never give personalised investment advice or predict prices.`

type submitBody struct {
	Content        *string     `json:"content"`
	IdempotencyKey *string     `json:"idempotencyKey"`
	Model          *string     `json:"model"`
	Images         []imageBody `json:"images"`
	// PersonaID and Context are for a new conversation (review.go).
	PersonaID *string    `json:"personaId"`
	Context   *ReviewRef `json:"context"`
}

// imageBody is an attached image: its bytes in base64 (a data URL's part
// after the comma). The type is sniffed from the bytes.
type imageBody struct {
	Data string `json:"data"`
}

// Limits of attached images: the types screenshot uploads take, and what
// fits the JSON body.
const maxImages = 4

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
	images, err := validImages(body.Images)
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

	var modelID string
	if body.Model != nil {
		modelID = *body.Model
	}
	model, err := h.choose(ctx, u.ID, modelID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if len(images) > 0 && !model.Images {
		httpx.Error(w, r, apperr.Invalid("images", "cannot be sent to the model "+model.Name+", which does not accept images; pick a model that does, or ask without the image"))
		return
	}
	settings, err := h.store.settings(ctx, u.ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}

	// The pre-stream gate: nothing has been written yet, so a refusal is a
	// plain JSON error. A turn on the trader's own key spends no credits.
	t := &turnRun{h: h, w: w, r: r, model: model, access: settings.JournalAccess}
	if !model.OwnKey {
		hold, err := h.wallet.Reserve(ctx, u.ID, h.holdFor(t.roundCost(maxPromptBytes)))
		if err != nil {
			httpx.Error(w, r, err)
			return
		}
		t.hold = &hold
	}
	t.conversationID, t.turnID, err = h.store.beginTurn(ctx, newTurn{
		UserID: u.ID, ConversationID: conversationID, Key: key, Question: question, PersonaID: persona, Review: review,
		ReservationID: t.holdID(), Model: model.ID, Now: h.app.Now(), StaleBefore: h.staleBefore(),
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
	t.run(question, images)
}

// validImages decodes and checks attached images: at most maxImages, each
// a PNG, JPEG or WebP by its bytes (as screenshot uploads).
func validImages(in []imageBody) ([]image, error) {
	if len(in) > maxImages {
		return nil, apperr.Invalid("images", fmt.Sprintf("must be at most %d images", maxImages))
	}
	out := make([]image, 0, len(in))
	for _, b := range in {
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil || len(data) == 0 {
			return nil, apperr.Invalid("images", "must each be a PNG, JPEG or WebP image in base64")
		}
		mt := imagetype.Sniff(data)
		if mt == "" {
			return nil, apperr.Invalid("images", "must each be a PNG, JPEG or WebP image")
		}
		out = append(out, image{MediaType: mt, Data: data})
	}
	return out, nil
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
	calls, err := h.store.toolCalls(r.Context(), prev.ConversationID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	sse := startEvents(w)
	sse.send("start", startEvent{ConversationID: prev.ConversationID, TurnID: prev.ID, Replay: true})
	for _, c := range calls {
		if c.TurnID == prev.ID {
			sse.send("tool_call", toolCallEvent{ID: c.callID(), Name: c.Name, Arguments: c.Arguments})
			sse.send("tool_result", toolResultEvent{ID: c.callID(), Name: c.Name, Result: c.Result})
		}
	}
	done := doneEvent{ConversationID: prev.ConversationID, TurnID: prev.ID, Status: prev.Status, Reason: prev.EndReason,
		Usage: prev.Usage, CreditsCharged: prev.CreditsCharged, Replay: true}
	if prev.EndReason == "insufficient_credits" {
		done.Code = string(h.wallet.RefusalCode())
	}
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
	Model          string `json:"model,omitempty"`
	Replay         bool   `json:"replay,omitempty"`
}

type deltaEvent struct {
	Content string `json:"content"`
}

// toolCallEvent is a tool call the model made; toolResultEvent its result.
type toolCallEvent struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type toolResultEvent struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Result string `json:"result"`
}

type doneEvent struct {
	ConversationID string `json:"conversationId"`
	TurnID         string `json:"turnId"`
	MessageID      string `json:"messageId,omitempty"`
	// Status is complete, or incomplete when the turn was cut short.
	Status string `json:"status"`
	// Reason is complete, budget, disconnect, provider_error,
	// insufficient_credits or error.
	Reason string `json:"reason"`
	// Code is the refusal's code with insufficient_credits:
	// INSUFFICIENT_CREDITS, or BILLING_NOT_AVAILABLE where credits cannot
	// be bought (the pre-stream gate's codes).
	Code string `json:"code,omitempty"`
	// Problem names a provider_error for the trader: key_invalid,
	// rate_limited, overloaded, context_too_long or unavailable.
	Problem string `json:"problem,omitempty"`
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
	model          choice
	access         bool                // the trader lets the assistant read their journal
	hold           *wallet.Reservation // nil on the trader's own key
	conversationID string
	turnID         string
	closed         bool // the hold was settled or released
}

// run builds the prompt and streams the model's answer: each round is one
// provider call; an answer that asks for tools gets their results and
// another round, at most maxToolRounds times (the last round may call
// none). Before a further round the hold grows to cover it (holdNextRound);
// when it cannot, the tools are not run and the turn ends. The usage of
// every round is summed, and the turn ends once.
func (t *turnRun) run(question string, images []image) {
	h, r := t.h, t.r
	ctx, cancel := context.WithTimeout(r.Context(), h.budget)
	defer cancel()
	u := auth.CurrentUser(ctx)

	p, err := h.prompt(ctx, t.conversationID, t.turnID, question, images, t.access)
	if err != nil {
		t.end(ctx, nil, ending{Reason: t.reason(ctx, err)}, err)
		return
	}
	var (
		sse    *events
		answer strings.Builder
		usage  *Usage
		seq    int
		// spent is the raw cost of the finished rounds: what each
		// reported, or the most it could cost when it reported nothing.
		spent       decimal.Decimal
		promptBytes = maxPromptBytes // bounds the next round's prompt
	)
	fail := func(err error) {
		t.end(ctx, sse, ending{Reason: t.reason(ctx, err), Answer: answer.String(), Usage: usage}, err)
	}
	for round := 0; ; round++ {
		p.Final = round == maxToolRounds // the last round must answer
		st, err := t.model.api.open(ctx, t.model.Name, p)
		if err != nil {
			fail(err)
			return
		}
		if sse == nil {
			sse = startEvents(t.w)
			sse.send("start", startEvent{ConversationID: t.conversationID, TurnID: t.turnID, Model: t.model.ID})
		}
		var (
			text       strings.Builder
			roundUsage *Usage
		)
		for {
			pc, err := st.Next()
			if errors.Is(err, errDone) {
				break
			}
			if err != nil {
				st.Close()
				fail(err)
				return
			}
			if pc.Usage != nil {
				usage, roundUsage = addUsage(usage, *pc.Usage), addUsage(roundUsage, *pc.Usage)
				continue
			}
			piece := truncate(pc.Text, maxAnswerBytes-answer.Len())
			answer.WriteString(piece)
			text.WriteString(piece)
			sse.send("delta", deltaEvent{Content: piece})
			if sse.dead {
				st.Close()
				cancel() // stop the provider: nobody is listening
				t.end(ctx, sse, ending{Reason: "disconnect", Answer: answer.String(), Usage: usage}, nil)
				return
			}
		}
		calls := st.Calls()
		st.Close()
		if len(calls) == 0 || p.Final {
			break
		}
		if roundUsage != nil {
			spent = spent.Add(t.cost(*roundUsage))
		} else {
			spent = spent.Add(t.roundCost(promptBytes))
		}
		promptBytes += text.Len()
		for _, c := range calls {
			promptBytes += len(c.ID) + len(c.Name) + len(c.Arguments) + maxToolResultBytes
		}
		if err := t.holdNextRound(ctx, spent.Add(t.roundCost(promptBytes))); err != nil {
			if e, ok := apperr.As(err); ok && e.Code == h.wallet.RefusalCode() {
				t.end(ctx, sse, ending{Reason: "insufficient_credits", Code: string(e.Code), Answer: answer.String(), Usage: usage}, nil)
				return
			}
			fail(err)
			return
		}
		p.Messages = append(p.Messages, promptMessage{Role: "assistant", Text: text.String(), Calls: calls})
		for _, c := range calls {
			sse.send("tool_call", toolCallEvent(c))
			result, err := h.runTool(ctx, u, t.access, c)
			if err != nil {
				fail(err)
				return
			}
			if err := h.store.addToolCall(ctx, t.turnID, seq, round, c, result, h.app.Now()); err != nil {
				fail(err)
				return
			}
			seq++
			sse.send("tool_result", toolResultEvent{ID: c.ID, Name: c.Name, Result: result})
			p.Messages = append(p.Messages, promptMessage{Role: "tool", CallID: c.ID, Text: result})
		}
		if sse.dead {
			cancel()
			t.end(ctx, sse, ending{Reason: "disconnect", Answer: answer.String(), Usage: usage}, nil)
			return
		}
	}
	t.end(ctx, sse, ending{Reason: "complete", Answer: answer.String(), Usage: usage}, nil)
}

// holdNextRound grows the hold (on the operator's key) to raw, what the
// turn has cost so far and the most its next round may cost, priced; a
// hold already that large is left as it is.
func (t *turnRun) holdNextRound(ctx context.Context, raw decimal.Decimal) error {
	if t.hold == nil {
		return nil
	}
	need := t.h.holdFor(raw)
	if need <= t.hold.Amount {
		return nil
	}
	grown, err := t.h.wallet.Extend(ctx, t.hold.ID, need)
	if err != nil {
		return err
	}
	t.hold = &grown
	return nil
}

// addUsage sums the usage of a turn's rounds.
func addUsage(sum *Usage, u Usage) *Usage {
	if sum == nil {
		return &u
	}
	return &Usage{PromptTokens: sum.PromptTokens + u.PromptTokens, CompletionTokens: sum.CompletionTokens + u.CompletionTokens}
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

	if e.Usage != nil && t.hold != nil {
		settled, err := h.wallet.Settle(bg, t.hold.ID, t.cost(*e.Usage))
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
	var pe *ProviderError
	problem := ""
	if e.Reason == "provider_error" && errors.As(cause, &pe) {
		problem = pe.Problem()
	}

	if sse == nil {
		switch e.Reason {
		case "disconnect":
			// Nobody to answer; the access log still wants a status.
			t.w.WriteHeader(499)
		case "budget":
			httpx.Error(t.w, t.r, apperr.New(apperr.GatewayTimeout, "the assistant did not answer within the turn budget"))
		case "provider_error":
			httpx.Error(t.w, t.r, apperr.New(apperr.BadGateway, "%s", problemWords(problem, t.model)))
		default:
			httpx.Error(t.w, t.r, cause)
		}
		return
	}
	sse.send("done", doneEvent{ConversationID: t.conversationID, TurnID: t.turnID, MessageID: messageID,
		Status: status, Reason: e.Reason, Code: e.Code, Problem: problem, Usage: e.Usage, CreditsCharged: e.CreditsCharged})
}

// problemWords is a provider failure in the trader's words, for the 502
// before the stream (the stream's done event carries the problem's name,
// which the web app words the same way).
func problemWords(problem string, m choice) string {
	whose := "this server's key"
	if m.OwnKey {
		whose = "your key"
	}
	switch problem {
	case "key_invalid":
		return "The model provider refused " + whose + " for " + m.Name + " (wrong, revoked or without access to the model)."
	case "rate_limited":
		return "The model provider's rate limit for " + m.Name + " is reached; wait a minute and retry."
	case "overloaded":
		return "The model provider is overloaded; retry in a moment or pick another model."
	case "context_too_long":
		return "The conversation is too long for " + m.Name + "; start a new conversation or pick a model with a longer context."
	}
	return "The model provider did not answer; try again."
}

// holdID is the reservation's id, "" on the trader's own key.
func (t *turnRun) holdID() string {
	if t.hold == nil {
		return ""
	}
	return t.hold.ID
}

// releaseHold frees the reservation when the turn reported no usage.
func (t *turnRun) releaseHold() {
	if t.closed || t.hold == nil {
		return
	}
	t.closed = true
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.r.Context()), bookkeepingWindow)
	defer cancel()
	if err := t.h.wallet.Release(ctx, t.hold.ID); err != nil {
		httpx.Logger(t.r.Context()).Error("assistant: releasing the credit hold failed; it expires through the sweeper", "err", err)
	}
}

// roundCost is the most one provider call may cost: a prompt of
// promptBytes (counted as one token per 3 bytes) and the longest answer.
func (t *turnRun) roundCost(promptBytes int) decimal.Decimal {
	return t.cost(Usage{PromptTokens: int64(promptBytes / 3), CompletionTokens: maxAnswerTokens})
}

// cost is the provider's cost of the usage in credits (micro-USD) before
// the markup: tokens times the model's price per million tokens.
func (t *turnRun) cost(u Usage) decimal.Decimal {
	return decimal.NewFromInt(u.PromptTokens).Mul(decimal.NewFromInt(t.model.InputPrice)).
		Add(decimal.NewFromInt(u.CompletionTokens).Mul(decimal.NewFromInt(t.model.OutputPrice))).
		Div(decimal.NewFromInt(1_000_000))
}

// systemText is the system prompt: the instructions and, with the trader's
// consent, their journal. The one place the system prompt is assembled.
func systemText(conversation, grounding string) string {
	if grounding == "" {
		return systemPrompt + conversation + "\n\n" + noJournalNote
	}
	return systemPrompt + conversation + "\n\n" + grounding
}

// noJournalNote stands in for the journal when the trader has not let the
// assistant read it.
const noJournalNote = "The trader has not allowed you to read their journal: you have none of their data. Answer in general terms, and say they can allow journal access in the assistant's settings for answers about their own trades."

// prompt is what the model gets: the instructions (with the caller's
// journal and its tools only with consent), the conversation so far
// (bounded: its latest messages, and the latest tool calls of those turns
// with their results, in each round they were made), and the question
// with its images.
func (h *handler) prompt(ctx context.Context, conversationID, turnID, question string, images []image, access bool) (prompt, error) {
	grounding := ""
	if access {
		var err error
		if grounding, err = h.journalContext(ctx, auth.CurrentUser(ctx), question); err != nil {
			return prompt{}, err
		}
	}
	history, err := h.store.messages(ctx, conversationID, historyMessages+1)
	if err != nil {
		return prompt{}, err
	}
	chosen, err := h.conversationPrompt(ctx, auth.CurrentUser(ctx), conversationID, access)
	if err != nil {
		return prompt{}, err
	}
	calls, err := h.historyCalls(ctx, history, turnID, access)
	if err != nil {
		return prompt{}, err
	}
	p := prompt{System: systemText(chosen, grounding), Tools: h.offeredTools(access)}
	for _, m := range history {
		if m.TurnID == turnID {
			continue // this turn's question goes last, whole
		}
		if m.Role == "assistant" {
			p.Messages = append(p.Messages, toolRounds(calls[m.TurnID])...)
		}
		if m.Content != "" { // an empty cut-off answer says nothing
			p.Messages = append(p.Messages, promptMessage{Role: m.Role, Text: truncate(m.Content, historyEachBytes)})
		}
	}
	p.Messages = append(p.Messages, promptMessage{Role: "user", Text: question, Images: images})
	return p, nil
}

// historyCalls are the tool calls resent with the answered turns of the
// history, by turn: the latest historyToolCalls of them, less those whose
// tool this turn does not offer (a journal tool's result without consent)
// and those whose arguments are over historyEachBytes (JSON cannot be cut).
func (h *handler) historyCalls(ctx context.Context, history []Message, turnID string, access bool) (map[string][]ToolCall, error) {
	var turns []string
	for _, m := range history {
		if m.Role == "assistant" && m.TurnID != turnID {
			turns = append(turns, m.TurnID)
		}
	}
	if len(turns) == 0 {
		return nil, nil
	}
	calls, err := h.store.recentToolCalls(ctx, turns, historyToolCalls)
	if err != nil {
		return nil, err
	}
	out := map[string][]ToolCall{}
	for _, c := range calls {
		if t, ok := toolNamed(c.Name); ok && h.offers(t, access) && len(c.Arguments) <= historyEachBytes {
			out[c.TurnID] = append(out[c.TurnID], c)
		}
	}
	return out, nil
}

// toolRounds are a turn's stored calls as the messages of the rounds that
// made them: the answer asking for a round's calls, then their results,
// each cut to historyEachBytes.
func toolRounds(calls []ToolCall) []promptMessage {
	var out []promptMessage
	for i := 0; i < len(calls); {
		ask := promptMessage{Role: "assistant"}
		var results []promptMessage
		j := i
		for ; j < len(calls) && calls[j].Round == calls[i].Round; j++ {
			c := calls[j]
			ask.Calls = append(ask.Calls, toolCall{ID: c.callID(), Name: c.Name, Arguments: c.Arguments})
			results = append(results, promptMessage{Role: "tool", CallID: c.callID(), Text: truncate(c.Result, historyEachBytes)})
		}
		out = append(append(out, ask), results...)
		i = j
	}
	return out
}
