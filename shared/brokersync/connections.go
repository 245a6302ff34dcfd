// Package brokersync fills the journal from a broker's read-only API: a
// user's connections (credentials sealed with ENCRYPTION_KEY), the sources
// (Interactive Brokers' Flex Web Service, Alpaca's account activities,
// Kraken's trade history), and the sync that fetches a source's executions
// and writes the new ones through the journal store's import path, on
// demand (functions/connections) and by schedule (shared/jobs).
//
// A sync is idempotent: the executions a connection synced are recorded by
// the broker's execution id in the import's own transaction, and the import
// skips any fill the journal already has by the CSV import's duplicate key
// (brokerfile.Key), so a re-sync and an overlap with a CSV import of the
// same trades write nothing twice. A lease on the connection's row keeps
// two syncs of it from running at once, on any host.
package brokersync

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"tradejournal/shared/apperr"
	"tradejournal/shared/config"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/journalstore"
)

// The brokers a connection can sync from.
const (
	IBKR   = "ibkr"
	Alpaca = "alpaca"
	Kraken = "kraken"
)

// Credentials are what a broker gives for read-only access. Which fields a
// broker needs is Validate's; they are sealed as JSON and never leave the
// server.
type Credentials struct {
	Token   string `json:"token,omitempty"`   // IBKR: the Flex Web Service token
	QueryID string `json:"queryId,omitempty"` // IBKR: the Activity Flex Query's id
	KeyID   string `json:"keyId,omitempty"`   // Alpaca: API key id; Kraken: API key
	Secret  string `json:"secret,omitempty"`  // Alpaca: secret key; Kraken: private key (base64)
}

// Input is a new connection.
type Input struct {
	Broker      string      `json:"broker"`
	AccountID   string      `json:"accountId"`
	Label       string      `json:"label"`
	Credentials Credentials `json:"credentials"`
}

// Connection is a connection as the API shows it: never its credentials.
type Connection struct {
	ID        string    `json:"id"`
	Broker    string    `json:"broker"`
	AccountID string    `json:"accountId"`
	Label     string    `json:"label"`
	Paused    bool      `json:"paused"`
	CreatedAt time.Time `json:"createdAt"`
	// Status is never (not synced yet), ok, failing or running.
	Status         string     `json:"status"`
	SyncedThrough  *time.Time `json:"syncedThrough"`
	LastSyncAt     *time.Time `json:"lastSyncAt"`
	LastAdded      int        `json:"lastAdded"`
	LastSuccessAt  *time.Time `json:"lastSuccessAt"`
	FailingSince   *time.Time `json:"failingSince"`
	Error          *Failure   `json:"error"`
	NeedsAttention bool       `json:"needsAttention"` // failing for a day or more: the dashboard's notice
}

// attentionAfter is how long a connection fails before the dashboard says so.
const attentionAfter = 24 * time.Hour

// Service owns the connections and runs their syncs.
type Service struct {
	pool    *pgxpool.Pool
	keyring *encrypt.Keyring
	store   *journalstore.Store
	now     func() time.Time
	sources map[string]source
}

