package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
	"tradejournal/shared/ratelimit"
)

// Personal API tokens let a script act for a user with
// `Authorization: Bearer tj_...` on the routes of TokenRoutes that its
// scopes allow. A token is 32 random bytes and is stored only as its
// SHA-256, like a session: a fast hash is enough because nobody can guess
// 256 random bits, and it lets each request find its token with one indexed
// lookup. bcrypt or argon2 exist to slow the guessing of low-entropy
// passwords and would cost every scripted request tens of milliseconds of
// CPU for no gain.

// The scopes a token can carry.
const (
	ScopeRead   = "read"   // read the journal
	ScopeWrite  = "write"  // change the journal
	ScopeImport = "import" // import broker files
)

// Scopes lists every scope, in the order the API shows them.
var Scopes = []string{ScopeRead, ScopeWrite, ScopeImport}

// TokenRoutes is the one table of routes a token may call (by their
// registered pattern) and the scope each needs. Every route not listed,
// among them billing, account settings, sessions, tokens, two-factor, the
// assistant and admin, needs a browser session: a token there is refused.
var TokenRoutes = map[string]string{
	"GET /api/accounts":                                ScopeRead,
	"GET /api/accounts/{accountId}":                    ScopeRead,
	"GET /api/accounts/{accountId}/ledger":             ScopeRead,
	"GET /api/accounts/position-counts":                ScopeRead,
	"GET /api/brokerages":                              ScopeRead,
	"GET /api/brokerages/{brokerageId}":                ScopeRead,
	"GET /api/dashboard/totals":                        ScopeRead,
	"GET /api/exchange-rates":                          ScopeRead,
	"GET /api/exchange-rates/{rateId}":                 ScopeRead,
	"GET /api/performance":                             ScopeRead,
	"GET /api/performance/fees":                        ScopeRead,
	"GET /api/positions":                               ScopeRead,
	"GET /api/positions/{positionId}":                  ScopeRead,
	"GET /api/positions/{positionId}/images":           ScopeRead,
	"GET /api/positions/{positionId}/images/{imageId}": ScopeRead,
	"GET /api/positions/{positionId}/bars":             ScopeRead,
	"GET /api/positions/{positionId}/unrealized":       ScopeRead,
	"GET /api/symbols/search":                          ScopeRead,
	"GET /api/symbols/{symbol}/quote":                  ScopeRead,
	"GET /api/tags":                                    ScopeRead,
	"GET /api/tags/{tagId}":                            ScopeRead,
	"GET /api/playbooks":                               ScopeRead,
	"GET /api/playbooks/{playbookId}":                  ScopeRead,
	"GET /api/positions/{positionId}/playbook":         ScopeRead,
	"POST /api/calculator":                             ScopeRead,
	"POST /api/calculator/strategy":                    ScopeRead,
	"POST /api/calculator/forex":                       ScopeRead,
	"POST /api/calculator/cfd":                         ScopeRead,
	"GET /api/options/occ/parse":                       ScopeRead,
	"GET /api/options/occ/encode":                      ScopeRead,
	"POST /api/options/black-scholes":                  ScopeRead,

	"POST /api/accounts":                                  ScopeWrite,
	"PATCH /api/accounts/{accountId}":                     ScopeWrite,
	"DELETE /api/accounts/{accountId}":                    ScopeWrite,
	"POST /api/accounts/{accountId}/ledger":               ScopeWrite,
	"DELETE /api/accounts/{accountId}/ledger/{entryId}":   ScopeWrite,
	"POST /api/accounts/{accountId}/ledger/reconcile":     ScopeWrite,
	"POST /api/brokerages/{brokerageId}/duplicate":        ScopeWrite,
	"POST /api/brokerages":                                ScopeWrite,
	"PATCH /api/brokerages/{brokerageId}":                 ScopeWrite,
	"DELETE /api/brokerages/{brokerageId}":                ScopeWrite,
	"POST /api/exchange-rates":                            ScopeWrite,
	"POST /api/exchange-rates/preview":                    ScopeWrite,
	"DELETE /api/exchange-rates/{rateId}":                 ScopeWrite,
	"POST /api/positions":                                 ScopeWrite,
	"PATCH /api/positions/{positionId}":                   ScopeWrite,
	"DELETE /api/positions/{positionId}":                  ScopeWrite,
	"PUT /api/positions/{positionId}/playbook":            ScopeWrite,
	"POST /api/playbooks":                                 ScopeWrite,
	"PATCH /api/playbooks/{playbookId}":                   ScopeWrite,
	"DELETE /api/playbooks/{playbookId}":                  ScopeWrite,
	"POST /api/positions/{positionId}/fills":              ScopeWrite,
	"PATCH /api/positions/{positionId}/fills/{fillId}":    ScopeWrite,
	"DELETE /api/positions/{positionId}/fills/{fillId}":   ScopeWrite,
	"POST /api/positions/{positionId}/images":             ScopeWrite,
	"PATCH /api/positions/{positionId}/images/{imageId}":  ScopeWrite,
	"DELETE /api/positions/{positionId}/images/{imageId}": ScopeWrite,
	"PUT /api/positions/{positionId}/tags":                ScopeWrite,
	"POST /api/positions/{positionId}/assignment":         ScopeWrite,
	"GET /api/strategies":                                 ScopeRead,
	"GET /api/strategies/{strategyId}":                    ScopeRead,
	"POST /api/strategies":                                ScopeWrite,
	"PATCH /api/strategies/{strategyId}":                  ScopeWrite,
	"DELETE /api/strategies/{strategyId}":                 ScopeWrite,
	"POST /api/tags":                                      ScopeWrite,
	"PATCH /api/tags/{tagId}":                             ScopeWrite,
	"DELETE /api/tags/{tagId}":                            ScopeWrite,

	"GET /api/csv-import/presets":                 ScopeImport,
	"POST /api/csv-import/preview":                ScopeImport,
	"POST /api/csv-import/commit":                 ScopeImport,
	"GET /api/csv-import/mappings":                ScopeImport,
	"POST /api/csv-import/mappings":               ScopeImport,
	"DELETE /api/csv-import/mappings/{mappingId}": ScopeImport,

	// The daily journal (functions/journaldays).
	"GET /api/journal/days":           ScopeRead,
	"GET /api/journal/days/{date}":    ScopeRead,
	"PUT /api/journal/days/{date}":    ScopeWrite,
	"DELETE /api/journal/days/{date}": ScopeWrite,

	// Expenses (functions/expenses); their CSV import writes expenses, not
	// positions, so it is a write.
	"GET /api/expenses":                           ScopeRead,
	"GET /api/expenses/{expenseId}":               ScopeRead,
	"GET /api/expenses/charges":                   ScopeRead,
	"GET /api/expenses/summary":                   ScopeRead,
	"GET /api/expenses/export":                    ScopeRead,
	"GET /api/expense-categories":                 ScopeRead,
	"POST /api/expenses":                          ScopeWrite,
	"PATCH /api/expenses/{expenseId}":             ScopeWrite,
	"DELETE /api/expenses/{expenseId}":            ScopeWrite,
	"POST /api/expenses/import":                   ScopeWrite,
	"POST /api/expense-categories":                ScopeWrite,
	"PATCH /api/expense-categories/{categoryId}":  ScopeWrite,
	"DELETE /api/expense-categories/{categoryId}": ScopeWrite,
}

