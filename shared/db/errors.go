package db

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"tradejournal/shared/apperr"
)

// IsUniqueViolation reports whether err is PostgreSQL's unique_violation,
// optionally on the named constraint.
func IsUniqueViolation(err error, constraint string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505" && (constraint == "" || pg.ConstraintName == constraint)
}

// Unavailable reports whether err means the database could not be used,
// which the API answers with 503 SERVICE_UNAVAILABLE rather than a 500:
// it could not be reached or is starting up, it ended the connection
// (SQLSTATE class 08 and 57P01-57P05: a restart, a terminated or crashed
// backend), it has no connection slot left (53300), or the pooled
// connection's socket died under the statement (ConnLost).
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return strings.HasPrefix(pg.Code, "08") || serverGone(pg.Code) || pg.Code == "53300"
	}
	var connect *pgconn.ConnectError
	return errors.As(err, &connect) || pgconn.Timeout(err) || ConnLost(err)
}

// serverGone is the operator-intervention class (57P01 admin_shutdown,
// 57P02 crash_shutdown, 57P03 cannot_connect_now, 57P04 database_dropped,
// 57P05 idle_session_timeout): the server ended or refused the session.
// 57014 (a statement timeout or a cancel) is not among them.
func serverGone(code string) bool { return strings.HasPrefix(code, "57P") }

// ConnLost reports whether err is a pooled connection whose socket died:
// the server closed it (io.EOF), a network error, a connection pgx had
// already closed ("conn closed"), or the pool closed at shutdown.
func ConnLost(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	// pgconn's error for a statement on a connection it closed after a
	// fatal error, and the pool's after Close, are unexported; their texts
	// are stable.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "closed pool")
}

// DataException reports whether err is PostgreSQL refusing a value
// (SQLSTATE class 22: out of range, bad date or time, bad text for a type).
func DataException(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && strings.HasPrefix(pg.Code, "22")
}

// ErrUnavailable is the client's answer when the database cannot be reached.
var ErrUnavailable = apperr.New(apperr.ServiceUnavailable, "the database is not reachable; try again shortly")

// ErrValueRange is the answer to a value PostgreSQL refused that the
// edge's validation let through: a 400, never a 500.
var ErrValueRange = apperr.New(apperr.Validation, "a value is outside the range the journal can store")

// Classify maps pgx's no-rows to the not-found application error, an
// unreachable database or a dead connection to 503 (ErrUnavailable), and
// a data exception to 400 (ErrValueRange); it passes anything else
// through.
func Classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return apperr.ErrNotFound
	case Unavailable(err):
		return ErrUnavailable
	case DataException(err):
		return ErrValueRange
	}
	return err
}

type freshKey struct{}

// FreshConns marks ctx so that every connection the pool hands out under
// it is pinged first: a dead one is dropped and the next (or a new one)
// taken. The retry of a read that lost its connection runs under it, so it
// does not land on another connection the same restart killed.
func FreshConns(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshKey{}, true)
}
