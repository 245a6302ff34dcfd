// Package httpx is the HTTP layer every route group shares: the route table,
// JSON decoding and encoding, the error body of ARCHITECTURE.md, request ids,
// access logs and panic recovery.
package httpx

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"

	"tradejournal/shared/apperr"
	"tradejournal/shared/db"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[apperr.Code]int{
	apperr.Validation:           http.StatusBadRequest,
	apperr.InvalidJSON:          http.StatusBadRequest,
	apperr.UnknownPack:          http.StatusBadRequest,
	apperr.Unauthenticated:      http.StatusUnauthorized,
	apperr.InvalidCredentials:   http.StatusUnauthorized,
	apperr.BillingNotAvailable:  http.StatusPaymentRequired,
	apperr.InsufficientCredits:  http.StatusPaymentRequired,
	apperr.RegistrationDisabled: http.StatusForbidden,
	apperr.AdminRequired:        http.StatusForbidden,
	apperr.AccountDisabled:      http.StatusForbidden,
	apperr.CSRFRejected:         http.StatusForbidden,
	apperr.InsufficientScope:    http.StatusForbidden,
	apperr.NotFound:             http.StatusNotFound,
	apperr.EmailTaken:           http.StatusConflict,
	apperr.Conflict:             http.StatusConflict,
	apperr.TurnInProgress:       http.StatusConflict,
	apperr.PayloadTooLarge:      http.StatusRequestEntityTooLarge,
	apperr.RequestTimeout:       http.StatusRequestTimeout,
	apperr.UnsupportedMedia:     http.StatusUnsupportedMediaType,
	apperr.RateLimited:          http.StatusTooManyRequests,
	apperr.BadGateway:           http.StatusBadGateway,
	apperr.ServiceUnavailable:   http.StatusServiceUnavailable,
	apperr.GatewayTimeout:       http.StatusGatewayTimeout,
	apperr.InvalidBackup:        http.StatusBadRequest,
	apperr.BackupTooNew:         http.StatusBadRequest,
	apperr.JournalNotEmpty:      http.StatusConflict,
	apperr.SubscriptionActive:   http.StatusConflict,
	apperr.PlanLimitReached:     http.StatusForbidden,
	apperr.EncryptionRequired:   http.StatusConflict,
}

// codeless are the codes whose body carries no code: the spec's 404s say
// "none", and gateway failures have nothing for a client to act on.
var codeless = map[apperr.Code]bool{apperr.NotFound: true, apperr.BadGateway: true, apperr.GatewayTimeout: true}

type errorBody struct {
	Error errorPayload `json:"error"`
}

type errorPayload struct {
	Code    apperr.Code         `json:"code,omitempty"`
	Message string              `json:"message"`
	Details []apperr.FieldError `json:"details,omitempty"`
}

// Error writes err in the documented shape. An *apperr.Error keeps its code
// and message; anything else is logged with its cause and answered with a
// bare 500, so no internal detail reaches a client.
//
// A database error that reaches it unclassified is classified here
// (db.Classify): a lost connection is a 503, a value PostgreSQL refused
// (SQLSTATE class 22) a 400, logged as a warning because the edge's
// validation should have caught it. A read (GET, HEAD) that lost its
// connection writes nothing here: Serve runs it again on fresh
// connections.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := apperr.As(err)
	if !ok && errors.Is(err, os.ErrDeadlineExceeded) {
		e, ok = ErrBodyTimeout, true
	}
	if !ok {
		if e, ok = apperr.As(db.Classify(err)); ok && e == db.ErrValueRange {
			Logger(r.Context()).Warn("database refused a value", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	}
	if !ok {
		Logger(r.Context()).Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: errorPayload{Code: "INTERNAL", Message: "internal error"}})
		return
	}
	if e == db.ErrUnavailable && retryRead(r.Context()) {
		return
	}
	status, known := statusOf[e.Code]
	if !known {
		status = http.StatusBadRequest
	}
	p := errorPayload{Code: e.Code, Message: e.Message}
	if codeless[e.Code] {
		p.Code = ""
	}
	if e.Code == apperr.Validation {
		p.Details = e.Details
	}
	if e.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds))
	}
	writeJSON(w, status, errorBody{Error: p})
}

// JSON writes v as the response body with the given status.
func JSON(w http.ResponseWriter, status int, v any) {
	writeJSON(w, status, v)
}

// NoContent answers 204; handlers must always write a status (the Lambda
// adapter turns a handler that writes nothing into a 504).
func NoContent(w http.ResponseWriter) {
	w.WriteHeader(http.StatusNoContent)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		slog.Error("encode response", "err", err)
		status, body = http.StatusInternalServerError, []byte(`{"error":{"code":"INTERNAL","message":"internal error"}}`)
	}
	JSONHeader(w, status)
	_, _ = w.Write(append(body, '\n'))
}

// JSONHeader writes status and the headers of a JSON answer, for a body
// its handler writes as it encodes it (one too large for JSON's one
// buffer).
func JSONHeader(w http.ResponseWriter, status int) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
}

// NotFound answers the codeless 404 of unknown paths and missing records.
func NotFound(w http.ResponseWriter, r *http.Request) {
	Error(w, r, apperr.ErrNotFound)
}

// ErrBodyTimeout answers a request whose body did not arrive within the
// listener's read deadline (Timeouts).
var ErrBodyTimeout = apperr.New(apperr.RequestTimeout, "the request body did not arrive in time")
