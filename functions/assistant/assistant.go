// Package assistant is the trade-review assistant's route group: a trader
// asks about their own journal and gets a streamed answer, paid for in
// credits through the wallet's pre-stream gate.
//
// It is on only when a provider is configured (ASSISTANT_API_KEY and
// ASSISTANT_MODEL). Off, it is absent: every route answers the codeless 404
// of an unknown path, GET /api/config reports assistant: false, and nothing
// is ever sent to a provider. The route table itself is the same in every
// configuration, as the OpenAPI document and the deployment template are
// generated from it.
//
// A turn (POST .../messages/stream) goes:
//
//	validate ─> idempotency look-up ─> wallet.Reserve (402 before any byte)
//	  ─> record the running turn (409 TURN_IN_PROGRESS if one runs)
//	  ─> build the prompt ─> open the provider stream ─> 200 text/event-stream
//	  ─> deltas ... ─> settle (usage reported) or release ─> store the answer ─> done
//
// and ends at the turn budget, on client disconnect or on a provider error
// as well as at the provider's end; in every case the reservation is
// settled or released exactly once, by the one path that ends the turn.
// The hold covers one provider call; before each further one (a tool round)
// it grows to what the turn has cost so far plus what that call may cost,
// and when the credits cannot cover it the turn ends there
// (insufficient_credits), charged what it cost.
package assistant

import (
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"tradejournal/shared/app"
	"tradejournal/shared/apperr"
	"tradejournal/shared/assistantdata"
	"tradejournal/shared/auth"
	"tradejournal/shared/dayjournal"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"
	"tradejournal/shared/market"
	"tradejournal/shared/wallet"
)

// Limits of the request fields.
const (
	maxQuestionRunes = assistantdata.MaxQuestionChars
	maxTitleRunes    = assistantdata.MaxTitleChars
	maxSearchRunes   = 200
)

var keyShape = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

type handler struct {
	app     *app.App
	store   store
	wallet  *wallet.Service
	client  *http.Client        // the providers'
	quotes  *market.Quotes      // the quote tool's
	chains  *market.Chains      // the options_chain tool's
	journal *journalstore.Store // reads the positions a review names
	days    *dayjournal.Store   // reads the day entries a review names
	on      bool                // the assistant is configured
	budget  time.Duration
}

// Group returns the assistant route group.
func Group(a *app.App) httpx.Group {
	h := &handler{app: a, store: store{pool: a.DB, keys: a.Keyring}, budget: a.Config.Assistant.TurnBudget,
		on: a.Config.Assistant.Enabled(), client: &http.Client{}, wallet: wallet.New(a.DB, a.Now, a.Config.Billing),
		quotes:  market.NewQuotes(a.Config.Market, &http.Client{}, a.Now, a.Log),
		chains:  market.NewChains(a.Config.Market, &http.Client{}, a.Now, a.Log),
		journal: journalstore.New(a.DB, a.Keyring, a.Now), days: dayjournal.New(a.DB, a.Keyring, a.Now)}
	on := func(next http.HandlerFunc) http.HandlerFunc {
		return a.Sessions.Require(func(w http.ResponseWriter, r *http.Request) {
			if !h.on {
				httpx.NotFound(w, r)
				return
			}
			next(w, r)
		})
	}
	return httpx.Group{
		Name:      "assistant",
		Mounts:    []string{"/api/assistant/"},
		Streaming: true,
		Routes: []httpx.Route{
			{Pattern: "GET /api/assistant/conversations", Handler: on(h.list)},
			{Pattern: "GET /api/assistant/conversations/{conversationId}", Handler: on(h.read)},
			{Pattern: "PATCH /api/assistant/conversations/{conversationId}", Handler: on(h.update)},
			{Pattern: "DELETE /api/assistant/conversations/{conversationId}", Handler: on(h.remove)},
			{Pattern: "POST /api/assistant/conversations/{conversationId}/messages/stream", Handler: on(h.stream)},
			{Pattern: "GET /api/assistant/models", Handler: on(h.models)},
			{Pattern: "GET /api/assistant/settings", Handler: on(h.readSettings)},
			{Pattern: "PUT /api/assistant/settings", Handler: on(h.putSettings)},
			{Pattern: "GET /api/assistant/keys", Handler: on(h.listKeys)},
			{Pattern: "POST /api/assistant/keys", Handler: on(h.addKey)},
			{Pattern: "DELETE /api/assistant/keys/{keyId}", Handler: on(h.removeKey)},
			{Pattern: "GET /api/assistant/personas", Handler: on(h.listPersonas)},
			{Pattern: "POST /api/assistant/personas", Handler: on(h.createPersona)},
			{Pattern: "PATCH /api/assistant/personas/{personaId}", Handler: on(h.updatePersona)},
			{Pattern: "DELETE /api/assistant/personas/{personaId}", Handler: on(h.deletePersona)},
		},
	}
}