// APITokenLimit is a token's own rate limit, apart from any browser's: a
// script that loops does not starve its owner's web app, and the other way
// round.
var APITokenLimit = ratelimit.Limit{Name: "api-token", N: 120, Per: time.Minute}

// tokenPrefix starts every API token, so a leaked one is recognisable
// (secret scanners, the owner reading a script) and never taken for a
// session cookie.
const tokenPrefix = "tj_"

// maxTokenName bounds a token's name (the column's check).
const maxTokenName = 100

// APIToken is a token as its owner sees it: never the token itself, which
// is shown once, when it is made.
type APIToken struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// CheckTokenRequest normalises a new token's name and scopes (deduplicated,
// in Scopes' order) and returns what is wrong with them.
func CheckTokenRequest(name string, scopes []string) (string, []string, []apperr.FieldError) {
	var problems []apperr.FieldError
	name = strings.TrimSpace(name)
	switch n := utf8.RuneCountInString(name); {
	case name == "":
		problems = append(problems, apperr.FieldError{Field: "name", Message: "is required"})
	case n > maxTokenName || !utf8.ValidString(name):
		problems = append(problems, apperr.FieldError{Field: "name", Message: "must be at most 100 characters"})
	}
	var clean []string
	for _, s := range Scopes {
		if slices.Contains(scopes, s) {
			clean = append(clean, s)
		}
	}
	if slices.ContainsFunc(scopes, func(s string) bool { return !slices.Contains(Scopes, s) }) {
		problems = append(problems, apperr.FieldError{Field: "scopes", Message: "must each be read, write or import"})
	} else if len(clean) == 0 {
		problems = append(problems, apperr.FieldError{Field: "scopes", Message: "must name at least one of read, write and import"})
	}
	return name, clean, problems
}

// newOpaqueToken returns a random token (32 bytes, URL-safe base64, after
// prefix) and the SHA-256 it is stored as.
func newOpaqueToken(prefix string) (string, []byte, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", nil, err
	}
	token := prefix + base64.RawURLEncoding.EncodeToString(raw[:])
	return token, hashToken(token), nil
}

