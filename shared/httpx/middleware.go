package httpx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"tradejournal/shared/db"
)

// Recorder wraps the ResponseWriter of one request so that the outermost
// middleware learns what happened inside: the status, when the headers went
// out, and the route label the matched route recorded.
type Recorder struct {
	http.ResponseWriter
	Status int
	// Route is the metrics label of the innermost route or mount that
	// matched; "unmatched" until one does.
	Route string
	// HeaderAt is when the status line and headers were written, for the
	// observer's latency; zero when Serve has no observer, so a host
	// without metrics does not pay for the clock read.
	HeaderAt time.Time
	timed    bool
}

// WriteHeader records the status and, when observed, the moment headers
// were flushed.
func (rec *Recorder) WriteHeader(status int) {
	if rec.Status == 0 {
		rec.Status = status
		if rec.timed {
			rec.HeaderAt = time.Now()
		}
	}
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *Recorder) Write(p []byte) (int, error) {
	if rec.Status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	return rec.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (rec *Recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

var recorders = sync.Pool{New: func() any { return new(Recorder) }}

type ctxKey int

const requestKey ctxKey = iota

// requestLog is what a request's context carries for Logger: the process
// logger and the request id. The child logger is built only when a handler
// logs, so a request that logs nothing but the access line pays nothing
// for it (a slog.Logger.With pre-formats its attributes).
type requestLog struct {
	log *slog.Logger
	id  string
	rec *Recorder
	// proxies are the peers whose forwarding headers ClientIP believes
	// (TrustProxies); nil: loopback only.
	proxies *Proxies
	// retry is where a read stands with its retries after a lost
	// database connection.
	retry retryState
}

type retryState uint8

// readRuns is how many times a read that keeps losing its database
// connection runs. Killing the backends (pg_terminate_backend over
// pg_stat_activity, a proxy's failover) signals them one after another: a
// retry's connection, pinged alive, can be the next one signalled. The
// last run waits lastRunPause first, for such a sweep to end.
const (
	readRuns     = 3
	lastRunPause = 100 * time.Millisecond
)

// pause waits d, or less when ctx ends (false then: the client left).
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

const (
	noRetry     retryState = iota // not a read, or in its last run
	mayRetry                      // a read's run before its last
	retryWanted                   // its run lost its connection and wrote nothing
)

// retryRead is Error's question for a read that lost its database
// connection: true (and the error is not written) when the request may
// run again, which Serve then does.
func retryRead(ctx context.Context) bool {
	l, ok := ctx.Value(requestKey).(*requestLog)
	if !ok || l.retry != mayRetry || l.rec.Status != 0 || ctx.Err() != nil { // a client that left gets no second run
		return false
	}
	l.retry = retryWanted
	return true
}

// Logger returns the request's logger (carrying its request id), or the
// default logger outside a request.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(requestKey).(*requestLog); ok {
		return l.log.With("request_id", l.id)
	}
	return slog.Default()
}

// Observer is told about every finished request (the metrics collector).
type Observer func(r *http.Request, rec *Recorder, start time.Time)

// Serve is the outermost middleware of both hosts: a request id (taken from
// a well-formed X-Request-Id or made), a logger carrying it, panic recovery
// to a bare 500 whose stack is logged and never sent, and the observer.
func Serve(next http.Handler, log *slog.Logger, observe Observer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := recorders.Get().(*Recorder)
		*rec = Recorder{ResponseWriter: w, Route: "unmatched", timed: observe != nil}
		defer recorders.Put(rec)

		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		rec.Header().Set("X-Request-Id", id)
		rl := &requestLog{log: log, id: id, rec: rec}
		var header http.Header
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			rl.retry, header = mayRetry, rec.Header().Clone()
		}
		r = r.WithContext(context.WithValue(r.Context(), requestKey, rl))

		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("panic", "request_id", id, "method", r.Method, "route", rec.Route, "panic", p, "stack", string(debug.Stack()))
				if rec.Status == 0 {
					writeJSON(rec, http.StatusInternalServerError, errorBody{Error: errorPayload{Code: "INTERNAL", Message: "internal error"}})
				}
			}
			if rec.Status == 0 {
				rec.WriteHeader(http.StatusOK)
			}
			log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("request_id", id),
				slog.String("method", r.Method), slog.String("route", rec.Route),
				slog.Int("status", rec.Status), slog.Duration("duration", time.Since(start)))
			if observe != nil {
				observe(r, rec, start)
			}
		}()
		next.ServeHTTP(rec, r)
		for run := 2; rl.retry == retryWanted; run++ {
			// A read that lost its database connection (a restart killed
			// the pool's connections) runs again on fresh ones, from the
			// headers it started with; a loss in its last run is a 503.
			rl.retry = mayRetry
			if run == readRuns {
				rl.retry = noRetry
			}
			if run > 2 && !pause(r.Context(), lastRunPause) {
				Error(rec, r, db.ErrUnavailable) // the client left while it waited
				break
			}
			h := rec.Header()
			clear(h)
			maps.Copy(h, header)
			next.ServeHTTP(rec, r.WithContext(db.FreshConns(r.Context())))
		}
	})
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
