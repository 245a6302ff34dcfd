package httpx_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"tradejournal/shared/httpx"
)

// A read whose database connection died (a restart) runs again, up to
// three runs, and answers as if nothing happened; a write, or a read that
// loses its connection in every run, is a 503, never a 500; headers of the
// failed runs are not sent.
func TestServeRetriesAReadThatLostItsConnection(t *testing.T) {
	dead := fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF)
	for _, tc := range []struct {
		name     string
		method   string
		failures int
		status   int
		runs     int
	}{
		{"ReadRecovers", "GET", 1, 200, 2},
		{"HeadRecovers", "HEAD", 1, 200, 2},
		{"ReadFailsTwice", "GET", 2, 200, 3},
		{"ReadFailsThrice", "GET", 3, 503, 3},
		{"WriteIsNotRetried", "POST", 1, 503, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			h := httpx.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				runs++
				w.Header().Set("X-Attempt", fmt.Sprint(runs))
				if runs <= tc.failures {
					httpx.Error(w, r, dead)
					return
				}
				httpx.JSON(w, http.StatusOK, map[string]int{"runs": runs})
			}), slog.New(slog.DiscardHandler), nil)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tc.method, "/api/x", nil))
			if w.Code != tc.status || runs != tc.runs {
				t.Fatalf("status %d after %d runs, want %d after %d: %s", w.Code, runs, tc.status, tc.runs, w.Body)
			}
			if tc.status == 503 {
				if code := errorJSON(t, w)["code"]; code != "SERVICE_UNAVAILABLE" {
					t.Fatalf("code %v", code)
				}
			}
			if got := w.Header().Values("X-Attempt"); len(got) != 1 || got[0] != fmt.Sprint(runs) {
				t.Fatalf("X-Attempt %v after %d runs", got, runs)
			}
			if w.Header().Get("X-Request-Id") == "" {
				t.Fatal("request id lost")
			}
		})
	}
}

// A value PostgreSQL refuses (SQLSTATE class 22) that reaches Error
// unclassified is the client's 400, not a 500.
func TestErrorDataExceptionIsValidation(t *testing.T) {
	for _, code := range []string{"22008", "22007", "22003", "22P02", "22009"} {
		t.Run(code, func(t *testing.T) {
			w := httptest.NewRecorder()
			err := fmt.Errorf("list: %w", &pgconn.PgError{Code: code, Severity: "ERROR", Message: "date/time field value out of range: \"0000-01-01\""})
			httpx.Error(w, httptest.NewRequest("GET", "/api/x", nil), err)
			if w.Code != 400 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			e := errorJSON(t, w)
			if e["code"] != "VALIDATION_ERROR" || fmt.Sprint(e["message"]) == "" {
				t.Fatalf("body %s", w.Body)
			}
			if body := w.Body.String(); strings.Contains(body, "0000") || strings.Contains(body, "SQLSTATE") {
				t.Fatalf("database text leaked: %s", body)
			}
		})
	}
}
