package brokersync

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Failure is why a sync (or a test of the credentials) did not get the
// broker's executions: a code for programs (the web app words it), the
// broker's own words where it gave some, and the earliest next try when the
// broker limits the rate.
type Failure struct {
	Code    string     `json:"code"`
	Message string     `json:"message"`
	RetryAt *time.Time `json:"retryAt,omitempty"`
}

func (f *Failure) Error() string { return f.Code + ": " + f.Message }

// Failure codes.
const (
	CodeTokenExpired          = "TOKEN_EXPIRED"          // IBKR 1012: the Flex token expired
	CodeTokenInvalid          = "TOKEN_INVALID"          // IBKR 1015 and the like: the token is wrong or revoked
	CodeQueryInvalid          = "QUERY_INVALID"          // IBKR 1014: the query id is wrong
	CodeCredentialsRejected   = "CREDENTIALS_REJECTED"   // Alpaca 401/403, Kraken EAPI:Invalid key / signature
	CodePermissionDenied      = "PERMISSION_DENIED"      // Kraken EGeneral:Permission denied: the key may not read trades
	CodeRateLimited           = "RATE_LIMITED"           // the broker's rate limit; RetryAt says when to try again
	CodeStatementNotReady     = "STATEMENT_NOT_READY"    // IBKR 1019 for longer than a sync waits
	CodeBrokerUnavailable     = "BROKER_UNAVAILABLE"     // the broker did not answer, or answered 5xx
	CodeAnswerUnreadable      = "ANSWER_UNREADABLE"      // the broker's answer is not what its protocol says
	CodeStatementUnreadable   = "STATEMENT_UNREADABLE"   // the statement or its executions cannot be read as trades
	CodeFillsDoNotFit         = "FILLS_DO_NOT_FIT"       // the executions do not fit the journal's positions
	CodeCredentialsUnreadable = "CREDENTIALS_UNREADABLE" // sealed with a key this server no longer has
)

// rateLimited is the broker's rate-limit answer, with the next try after wait.
func rateLimited(now time.Time, wait time.Duration, words string) *Failure {
	at := now.Add(wait).UTC().Truncate(time.Second)
	return &Failure{Code: CodeRateLimited, Message: words, RetryAt: &at}
}

// unavailable is a broker that could not be reached or failed on its side.
// A *url.Error's URL is left out: IBKR's carries the token.
func unavailable(broker string, err error) *Failure {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return &Failure{Code: CodeBrokerUnavailable, Message: fmt.Sprintf("%s did not answer: %v", broker, err)}
}

// unreadable is an answer outside the broker's protocol.
func unreadable(broker, what string) *Failure {
	return &Failure{Code: CodeAnswerUnreadable, Message: broker + "'s answer could not be read: " + what}
}
