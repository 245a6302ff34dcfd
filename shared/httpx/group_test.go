package httpx_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/httpx"
)

func TestRouteLabel(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"GET /api/positions/{positionId}", "/api/positions/:positionId"},
		{"PATCH /api/positions/{positionId}/fills/{fillId}", "/api/positions/:positionId/fills/:fillId"},
		{"POST /api/calculator", "/api/calculator"},
		{"GET /api/health", "/api/health"},
		{"GET /api/files/{path...}", "/api/files/:path"},
		{"/api/admin/", "/api/admin/*"},
		{"/api/health", "/api/health/*"},
		{"/", "unmatched"},
		{"", "unmatched"},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			if got := httpx.RouteLabel(tc.pattern); got != tc.want {
				t.Fatalf("RouteLabel(%q) = %q, want %q", tc.pattern, got, tc.want)
			}
		})
	}
}

type ctxMark struct{}

// fakeGroup has a guard (which, like the session check, answers 401 or
// passes a copied request on) and routes with and without wildcards.
func fakeGroup() httpx.Group {
	return httpx.Group{
		Name:   "x",
		Mounts: []string{"/api/x/"},
		Guard: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Let-In") != "yes" {
					httpx.Error(w, r, apperr.New(apperr.Unauthenticated, "sign in"))
					return
				}
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxMark{}, true)))
			})
		},
		Routes: []httpx.Route{
			{Pattern: "GET /api/x/items/{itemId}", Handler: func(w http.ResponseWriter, r *http.Request) {
				if r.PathValue("itemId") == "missing" {
					httpx.NotFound(w, r)
					return
				}
				httpx.JSON(w, 200, map[string]string{"id": r.PathValue("itemId")})
			}},
			{Pattern: "POST /api/x/items", Handler: func(w http.ResponseWriter, r *http.Request) { httpx.NoContent(w) }},
		},
	}
}

func openGroup() httpx.Group {
	return httpx.Group{
		Name:   "y",
		Mounts: []string{"/api/y"},
		Routes: []httpx.Route{{Pattern: "GET /api/y", Handler: func(w http.ResponseWriter, r *http.Request) { httpx.JSON(w, 200, map[string]bool{"ok": true}) }}},
	}
}

func TestRecorderRoute(t *testing.T) {
	var route string
	var status int
	observe := func(r *http.Request, rec *httpx.Recorder, start time.Time) {
		route, status = rec.Route, rec.Status
		if rec.HeaderAt.Before(start) {
			t.Errorf("HeaderAt %v before start %v", rec.HeaderAt, start)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := httpx.Serve(httpx.Mux([]httpx.Group{fakeGroup(), openGroup()}, nil), log, observe)

	for _, tc := range []struct {
		name, method, path string
		letIn              bool
		status             int
		route              string
	}{
		{"GuardRejects", "GET", "/api/x/items/1", false, 401, "/api/x/*"},
		{"GuardRejectsUnknownPath", "GET", "/api/x/nope", false, 401, "/api/x/*"},
		{"Dispatched", "GET", "/api/x/items/1", true, 200, "/api/x/items/:itemId"},
		{"MatchedRouteNotFoundKeepsPattern", "GET", "/api/x/items/missing", true, 404, "/api/x/items/:itemId"},
		{"OtherRoute", "POST", "/api/x/items", true, 204, "/api/x/items"},
		{"UnknownPathInsideMount", "GET", "/api/x/nope", true, 404, "unmatched"},
		{"WrongMethodInsideMount", "DELETE", "/api/x/items/1", true, 404, "unmatched"},
		{"UnknownPath", "GET", "/api/nope", false, 404, "unmatched"},
		{"ExactMountRoute", "GET", "/api/y", false, 200, "/api/y"},
		{"ExactMountWrongMethod", "POST", "/api/y", false, 404, "unmatched"},
		{"ExactMountIsNotAPrefix", "GET", "/api/y/z", false, 404, "unmatched"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			route, status = "", 0
			r := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.letIn {
				r.Header.Set("X-Let-In", "yes")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status || status != tc.status {
				t.Fatalf("status %d (observed %d), want %d: %s", w.Code, status, tc.status, w.Body)
			}
			if route != tc.route {
				t.Fatalf("route %q, want %q", route, tc.route)
			}
		})
	}
}

func TestMuxFallback(t *testing.T) {
	spa := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "spa") })
	mux := httpx.Mux([]httpx.Group{fakeGroup()}, spa)
	for path, want := range map[string]string{"/": "spa", "/dashboard": "spa"} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		if w.Body.String() != want {
			t.Fatalf("%s: %q", path, w.Body)
		}
	}
	// A group's mount still wins over the fallback, and its own 404 stays JSON.
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/api/x/nope", nil)
	r.Header.Set("X-Let-In", "yes")
	mux.ServeHTTP(w, r)
	if w.Code != 404 || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}