// CreateAPIToken stores a new token for the user and returns it with the
// token text, which exists nowhere else afterwards. name and scopes are
// CheckTokenRequest's.
func CreateAPIToken(ctx context.Context, q db.Querier, userID, name string, scopes []string, now time.Time) (APIToken, string, error) {
	token, hash, err := newOpaqueToken(tokenPrefix)
	if err != nil {
		return APIToken{}, "", err
	}
	t := APIToken{Name: name, Scopes: scopes, CreatedAt: now}
	err = q.QueryRow(ctx, `INSERT INTO api_tokens (user_id, name, scopes, token_hash, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text`,
		userID, name, scopes, hash, now).Scan(&t.ID)
	return t, token, db.Classify(err)
}

// MaxAPITokens bounds how many tokens one user keeps.
const MaxAPITokens = 50

// CountAPITokens is how many tokens the user has.
func CountAPITokens(ctx context.Context, q db.Querier, userID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE user_id = $1`, userID).Scan(&n)
	return n, db.Classify(err)
}

// ListAPITokens returns the user's tokens, newest first.
func ListAPITokens(ctx context.Context, q db.Querier, userID string) ([]APIToken, error) {
	rows, err := q.Query(ctx, `SELECT id::text, name, scopes, created_at, last_used_at FROM api_tokens
		WHERE user_id = $1 ORDER BY created_at DESC, id`, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (APIToken, error) {
		var t APIToken
		return t, r.Scan(&t.ID, &t.Name, &t.Scopes, &t.CreatedAt, &t.LastUsedAt)
	})
	return items, db.Classify(err)
}

// RevokeAPIToken deletes one of the user's tokens; another user's token
// or an unknown id is apperr.ErrNotFound.
func RevokeAPIToken(ctx context.Context, q db.Querier, userID, tokenID string) error {
	return db.DeleteOwned(ctx, q, "api_tokens", tokenID, userID)
}

const urlBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// ParseBearer returns the API token of an Authorization header value
// ("Bearer tj_..."; the scheme's case does not matter), or false for any
// other shape.
func ParseBearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	body, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok || len(body) != 43 || strings.Trim(body, urlBase64) != "" {
		return "", false
	}
	// Strict: the last character's unused bits are zero, as in every token
	// this server made (the charset check above keeps out the line breaks
	// the decoder would skip).
	if _, err := base64.RawURLEncoding.Strict().DecodeString(body); err != nil {
		return "", false
	}
	return token, true
}

var (
	errBadToken      = apperr.New(apperr.Unauthenticated, "the API token is not valid; it may have been revoked")
	errSessionNeeded = apperr.New(apperr.Unauthenticated, "API tokens are not accepted here; sign in in a browser")
)

// identify is Require's one hook for tokens: a request with a Bearer
// Authorization header is a script's and is judged by its token alone
// (never also by a cookie); any other request, including one carrying a
// proxy's Basic credentials, is a browser's session.
func (s *Sessions) identify(w http.ResponseWriter, r *http.Request) (User, error) {
	header := r.Header.Get("Authorization")
	if scheme, _, _ := strings.Cut(header, " "); !strings.EqualFold(scheme, "Bearer") || s.limiter == nil {
		return s.lookup(w, r)
	}
	token, ok := ParseBearer(header)
	if !ok {
		return User{}, errBadToken
	}
	need, ok := TokenRoutes[r.Pattern]
	if !ok {
		return User{}, errSessionNeeded
	}
	ctx := r.Context()
	now := s.now()
	const sql = `SELECT ` + userColumns + `, t.id::text, t.scopes, t.last_used_at
		FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1 AND u.disabled_at IS NULL`
	var id string
	var scopes []string
	var lastUsed *time.Time
	u, err := scanUser(s.pool.QueryRow(ctx, sql, hashToken(token)), &id, &scopes, &lastUsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, errBadToken
	}
	if err != nil {
		return User{}, db.Classify(err)
	}
	if !slices.Contains(scopes, need) {
		return User{}, apperr.New(apperr.InsufficientScope, "this API token does not have the %s scope this request needs", need)
	}
	if err := ratelimit.Check(ctx, s.limiter, APITokenLimit, id); err != nil {
		return User{}, err
	}
	// Last use is written at most once a minute, like a session's activity.
	if lastUsed == nil || now.Sub(*lastUsed) >= touchEvery {
		if _, err := s.pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = $2 WHERE id = $1`, id, now); err != nil {
			return User{}, db.Classify(err)
		}
	}
	return u, nil
}

// AcceptAPITokens turns on bearer tokens for Require (app.New does, always),
// with limiter keeping each token to APITokenLimit.
func (s *Sessions) AcceptAPITokens(limiter ratelimit.Limiter) { s.limiter = limiter }
