package metrics

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"tradejournal/shared/httpx"
)

// ContentType is the exposition's content type, set verbatim. The client
// library's own negotiation would append "; escaping=underscores" (and
// could pick OpenMetrics), which the spec does not allow, so the handler
// encodes the text format itself.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler is the whole metrics listener: GET /metrics answers the text
// exposition; every other path and every other method (HEAD included) is
// the documented 404. No application route is reachable through it, and it
// is not observed by the request metrics.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/metrics" {
			httpx.NotFound(w, r)
			return
		}
		body := m.Exposition()
		h := w.Header()
		h.Set("Content-Type", ContentType)
		h.Set("Cache-Control", "no-store")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// Exposition gathers every collector (running the database probe, or
// joining the one in flight) and encodes the result in the text format
// 0.0.4. The whole body is built in memory first, so a failure can still
// answer cleanly: it is logged at error and the exposition is empty.
func (m *Metrics) Exposition() []byte {
	families, err := m.reg.Gather()
	if err != nil {
		m.log.Error("metrics: gathering failed; serving an empty exposition", "err", err)
		return nil
	}
	var buf bytes.Buffer
	buf.Grow(int(m.lastSize.Load() * 9 / 8)) // one allocation instead of a growth series
	for _, mf := range families {
		if _, err := m.encode(&buf, mf); err != nil {
			m.log.Error("metrics: serialisation failed; serving an empty exposition", "family", mf.GetName(), "err", err)
			return nil
		}
	}
	m.lastSize.Store(int64(buf.Len()))
	return buf.Bytes()
}

// Listener is the running metrics listener.
type Listener struct {
	srv  *http.Server
	addr net.Addr
	done chan struct{}
}

// Listen opens the metrics listener on addr (METRICS_HOST:METRICS_PORT) and
// serves Handler on it. A listener that cannot be opened (the port is in
// use) is not fatal: it is logged at error, Listen returns nil and the api
// keeps serving without metrics.
func (m *Metrics) Listen(addr string) *Listener {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		m.log.Error("metrics: cannot open the listener; the api keeps serving without it", "addr", addr, "err", err)
		return nil
	}
	l := &Listener{
		srv: &http.Server{
			Handler:           m.Handler(),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		},
		addr: ln.Addr(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(l.done)
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.log.Error("metrics: listener stopped", "addr", l.addr.String(), "err", err)
		}
	}()
	m.log.Info("metrics listening", "addr", l.addr.String())
	return l
}

// Addr is the address the listener is bound to.
func (l *Listener) Addr() net.Addr { return l.addr }

// Shutdown closes the listener, letting a scrape in progress finish within
// ctx. It is safe on a nil Listener (one that failed to open).
func (l *Listener) Shutdown(ctx context.Context) error {
	if l == nil {
		return nil
	}
	err := l.srv.Shutdown(ctx)
	<-l.done
	return err
}
