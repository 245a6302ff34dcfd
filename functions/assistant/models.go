package assistant

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/assistantdata"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
)

// A trader picks the model of a turn among the operator's models (paid in
// credits at the model's prices times the markup) and the models of their
// own keys (paid by them to their provider: no credits). An own key's model
// is named key:<key id> in the picker and in a submit.

// ModelInfo is one model of the picker.
type ModelInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`     // the provider's model name
	Provider    string `json:"provider"` // openai or anthropic
	Images      bool   `json:"images"`
	InputPrice  int64  `json:"inputPricePerMtok"`
	OutputPrice int64  `json:"outputPricePerMtok"`
	OwnKey      bool   `json:"ownKey"` // on the trader's own key: no credits
}

// choice is the model a turn runs on, with the client that reaches it.
type choice struct {
	ModelInfo
	api modelAPI
}

const ownKeyPrefix = "key:"

// maxOwnKeys bounds the keys of one user.
const maxOwnKeys = 20

var errUnknownModel = apperr.Invalid("model", "is not one of the models you can use; pick one from the list")

// models answers the caller's models: the operator's, then their own keys',
// and whether own keys can be added.
func (h *handler) models(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	keys, err := h.store.ownKeys(ctx, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	items := h.operatorModels()
	for _, k := range keys {
		items = append(items, k.model())
	}
	httpx.JSON(w, http.StatusOK, struct {
		Items   []ModelInfo `json:"items"`
		OwnKeys bool        `json:"ownKeys"` // traders may add their own keys here
	}{items, h.app.Config.Assistant.OwnKeys})
}

func (h *handler) operatorModels() []ModelInfo {
	items := []ModelInfo{}
	for _, m := range h.app.Config.Assistant.Models {
		items = append(items, ModelInfo{ID: m.ID, Name: m.ID, Provider: m.Provider, Images: m.Images,
			InputPrice: m.InputPrice, OutputPrice: m.OutputPrice})
	}
	return items
}

// choose resolves a submit's model: the named one, or by default the
// operator's first, else the caller's first own key. An own key is only
// ever the caller's: another user's key id is as unknown as a made-up one.
func (h *handler) choose(ctx context.Context, userID, id string) (choice, error) {
	cfg := h.app.Config.Assistant
	if id == "" {
		if len(cfg.Models) > 0 {
			id = cfg.Models[0].ID
		} else {
			keys, err := h.store.ownKeys(ctx, userID)
			if err != nil {
				return choice{}, err
			}
			if len(keys) == 0 {
				return choice{}, apperr.Invalid("model", "is not available: this server offers no model; add your own provider key first")
			}
			id = ownKeyPrefix + keys[0].ID
		}
	}
	if keyID, ok := strings.CutPrefix(id, ownKeyPrefix); ok {
		k, secret, err := h.store.ownKey(ctx, userID, keyID)
		if errors.Is(err, apperr.ErrNotFound) {
			return choice{}, errUnknownModel
		}
		if err != nil {
			return choice{}, err
		}
		base := cfg.BaseURL
		if k.Provider == "anthropic" {
			base = cfg.AnthropicBaseURL
		}
		return choice{ModelInfo: k.model(), api: apiFor(k.Provider, base, secret, h.client)}, nil
	}
	for _, m := range cfg.Models {
		if m.ID == id {
			key := cfg.APIKey
			if m.Provider == "anthropic" {
				key = cfg.AnthropicAPIKey
			}
			return choice{ModelInfo: ModelInfo{ID: m.ID, Name: m.ID, Provider: m.Provider, Images: m.Images,
				InputPrice: m.InputPrice, OutputPrice: m.OutputPrice}, api: apiFor(m.Provider, m.BaseURL, key, h.client)}, nil
		}
	}
	return choice{}, errUnknownModel
}

// OwnKey is a trader's provider key as the list shows it: never the key,
// only its last four characters.
type OwnKey struct {
	ID        string    `json:"id"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Images    bool      `json:"images"`
	Masked    string    `json:"masked"` // "…" and the key's last four characters
	CreatedAt time.Time `json:"createdAt"`
}

func (k OwnKey) model() ModelInfo {
	return ModelInfo{ID: ownKeyPrefix + k.ID, Name: k.Model, Provider: k.Provider, Images: k.Images, OwnKey: true}
}

type keyBody struct {
	Provider *string `json:"provider"`
	Model    *string `json:"model"`
	APIKey   *string `json:"apiKey"`
	Images   bool    `json:"images"`
}

// errEncryptionRequired refuses to store a key that could not be sealed.
var errEncryptionRequired = apperr.New(apperr.EncryptionRequired,
	"your own provider keys are stored only sealed, and this server has no ENCRYPTION_KEY; ask its administrator")

// validKey checks an added key's fields.
func validKey(b keyBody) (provider, model, secret string, err error) {
	var problems []apperr.FieldError
	if b.Provider == nil || (*b.Provider != "openai" && *b.Provider != "anthropic") {
		problems = append(problems, apperr.FieldError{Field: "provider", Message: "must be openai or anthropic"})
	}
	if b.Model != nil {
		model = strings.TrimSpace(*b.Model)
	}
	if err := checkText("model", model, 200); err != nil {
		problems = append(problems, apperr.FieldError{Field: "model", Message: "must be the provider's model name, 1 to 200 characters"})
	}
	if b.APIKey != nil {
		secret = strings.TrimSpace(*b.APIKey)
	}
	if len(secret) < 8 || len(secret) > 512 || strings.ContainsFunc(secret, func(r rune) bool { return r <= ' ' || r > '~' }) {
		problems = append(problems, apperr.FieldError{Field: "apiKey", Message: "must be the key your provider gave you: 8 to 512 characters without spaces"})
	}
	if err := apperr.Fields(problems); err != nil {
		return "", "", "", err
	}
	return *b.Provider, model, secret, nil
}

