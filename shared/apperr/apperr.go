// Package apperr is the one application error type. Business code returns
// *Error values with a code the client can act on; shared/httpx turns the code
// into a status and the documented JSON body. Any other error is a 500
// "internal error" whose cause is logged and never sent.
package apperr

import (
	"errors"
	"fmt"
)

// Code is the machine-readable error code of the response body.
type Code string

// The codes of ARCHITECTURE.md's error table. NotFound, BadGateway and
// GatewayTimeout are written without a code in the body.
const (
	Validation           Code = "VALIDATION_ERROR"
	InvalidJSON          Code = "INVALID_JSON"
	Unauthenticated      Code = "UNAUTHENTICATED"
	InvalidCredentials   Code = "INVALID_CREDENTIALS"
	RegistrationDisabled Code = "REGISTRATION_DISABLED"
	AdminRequired        Code = "ADMIN_REQUIRED"
	CSRFRejected         Code = "CSRF_REJECTED"
	NotFound             Code = "NOT_FOUND"
	EmailTaken           Code = "EMAIL_TAKEN"
	Conflict             Code = "CONFLICT"
	BillingNotAvailable  Code = "BILLING_NOT_AVAILABLE"
	UnknownPack          Code = "UNKNOWN_PACK"
	InsufficientCredits  Code = "INSUFFICIENT_CREDITS"
	// TurnInProgress: the user already has an assistant turn streaming; one
	// at a time per user.
	TurnInProgress  Code = "TURN_IN_PROGRESS"
	PayloadTooLarge Code = "PAYLOAD_TOO_LARGE"
	// RequestTimeout: the request body did not arrive within the
	// listener's read deadline.
	RequestTimeout     Code = "REQUEST_TIMEOUT"
	UnsupportedMedia   Code = "UNSUPPORTED_MEDIA_TYPE"
	RateLimited        Code = "RATE_LIMITED"
	ServiceUnavailable Code = "SERVICE_UNAVAILABLE"
	BadGateway         Code = "BAD_GATEWAY"
	GatewayTimeout     Code = "GATEWAY_TIMEOUT"
	// AccountDisabled: a sign-in to an account an administrator disabled.
	AccountDisabled Code = "ACCOUNT_DISABLED"
	// InsufficientScope: an API token whose scopes do not include what the
	// route needs (a read-only token on a write).
	InsufficientScope Code = "INSUFFICIENT_SCOPE"
	// InvalidBackup: a restore's file is not a whole, unchanged and
	// consistent backup archive (shared/backup); BackupTooNew: it was made
	// by a later format version than this instance reads.
	InvalidBackup Code = "INVALID_BACKUP"
	BackupTooNew  Code = "BACKUP_TOO_NEW"
	// JournalNotEmpty: a restore goes only into a journal without accounts,
	// positions or tags (a second restore would duplicate the first).
	JournalNotEmpty Code = "JOURNAL_NOT_EMPTY"
	// SubscriptionActive: an account with a running Pro subscription is not
	// deleted (the processor would keep charging for it).
	SubscriptionActive Code = "SUBSCRIPTION_ACTIVE"
	// PlanLimitReached: a write beyond one of the free plan's limits
	// (shared/plans); Pro, or archiving or deleting something, makes room.
	PlanLimitReached Code = "PLAN_LIMIT_REACHED"
	// EncryptionRequired: broker credentials are never stored without
	// ENCRYPTION_KEY to seal them.
	EncryptionRequired Code = "ENCRYPTION_REQUIRED"
)

// FieldError names one invalid field of a request and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is an error the client is meant to see.
type Error struct {
	Code    Code
	Message string
	Details []FieldError
	// RetryAfterSeconds is sent as the Retry-After header when positive.
	RetryAfterSeconds int
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// New returns an error with a code and a message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a VALIDATION_ERROR with one field detail; its message is
// "<field> <message>".
func Invalid(field, message string) *Error {
	return &Error{Code: Validation, Message: field + " " + message, Details: []FieldError{{Field: field, Message: message}}}
}

// Fields returns a VALIDATION_ERROR carrying every detail; the message names
// the first one. It returns nil for no details, so callers can collect
// problems and return Fields(problems) unconditionally.
func Fields(details []FieldError) error {
	if len(details) == 0 {
		return nil
	}
	return &Error{Code: Validation, Message: details[0].Field + " " + details[0].Message, Details: details}
}

// ErrNotFound is the answer for a record that does not exist or is not the
// caller's: the two are indistinguishable on purpose.
var ErrNotFound = &Error{Code: NotFound, Message: "not found"}

// As returns the *Error inside err, if there is one.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}