// holdFor is the credits to hold for a raw provider cost: priced at the
// wallet's markup, rounded up; at least 1.
func (h *handler) holdFor(raw decimal.Decimal) int64 {
	n, err := h.wallet.Price(raw)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

type listPage struct {
	Items      []Conversation `json:"items"`
	NextCursor *string        `json:"nextCursor"`
}

// list answers the caller's conversations, latest activity first, by
// keyset (?cursor=, ?limit= as the journal's lists: default 50, clamped to
// 1..200); ?q= keeps those whose title contains it, ignoring case.
func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	search := strings.TrimSpace(q.Get("q"))
	if search != "" {
		if err := checkText("q", search, maxSearchRunes); err != nil {
			httpx.Error(w, r, err)
			return
		}
	}
	limit, err := listquery.ParseLimit(q.Get("limit"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	cursor, err := listquery.ParseCursor(q.Get("cursor"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if cursor != nil && cursor.At == nil {
		httpx.Error(w, r, listquery.ErrCursor)
		return
	}
	items, next, err := h.store.list(r.Context(), auth.CurrentUser(r.Context()).ID, search, cursor, limit)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if items == nil {
		items = []Conversation{}
	}
	httpx.JSON(w, http.StatusOK, listPage{Items: items, NextCursor: next})
}

type conversationEnvelope struct {
	Conversation Conversation `json:"conversation"`
}

// read answers one conversation with all its messages, oldest first.
func (h *handler) read(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c, err := h.store.get(ctx, h.app.DB, auth.CurrentUser(ctx).ID, r.PathValue("conversationId"))
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	msgs, err := h.store.messages(ctx, c.ID, 0)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if msgs == nil {
		msgs = []Message{}
	}
	calls, err := h.store.toolCalls(ctx, c.ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, struct {
		Conversation Conversation `json:"conversation"`
		Messages     []Message    `json:"messages"`
		ToolCalls    []ToolCall   `json:"toolCalls"`
	}{c, msgs, calls})
}

type updateBody struct {
	Title     *string `json:"title"`
	PersonaID *string `json:"personaId"`
}

// update sets a conversation's title (1..200 characters), its persona
// (one of the caller's, or "default"), or both.
func (h *handler) update(w http.ResponseWriter, r *http.Request) {
	var body updateBody
	if err := httpx.Decode(w, r, &body); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if body.Title == nil && body.PersonaID == nil {
		httpx.Error(w, r, apperr.Invalid("title", "is required (or personaId)"))
		return
	}
	ch := change{PersonaID: body.PersonaID}
	if body.Title != nil {
		title := strings.TrimSpace(*body.Title)
		if err := checkText("title", title, maxTitleRunes); err != nil {
			httpx.Error(w, r, err)
			return
		}
		ch.Title = &title
	}
	ctx := r.Context()
	c, err := h.store.update(ctx, auth.CurrentUser(ctx).ID, r.PathValue("conversationId"), ch, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, conversationEnvelope{Conversation: c})
}

// remove deletes a conversation, its turns and messages (204). The usage
// records of its turns stay in the wallet's ledger.
func (h *handler) remove(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.store.remove(ctx, auth.CurrentUser(ctx).ID, r.PathValue("conversationId"), h.staleBefore(), h.app.Now()); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// staleBefore is the start time before which a running turn cannot still
// be running in any process: its budget and a minute of grace are over.
func (h *handler) staleBefore() time.Time {
	return h.app.Now().Add(-h.budget - time.Minute)
}

// checkText is the assistant's one check of a text field
// (assistantdata.CheckText, which the restore uses too).
func checkText(field, s string, max int) error { return assistantdata.CheckText(field, s, max) }

// titleOf makes a new conversation's title from its first question.
func titleOf(question string) string {
	t := strings.Join(strings.Fields(question), " ")
	if utf8.RuneCountInString(t) <= 80 {
		return t
	}
	return string([]rune(t)[:79]) + "…"
}
