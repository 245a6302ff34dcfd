package httpx

import (
	"log/slog"
	"mime"
	"net/http"
	"time"
)

// Timeouts bound how long one request may hold a connection of the
// listener, per kind of request, so a client that sends its body slowly
// (or never) cannot keep a goroutine and a connection forever, and the
// longest legitimate request still fits.
type Timeouts struct {
	// Header is the time to read a request's line and headers.
	Header time.Duration
	// Body is the time to read a JSON (or any non-multipart) body.
	Body time.Duration
	// Upload is the time to read a multipart body (a CSV import, an
	// image): the web proxy allows CSV_IMPORT_WEB_PROXY_TIMEOUT (300 s).
	Upload time.Duration
	// Response is the time to write the answer after the body deadline.
	Response time.Duration
	// Idle is how long a kept-alive connection waits for its next request.
	Idle time.Duration
}

// DefaultTimeouts are the api listener's.
func DefaultTimeouts() Timeouts {
	return Timeouts{
		Header:   10 * time.Second,
		Body:     30 * time.Second,
		Upload:   300 * time.Second,
		Response: 60 * time.Second,
		Idle:     2 * time.Minute,
	}
}

// Server returns the listener's server for h. The body and write deadlines
// are set per request (http.ResponseController), not as the server's
// ReadTimeout and WriteTimeout, which would have to allow the longest
// upload to every request; a streaming group's routes extend the write
// deadline to StreamTimeout (Mux).
func (t Timeouts) Server(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           t.deadlines(h),
		ReadHeaderTimeout: t.Header,
		IdleTimeout:       t.Idle,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// deadlines sets the request's body read deadline (Body, or Upload for a
// multipart body) and its write deadline (that plus Response). A body not
// read in time fails its reader with os.ErrDeadlineExceeded, which Error
// answers with 408 REQUEST_TIMEOUT.
func (t Timeouts) deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		read := t.Body
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
			read = t.Upload
		}
		now := time.Now()
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(now.Add(read)) // unsupported only by a writer without a connection
		_ = rc.SetWriteDeadline(now.Add(read + t.Response))
		next.ServeHTTP(w, r)
	})
}

// StreamTimeout is the write deadline of a streaming group's request (the
// assistant's turn: its 480 s wall-clock budget, then the closing events).
const StreamTimeout = 540 * time.Second

// streaming extends the write deadline of a streaming group's requests.
func streaming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(StreamTimeout))
		next.ServeHTTP(w, r)
	})
}
