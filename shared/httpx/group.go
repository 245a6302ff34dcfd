package httpx

import (
	"net/http"
	"strings"
)

// Route is one entry of a group's route table: a full ServeMux pattern with
// its method ("GET /api/positions/{positionId}") and the handler. Full paths,
// never StripPrefix, so Request.Pattern is the same in every host.
type Route struct {
	Pattern string
	Handler http.HandlerFunc
}

// Group is one route group: what one Lambda function serves, and one part of
// the local host's mux.
type Group struct {
	Name string
	// Mounts are the path prefixes ("/api/auth/") or exact paths
	// ("/api/calculator") under which the host sends requests to this group.
	Mounts []string
	Routes []Route
	// Streaming marks a group that streams its answers (server-sent
	// events). The function platform serves it through a Lambda Function URL
	// with response streaming (lambdahost.StartStreaming) instead of the
	// HTTP API, whose adapter buffers a response whole.
	Streaming bool
	// MemoryMB, when set, is the memory the function platform gives the
	// group's function instead of the template's default; a Lambda
	// function's CPU share grows with it (1769 MB is one vCPU), so a group
	// whose answers cost CPU time asks for what its benchmark needs.
	MemoryMB int
	// Guard, when set, runs before route dispatch for every request of the
	// group (the admin group's admin check). When it answers, the metrics
	// route label is the mount wildcard "<mount>/*".
	Guard func(http.Handler) http.Handler
}

// Handler returns the group's own handler: its routes on a ServeMux whose
// unmatched requests get the documented 404, behind the guard if any.
func (g Group) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range g.Routes {
		mux.Handle(rt.Pattern, labelled(RouteLabel(rt.Pattern), rt.Handler))
	}
	// A request the mount let in but no route matched is "unmatched" (spec
	// route class 3), not the mount's wildcard, which is kept for a guard
	// that answers before dispatch.
	mux.Handle("/", labelled(RouteLabel("/"), http.HandlerFunc(NotFound)))
	if g.Guard != nil {
		return g.Guard(mux)
	}
	return mux
}

// Mux mounts every group on one ServeMux: the local host's router. Anything
// no group mounts falls through to fallback (the SPA in cmd/local, or the
// documented 404).
func Mux(groups []Group, fallback http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	for _, g := range groups {
		h := g.Handler()
		if g.Streaming {
			h = streaming(h)
		}
		for _, m := range g.Mounts {
			mux.Handle(m, labelled(RouteLabel(m), h))
		}
	}
	if fallback == nil {
		fallback = http.HandlerFunc(NotFound)
	}
	mux.Handle("/", fallback)
	return mux
}

// labelled records the route label (computed once, at start) on the
// response recorder before calling h. A route inside a mount overwrites the
// mount's wildcard, so the label names the innermost match even when a
// middleware copied the request with WithContext.
func labelled(label string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec, ok := w.(*Recorder); ok {
			rec.Route = label
		}
		h.ServeHTTP(w, r)
	})
}

// RouteLabel turns a registered pattern into the spec's form:
// "GET /api/positions/{positionId}" becomes "/api/positions/:positionId";
// a mount prefix "/api/admin/" becomes the wildcard "/api/admin/*"; the
// catch-all "/" and no pattern at all are "unmatched".
func RouteLabel(pattern string) string {
	if pattern == "" || pattern == "/" {
		return "unmatched"
	}
	method, path, found := strings.Cut(pattern, " ")
	if !found {
		path, method = method, ""
	}
	if method == "" {
		return strings.TrimSuffix(path, "/") + "/*"
	}
	var b strings.Builder
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('/')
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			b.WriteByte(':')
			seg = strings.TrimSuffix(strings.TrimSuffix(seg[1:len(seg)-1], "..."), "}")
		}
		b.WriteString(seg)
	}
	return b.String()
}
