package httpx_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"tradejournal/shared/apperr"
	"tradejournal/shared/httpx"
)

// errorJSON decodes an error answer into its error object.
func errorJSON(t *testing.T, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var body map[string]map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("body %q: %v", w.Body, err)
	}
	if len(body) != 1 || body["error"] == nil {
		t.Fatalf("body %s is not {error: ...}", w.Body)
	}
	return body["error"]
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestError(t *testing.T) {
	details := []apperr.FieldError{{Field: "entryPrice", Message: "must be positive"}}
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		keys       []string
		code       string
		retryAfter string
	}{
		{"Validation", apperr.Invalid("entryPrice", "must be positive"), 400, []string{"code", "details", "message"}, "VALIDATION_ERROR", ""},
		{"ValidationFields", apperr.Fields(details), 400, []string{"code", "details", "message"}, "VALIDATION_ERROR", ""},
		{"InvalidJSON", apperr.New(apperr.InvalidJSON, "bad"), 400, []string{"code", "message"}, "INVALID_JSON", ""},
		{"Unauthenticated", apperr.New(apperr.Unauthenticated, "sign in"), 401, []string{"code", "message"}, "UNAUTHENTICATED", ""},
		{"InvalidCredentials", apperr.New(apperr.InvalidCredentials, "no"), 401, []string{"code", "message"}, "INVALID_CREDENTIALS", ""},
		{"BillingNotAvailable", apperr.New(apperr.BillingNotAvailable, "off"), 402, []string{"code", "message"}, "BILLING_NOT_AVAILABLE", ""},
		{"AdminRequired", apperr.New(apperr.AdminRequired, "no"), 403, []string{"code", "message"}, "ADMIN_REQUIRED", ""},
		{"RegistrationDisabled", apperr.New(apperr.RegistrationDisabled, "closed"), 403, []string{"code", "message"}, "REGISTRATION_DISABLED", ""},
		{"CSRFRejected", apperr.New(apperr.CSRFRejected, "no"), 403, []string{"code", "message"}, "CSRF_REJECTED", ""},
		{"NotFoundHasNoCode", apperr.ErrNotFound, 404, []string{"message"}, "", ""},
		{"EmailTaken", apperr.New(apperr.EmailTaken, "taken"), 409, []string{"code", "message"}, "EMAIL_TAKEN", ""},
		{"PayloadTooLarge", apperr.New(apperr.PayloadTooLarge, "big"), 413, []string{"code", "message"}, "PAYLOAD_TOO_LARGE", ""},
		{"RateLimited", &apperr.Error{Code: apperr.RateLimited, Message: "slow down", RetryAfterSeconds: 7}, 429, []string{"code", "message"}, "RATE_LIMITED", "7"},
		{"ServiceUnavailable", apperr.New(apperr.ServiceUnavailable, "db"), 503, []string{"code", "message"}, "SERVICE_UNAVAILABLE", ""},
		{"Wrapped", fmt.Errorf("listing: %w", apperr.New(apperr.AdminRequired, "no")), 403, []string{"code", "message"}, "ADMIN_REQUIRED", ""},
		{"DetailsOnlyForValidation", &apperr.Error{Code: apperr.Conflict, Message: "c", Details: details}, 409, []string{"code", "message"}, "CONFLICT", ""},
		{"RetryAfterOnlyWhenPositive", &apperr.Error{Code: apperr.RateLimited, Message: "m"}, 429, []string{"code", "message"}, "RATE_LIMITED", ""},
		{"RetryAfterOnAnyCode", &apperr.Error{Code: apperr.ServiceUnavailable, Message: "m", RetryAfterSeconds: 30}, 503, []string{"code", "message"}, "SERVICE_UNAVAILABLE", "30"},
		{"UnknownCodeIs400", apperr.New("SOMETHING_NEW", "m"), 400, []string{"code", "message"}, "SOMETHING_NEW", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			httpx.Error(w, httptest.NewRequest("GET", "/api/x", nil), tc.err)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Fatalf("content type %q", ct)
			}
			if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
				t.Fatalf("cache control %q", cc)
			}
			e := errorJSON(t, w)
			if got := sortedKeys(e); !slices.Equal(got, tc.keys) {
				t.Fatalf("error keys %v, want %v: %s", got, tc.keys, w.Body)
			}
			if code, _ := e["code"].(string); code != tc.code {
				t.Fatalf("code %q, want %q", code, tc.code)
			}
			if m, _ := e["message"].(string); m == "" {
				t.Fatal("no message")
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Fatalf("Retry-After %q, want %q", got, tc.retryAfter)
			}
		})
	}

	t.Run("ValidationDetailsShape", func(t *testing.T) {
		w := httptest.NewRecorder()
		httpx.Error(w, httptest.NewRequest("GET", "/", nil), apperr.Fields(details))
		e := errorJSON(t, w)
		d, _ := e["details"].([]any)
		if len(d) != 1 || d[0].(map[string]any)["field"] != "entryPrice" || d[0].(map[string]any)["message"] != "must be positive" {
			t.Fatalf("details %v", e["details"])
		}
		if e["message"] != "entryPrice must be positive" {
			t.Fatalf("message %v", e["message"])
		}
	})
}

func TestErrorInternalHidesCause(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	cause := errors.New(`pq: password authentication failed for user "tj" at 10.0.0.7 (SELECT secret FROM vault)`)
	h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpx.Error(w, r, fmt.Errorf("load: %w", cause))
	}), log, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/api/x", nil))

	if w.Code != 500 {
		t.Fatalf("status %d", w.Code)
	}
	e := errorJSON(t, w)
	if got := sortedKeys(e); !slices.Equal(got, []string{"code", "message"}) {
		t.Fatalf("keys %v", got)
	}
	for _, leak := range []string{"pq", "password", "secret", "SELECT", "10.0.0.7", "load"} {
		if strings.Contains(w.Body.String(), leak) {
			t.Fatalf("body leaks %q: %s", leak, w.Body)
		}
	}
	if !strings.Contains(logs.String(), "password authentication failed") {
		t.Fatalf("cause not logged: %s", logs.String())
	}
	if id := w.Header().Get("X-Request-Id"); id == "" || !strings.Contains(logs.String(), id) {
		t.Fatalf("log lacks the request id %q", id)
	}
}

func TestJSONAndNoContent(t *testing.T) {
	w := httptest.NewRecorder()
	httpx.JSON(w, 201, map[string]string{"a": "b"})
	if w.Code != 201 || w.Body.String() != "{\"a\":\"b\"}\n" || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("%d %q %v", w.Code, w.Body, w.Header())
	}
	w = httptest.NewRecorder()
	httpx.JSON(w, 200, map[string]any{"f": func() {}}) // cannot be encoded
	if w.Code != 500 || strings.Contains(w.Body.String(), "func") {
		t.Fatalf("unencodable value: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	httpx.NoContent(w)
	if w.Code != 204 || w.Body.Len() != 0 {
		t.Fatalf("%d %q", w.Code, w.Body)
	}
}
