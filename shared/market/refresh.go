package market

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/config"
	"tradejournal/shared/db"
)

// Refresh timing.
const (
	// RefreshEvery is the least time between two successful checks with the
	// SEC (a 200 or a 304): the table is refreshed at most daily.
	RefreshEvery = 24 * time.Hour
	// RetryEvery is the least time between two attempts after a failure.
	RetryEvery = time.Hour
	// fetchTimeout bounds one download of the file.
	fetchTimeout = 2 * time.Minute
)

// refreshLockKey is the PostgreSQL advisory lock that lets one process at a
// time refresh the table; the others skip.
const refreshLockKey = 7240815

// RefreshSymbols brings the symbols table up to date with the SEC ticker
// file at cfg.SECTickersURL, if it is due (no successful check in the last
// RefreshEvery, and no attempt in the last RetryEvery). It is what the local
// host runs in the background and what a scheduled function calls (the
// symbol-refresh job of shared/jobs).
//
//   - A SEC_USER_AGENT naming a code-hosting address is refused before any
//     request: one error line, ErrCodeHostUserAgent, the table untouched.
//   - One process at a time: a transaction-level advisory try-lock (so it is
//     safe behind a transaction-mode pooler); a process that does not get
//     it returns nil at once.
//   - The request carries User-Agent: SEC_USER_AGENT and, after a first
//     load, If-Modified-Since with the stored Last-Modified; a 304 only
//     records the check.
//   - A new file replaces the whole table in the same transaction (DELETE,
//     then COPY), so readers see the old table or the new one, never a mix,
//     and the generation moves so every Index reloads.
//   - A failure (offline machine, SEC error, malformed file) keeps the old
//     table, records the attempt, logs one WARNING (never an error) and
//     returns the error.
func RefreshSymbols(ctx context.Context, pool db.Beginner, client *http.Client, cfg config.Market, now time.Time, log *slog.Logger) error {
	if CodeHostUserAgent(cfg.SECUserAgent) {
		// The value itself is not logged: it is meant to carry the operator's
		// name and email address.
		log.Error("symbol refresh refused: the symbol table stays as it is (empty on a new instance)",
			"variable", "SEC_USER_AGENT", "reason", ErrCodeHostUserAgent.Error())
		return ErrCodeHostUserAgent
	}
	if client == nil {
		client = http.DefaultClient
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return warn(ctx, log, "symbol refresh: database not reachable", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit

	var locked bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, refreshLockKey).Scan(&locked); err != nil {
		return warn(ctx, log, "symbol refresh: database not reachable", err)
	}
	if !locked {
		log.Debug("symbol refresh: another process is refreshing; skipped")
		return nil
	}
	var (
		lastModified           *string
		checkedAt, attemptedAt *time.Time
	)
	const state = `SELECT last_modified, checked_at, attempted_at FROM symbol_refresh FOR UPDATE`
	if err := tx.QueryRow(ctx, state).Scan(&lastModified, &checkedAt, &attemptedAt); err != nil {
		return warn(ctx, log, "symbol refresh: reading its state failed", err)
	}
	if checkedAt != nil && now.Sub(*checkedAt) < RefreshEvery || attemptedAt != nil && now.Sub(*attemptedAt) < RetryEvery {
		log.Debug("symbol refresh: not due")
		return nil
	}

	res, fetchErr := fetchTickers(ctx, client, cfg, lastModified)
	if fetchErr != nil {
		const attempt = `UPDATE symbol_refresh SET attempted_at = $1`
		if _, err := tx.Exec(ctx, attempt, now); err == nil {
			_ = tx.Commit(ctx)
		}
		return warn(ctx, log, "symbol refresh failed; the symbol table keeps its previous content", fetchErr)
	}
	if res.notModified {
		const checked = `UPDATE symbol_refresh SET checked_at = $1, attempted_at = $1`
		if _, err := tx.Exec(ctx, checked, now); err != nil {
			return warn(ctx, log, "symbol refresh: recording the check failed", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return warn(ctx, log, "symbol refresh: recording the check failed", err)
		}
		log.Info("symbol table is up to date (not modified)")
		return nil
	}
	if err := replaceSymbols(ctx, tx, res.symbols); err != nil {
		return warn(ctx, log, "symbol refresh: writing the table failed; it keeps its previous content", err)
	}
	const done = `UPDATE symbol_refresh SET generation = generation + 1, last_modified = $1,
		checked_at = $2, attempted_at = $2, refreshed_at = $2, row_count = $3`
	if _, err := tx.Exec(ctx, done, res.lastModified, now, len(res.symbols)); err != nil {
		return warn(ctx, log, "symbol refresh: writing the table failed; it keeps its previous content", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return warn(ctx, log, "symbol refresh: writing the table failed; it keeps its previous content", err)
	}
	log.Info("symbol table refreshed", "symbols", len(res.symbols), "skippedRows", res.skipped)
	return nil
}

// warn logs a failed refresh at WARNING level (an offline machine is not an
// error) and returns err. A refresh cut short by shutdown logs nothing.
func warn(ctx context.Context, log *slog.Logger, msg string, err error) error {
	if ctx.Err() == nil {
		log.Warn(msg, "err", err)
	}
	return err
}

// replaceSymbols swaps the table's content inside tx. DELETE (not TRUNCATE)
// keeps readers on the old rows until the commit instead of blocking them.
func replaceSymbols(ctx context.Context, tx pgx.Tx, symbols []Symbol) error {
	if _, err := tx.Exec(ctx, `DELETE FROM symbols`); err != nil {
		return err
	}
	rows := make([][]any, len(symbols))
	for i, s := range symbols {
		rows[i] = []any{s.Ticker, s.Name, s.Exchange, s.CIK, int32(i)}
	}
	n, err := tx.CopyFrom(ctx, pgx.Identifier{"symbols"}, []string{"ticker", "name", "exchange", "cik", "rank"}, pgx.CopyFromRows(rows))
	if err != nil {
		return err
	}
	if int(n) != len(symbols) {
		return fmt.Errorf("copied %d of %d symbols", n, len(symbols))
	}
	return nil
}

type fetched struct {
	notModified  bool
	symbols      []Symbol
	skipped      int
	lastModified *string
}

func fetchTickers(ctx context.Context, client *http.Client, cfg config.Market, lastModified *string) (fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.SECTickersURL, nil)
	if err != nil {
		return fetched{}, fmt.Errorf("SEC_TICKERS_URL: %w", err)
	}
	req.Header.Set("User-Agent", cfg.SECUserAgent)
	req.Header.Set("Accept", "application/json")
	if lastModified != nil && *lastModified != "" {
		req.Header.Set("If-Modified-Since", *lastModified)
	}
	res, err := client.Do(req)
	if err != nil {
		return fetched{}, err
	}
	defer res.Body.Close()
	switch res.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified:
		return fetched{notModified: true}, nil
	default:
		return fetched{}, fmt.Errorf("GET %s: status %d", cfg.SECTickersURL, res.StatusCode)
	}
	symbols, skipped, err := ParseTickers(res.Body)
	if err != nil {
		return fetched{}, err
	}
	out := fetched{symbols: symbols, skipped: skipped}
	if lm := res.Header.Get("Last-Modified"); lm != "" {
		out.lastModified = &lm
	}
	return out, nil
}