// listKeys answers the caller's own keys, masked.
func (h *handler) listKeys(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	keys, err := h.store.ownKeys(ctx, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, struct {
		Items []OwnKey `json:"items"`
	}{keys})
}

// addKey stores an own key, sealed (201 with the masked key).
func (h *handler) addKey(w http.ResponseWriter, r *http.Request) {
	if !h.app.Config.Assistant.OwnKeys {
		httpx.NotFound(w, r)
		return
	}
	var body keyBody
	if err := httpx.Decode(w, r, &body); err != nil {
		httpx.Error(w, r, err)
		return
	}
	provider, model, secret, err := validKey(body)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if h.app.Keyring == nil {
		httpx.Error(w, r, errEncryptionRequired)
		return
	}
	ctx := r.Context()
	k, err := h.store.addKey(ctx, auth.CurrentUser(ctx).ID, provider, model, secret, body.Images, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, struct {
		Key OwnKey `json:"key"`
	}{k})
}

// removeKey deletes an own key (204).
func (h *handler) removeKey(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := h.store.removeKey(ctx, auth.CurrentUser(ctx).ID, r.PathValue("keyId")); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}

// Settings is the trader's consent: whether the assistant may read their
// journal (its data in the prompt, and the journal tools).
type Settings struct {
	JournalAccess bool `json:"journalAccess"`
}

func (h *handler) readSettings(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	s, err := h.store.settings(ctx, auth.CurrentUser(ctx).ID)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, s)
}

func (h *handler) putSettings(w http.ResponseWriter, r *http.Request) {
	var body struct {
		JournalAccess *bool `json:"journalAccess"`
	}
	if err := httpx.Decode(w, r, &body); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if body.JournalAccess == nil {
		httpx.Error(w, r, apperr.Invalid("journalAccess", "is required (true or false)"))
		return
	}
	ctx := r.Context()
	s := Settings{JournalAccess: *body.JournalAccess}
	if err := assistantdata.SetJournalAccess(ctx, h.app.DB, auth.CurrentUser(ctx).ID, s.JournalAccess, h.app.Now()); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, s)
}

// The store's part: own keys and settings.

const keyColumns = `id::text, provider, model, images, last4, created_at`

func scanKey(row pgx.CollectableRow) (OwnKey, error) {
	var k OwnKey
	var last4 string
	err := row.Scan(&k.ID, &k.Provider, &k.Model, &k.Images, &last4, &k.CreatedAt)
	k.Masked = "…" + last4
	return k, err
}

func (s store) ownKeys(ctx context.Context, userID string) ([]OwnKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM assistant_keys WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	keys, err := pgx.CollectRows(rows, scanKey)
	if keys == nil {
		keys = []OwnKey{}
	}
	return keys, db.Classify(err)
}

// addKey stores a key sealed; a user holds at most maxOwnKeys.
func (s store) addKey(ctx context.Context, userID, provider, model, secret string, images bool, now time.Time) (OwnKey, error) {
	const q = `INSERT INTO assistant_keys (user_id, provider, model, images, secret, last4, created_at)
		SELECT $1, $2, $3, $4, $5, $6, $7 WHERE (SELECT count(*) FROM assistant_keys WHERE user_id = $1) < $8
		RETURNING ` + keyColumns
	rows, err := s.pool.Query(ctx, q, userID, provider, model, images, s.keys.Seal(encrypt.AssistantKeys, secret),
		secret[len(secret)-4:], now, maxOwnKeys)
	if err != nil {
		return OwnKey{}, db.Classify(err)
	}
	k, err := pgx.CollectExactlyOneRow(rows, scanKey)
	if errors.Is(err, pgx.ErrNoRows) {
		return OwnKey{}, apperr.New(apperr.Conflict, "you already have %d keys; delete one first", maxOwnKeys)
	}
	return k, db.Classify(err)
}

func (s store) removeKey(ctx context.Context, userID, id string) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM assistant_keys WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return db.Classify(err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.ErrNotFound
	}
	return nil
}

// ownKey returns the user's key and its opened secret; another user's is
// ErrNotFound.
func (s store) ownKey(ctx context.Context, userID, id string) (OwnKey, string, error) {
	if !db.ValidUUID(id) {
		return OwnKey{}, "", apperr.ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+`, secret FROM assistant_keys WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return OwnKey{}, "", db.Classify(err)
	}
	var sealed string
	k, err := pgx.CollectExactlyOneRow(rows, func(row pgx.CollectableRow) (OwnKey, error) {
		var k OwnKey
		var last4 string
		err := row.Scan(&k.ID, &k.Provider, &k.Model, &k.Images, &last4, &k.CreatedAt, &sealed)
		k.Masked = "…" + last4
		return k, err
	})
	if err != nil {
		return OwnKey{}, "", db.Classify(err)
	}
	secret, err := s.open(encrypt.AssistantKeys, sealed)
	return k, secret, err
}

func (s store) settings(ctx context.Context, userID string) (Settings, error) {
	on, err := assistantdata.JournalAccess(ctx, s.pool, userID)
	return Settings{JournalAccess: on}, err
}