// New returns the service. client makes the brokers' requests (nil: one
// with a minute's timeout).
func New(pool *pgxpool.Pool, k *encrypt.Keyring, now func() time.Time, cfg config.BrokerSync, client *http.Client) *Service {
	if client == nil {
		client = &http.Client{Timeout: time.Minute}
	}
	return &Service{pool: pool, keyring: k, now: now, store: journalstore.New(pool, k, now), sources: map[string]source{
		IBKR:   &flex{base: strings.TrimRight(cfg.IBKRFlexURL, "/"), client: client, wait: sleep},
		Alpaca: &alpaca{base: strings.TrimRight(cfg.AlpacaURL, "/"), client: client},
		Kraken: &kraken{base: strings.TrimRight(cfg.KrakenURL, "/"), client: client, wait: sleep, now: now},
	}}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ErrEncryptionRequired refuses to store credentials without a key.
var ErrEncryptionRequired = apperr.New(apperr.EncryptionRequired,
	"broker credentials are stored only encrypted: the server's operator must set ENCRYPTION_KEY first")

// Validate checks a new connection's fields.
func (in *Input) Validate() error {
	var p []apperr.FieldError
	bad := func(field, msg string) { p = append(p, apperr.FieldError{Field: field, Message: msg}) }
	in.Label = strings.TrimSpace(in.Label)
	if n := len([]rune(in.Label)); n > 100 {
		bad("label", "must be at most 100 characters")
	}
	if !db.ValidUUID(in.AccountID) {
		bad("accountId", "must be the id of one of your accounts")
	}
	c := &in.Credentials
	for _, v := range []*string{&c.Token, &c.QueryID, &c.KeyID, &c.Secret} {
		*v = strings.TrimSpace(*v)
	}
	need := func(field, value, what string) {
		switch {
		case value == "":
			bad("credentials."+field, "is required: "+what)
		case len(value) > 500 || strings.ContainsFunc(value, func(r rune) bool { return r < 0x21 || r > 0x7e }):
			bad("credentials."+field, "must be at most 500 printable characters without spaces, as the broker shows it")
		}
	}
	switch in.Broker {
	case IBKR:
		need("token", c.Token, "the Flex Web Service token")
		need("queryId", c.QueryID, "the Activity Flex Query's id")
		if c.QueryID != "" && strings.Trim(c.QueryID, "0123456789") != "" {
			bad("credentials.queryId", "must be the query's number, as Flex Queries lists it")
		}
	case Alpaca:
		need("keyId", c.KeyID, "the API key id")
		need("secret", c.Secret, "the secret key")
	case Kraken:
		need("keyId", c.KeyID, "the API key")
		need("secret", c.Secret, "the private key")
		if _, err := krakenSecret(c.Secret); c.Secret != "" && err != nil {
			bad("credentials.secret", "must be the private key as Kraken shows it (base64)")
		}
	default:
		bad("broker", "must be one of ibkr, alpaca, kraken")
	}
	if in.Label == "" {
		in.Label = map[string]string{IBKR: "Interactive Brokers", Alpaca: "Alpaca", Kraken: "Kraken"}[in.Broker]
	}
	return apperr.Fields(p)
}

// columns is a connection's row as Connection reads it.
const columns = `id::text, broker, account_id::text, label, paused, created_at, synced_through, last_sync_at, last_added,
	last_success_at, failing_since, error_code, error_message, retry_at, running_until`

func (s *Service) scan(row pgx.Row) (Connection, error) {
	var (
		c                   Connection
		code, msg           *string
		retryAt, runningTil *time.Time
	)
	if err := row.Scan(&c.ID, &c.Broker, &c.AccountID, &c.Label, &c.Paused, &c.CreatedAt, &c.SyncedThrough, &c.LastSyncAt,
		&c.LastAdded, &c.LastSuccessAt, &c.FailingSince, &code, &msg, &retryAt, &runningTil); err != nil {
		return c, err
	}
	now := s.now()
	switch {
	case runningTil != nil && runningTil.After(now):
		c.Status = "running"
	case code != nil:
		c.Status = "failing"
		c.Error = &Failure{Code: *code, RetryAt: retryAt}
		if msg != nil {
			c.Error.Message = *msg
		}
	case c.LastSyncAt == nil:
		c.Status = "never"
	default:
		c.Status = "ok"
	}
	c.NeedsAttention = !c.Paused && c.FailingSince != nil && now.Sub(*c.FailingSince) >= attentionAfter
	return c, nil
}

// Create stores a connection with its credentials sealed.
func (s *Service) Create(ctx context.Context, userID string, in Input) (Connection, error) {
	if s.keyring == nil {
		return Connection{}, ErrEncryptionRequired
	}
	if err := in.Validate(); err != nil {
		return Connection{}, err
	}
	plain, err := json.Marshal(in.Credentials)
	if err != nil {
		return Connection{}, err
	}
	const q = `INSERT INTO broker_connections (user_id, account_id, broker, label, credentials, created_at)
		SELECT $1, a.id, $3, $4, $5, $6 FROM accounts a WHERE a.id = $2 AND a.user_id = $1
		RETURNING ` + columns
	c, err := s.scan(s.pool.QueryRow(ctx, q, userID, in.AccountID, in.Broker, in.Label,
		s.keyring.Seal(encrypt.BrokerCredentials, string(plain)), s.now()))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.Invalid("accountId", "must be the id of one of your accounts")
	}
	return c, db.Classify(err)
}

// List answers the user's connections, oldest first.
func (s *Service) List(ctx context.Context, userID string) ([]Connection, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+columns+` FROM broker_connections WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Connection, error) { return s.scan(r) })
	if out == nil {
		out = []Connection{}
	}
	return out, db.Classify(err)
}

// Get answers one of the user's connections; a malformed, missing or
// foreign id is apperr.ErrNotFound.
func (s *Service) Get(ctx context.Context, userID, id string) (Connection, error) {
	if !db.ValidUUID(id) {
		return Connection{}, apperr.ErrNotFound
	}
	c, err := s.scan(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM broker_connections WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.ErrNotFound
	}
	return c, db.Classify(err)
}

// SetPaused pauses (the schedule skips it; on demand still syncs) or
// resumes a connection.
func (s *Service) SetPaused(ctx context.Context, userID, id string, paused bool) (Connection, error) {
	if !db.ValidUUID(id) {
		return Connection{}, apperr.ErrNotFound
	}
	c, err := s.scan(s.pool.QueryRow(ctx, `UPDATE broker_connections SET paused = $3 WHERE id = $1 AND user_id = $2 RETURNING `+columns,
		id, userID, paused))
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.ErrNotFound
	}
	return c, db.Classify(err)
}

// Delete removes a connection and its credentials; the trades it synced
// stay in the journal.
func (s *Service) Delete(ctx context.Context, userID, id string) error {
	return db.DeleteOwned(ctx, s.pool, "broker_connections", id, userID)
}

// credentials opens a connection's sealed credentials.
func (s *Service) credentials(sealed string) (Credentials, error) {
	var c Credentials
	plain, err := s.keyring.Open(encrypt.BrokerCredentials, sealed)
	if err != nil {
		return c, &Failure{Code: CodeCredentialsUnreadable,
			Message: "the stored credentials cannot be opened with this server's ENCRYPTION_KEY; delete the connection and connect again"}
	}
	if err := json.Unmarshal([]byte(plain), &c); err != nil {
		return c, err
	}
	return c, nil
}
