// Package analytics sends a few deliberate product events to a
// PostHog-compatible ingestion host (POST {ANALYTICS_HOST}/batch/). It is on
// only when ANALYTICS_API_KEY is set; otherwise New returns nil, every
// method of a nil Client does nothing, and no goroutine or connection exists.
//
// What leaves, and what never does:
//   - The user is an opaque surrogate: HMAC-SHA256 of the user id under a key
//     derived from ANALYTICS_API_KEY. Neither the id nor the email is sent.
//   - Properties are chosen by the call sites to carry no trade data (no
//     symbols, amounts or prices), and every one passes the Redactor, which
//     masks secrets, emails and upload file names whatever a caller passed.
//   - ANALYTICS_ENVIRONMENT is stamped on every event as "environment".
//
// Events are queued (bounded: a full queue drops the event with a warning,
// never blocking the request) and sent in batches by one background
// goroutine: when a batch fills, every flushInterval, on Flush, and on
// Close. A failed send is logged and its events are dropped; analytics is
// best effort. The long-lived host closes the client at SIGTERM with a
// ShutdownTimeout bound; the Lambda host flushes at the end of every
// invocation that queued an event (see shared/lambdahost).
package analytics

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"tradejournal/shared/config"
)

// The events. Each is sent once its change is committed.
const (
	EventSignedUp        = "user signed up"   // POST /api/auth/register
	EventAccountCreated  = "account created"  // POST /api/accounts
	EventImportCommitted = "import committed" // POST /api/csv-import/commit
	EventCalculatorUsed  = "calculator used"  // POST /api/calculator, /api/calculator/forex and /cfd
	EventPackPurchased   = "pack purchased"   // a paid credit pack credited by the webhook
)

// Props are an event's properties.
type Props map[string]any

// Sending limits.
const (
	// ShutdownTimeout bounds the last flush when the process stops.
	ShutdownTimeout = 3 * time.Second
	queueSize       = 1000
	maxBatch        = 100
	flushInterval   = 10 * time.Second
	sendTimeout     = 10 * time.Second
	// surrogateLabel separates the surrogate key from any other use of the
	// analytics key.
	surrogateLabel = "tradejournal analytics user surrogate v1"
)

// Options are the client's collaborators; zero values take defaults.
type Options struct {
	// Secrets are the configuration's secret values (config.Config.Secrets);
	// the redaction guard masks each wherever it appears.
	Secrets []string
	Log     *slog.Logger
	Now     func() time.Time
	// HTTPClient sends the batches; nil means a plain client. Each send is
	// bounded by its own context in any case.
	HTTPClient *http.Client
}

// Client queues and sends events. A nil *Client is off: Capture, Flush and
// Close do nothing.
type Client struct {
	endpoint    string
	apiKey      string
	environment string
	surrogate   []byte
	redact      *Redactor
	http        *http.Client
	log         *slog.Logger
	now         func() time.Time

	queue   chan message
	flushes chan flushRequest
	stop    chan struct{} // closed by Close: drain, send, return
	done    chan struct{} // closed when the sender has returned
	base    context.Context
	abort   context.CancelFunc // ends an in-flight send when Close's bound runs out
	closing sync.Once
	closed  atomic.Bool
	dropped atomic.Int64
}

type message struct {
	Event      string         `json:"event"`
	DistinctID string         `json:"distinct_id"`
	Properties map[string]any `json:"properties"`
	Timestamp  time.Time      `json:"timestamp"`
}

type batchBody struct {
	APIKey string    `json:"api_key"`
	Batch  []message `json:"batch"`
}

type flushRequest struct {
	ctx  context.Context
	done chan struct{}
}

// New starts the client, or returns nil when cfg.APIKey is unset.
func New(cfg config.Analytics, opt Options) *Client {
	if cfg.APIKey == "" {
		return nil
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.HTTPClient == nil {
		opt.HTTPClient = &http.Client{}
	}
	mac := hmac.New(sha256.New, []byte(cfg.APIKey))
	mac.Write([]byte(surrogateLabel))
	base, abort := context.WithCancel(context.Background())
	c := &Client{
		endpoint:    strings.TrimRight(cfg.Host, "/") + "/batch/",
		apiKey:      cfg.APIKey,
		environment: cfg.Environment,
		surrogate:   mac.Sum(nil),
		redact:      NewRedactor(opt.Secrets),
		http:        opt.HTTPClient,
		log:         opt.Log,
		now:         opt.Now,
		queue:       make(chan message, queueSize),
		flushes:     make(chan flushRequest),
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
		base:        base,
		abort:       abort,
	}
	go c.run()
	return c
}

// Surrogate is the opaque id events carry for userID: stable for one
// ANALYTICS_API_KEY, and not reversible without the key and the id.
func (c *Client) Surrogate(userID string) string {
	mac := hmac.New(sha256.New, c.surrogate)
	mac.Write([]byte(userID))
	return hex.EncodeToString(mac.Sum(nil))
}

// Capture queues event for userID with props (redacted here). It never
// blocks: a full queue drops the event with a warning.
func (c *Client) Capture(userID, event string, props Props) {
	if c == nil || c.closed.Load() {
		return
	}
	p := c.redact.Props(props)
	if c.environment != "" {
		p["environment"] = c.redact.String(c.environment)
	}
	p["$lib"] = "tradejournal-api"
	m := message{Event: event, DistinctID: c.Surrogate(userID), Properties: p, Timestamp: c.now().UTC()}
	select {
	case c.queue <- m:
	default:
		if c.dropped.Add(1) == 1 {
			c.log.Warn("analytics queue full: dropping events until it drains", "capacity", queueSize)
		}
	}
}

// Flush sends every queued event now and returns when they are sent or ctx
// ends, whichever is first.
func (c *Client) Flush(ctx context.Context) error {
	if c == nil {
		return nil
	}
	req := flushRequest{ctx: ctx, done: make(chan struct{})}
	select {
	case c.flushes <- req:
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-req.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops taking events and sends what is queued, within
// ShutdownTimeout: against a host that hangs, it gives up, drops the rest
// with a warning, and returns context.DeadlineExceeded.
func (c *Client) Close() error {
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	c.closing.Do(func() { c.closed.Store(true); close(c.stop) })
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		c.abort()
		<-c.done
		c.log.Warn("analytics: the last flush did not finish in time; queued events dropped", "bound", ShutdownTimeout.String())
		return ctx.Err()
	}
}

// run is the sender: it gathers events into batches and sends them.
func (c *Client) run() {
	defer close(c.done)
	defer c.abort()
	tick := time.NewTicker(flushInterval)
	defer tick.Stop()
	var batch []message
	send := func(ctx context.Context) {
		if len(batch) > 0 {
			c.send(ctx, batch)
			batch = nil
		}
	}
	timed := func() {
		ctx, cancel := context.WithTimeout(c.base, sendTimeout)
		defer cancel()
		send(ctx)
	}
	for {
		select {
		case m := <-c.queue:
			if batch = append(batch, m); len(batch) >= maxBatch {
				timed()
			}
		case <-tick.C:
			timed()
		case req := <-c.flushes:
			ctx, cancel := context.WithCancel(c.base)
			stopAfter := context.AfterFunc(req.ctx, cancel)
			c.drain(&batch, func() { send(ctx) })
			send(ctx)
			stopAfter()
			cancel()
			close(req.done)
		case <-c.stop:
			c.drain(&batch, func() { send(c.base) })
			send(c.base)
			return
		}
	}
}

// drain moves every queued event into batch, sending full batches on the
// way.
func (c *Client) drain(batch *[]message, sendFull func()) {
	for {
		select {
		case m := <-c.queue:
			if *batch = append(*batch, m); len(*batch) >= maxBatch {
				sendFull()
			}
		default:
			return
		}
	}
}

// send posts one batch. Failures are logged without the body or the key and
// the batch is dropped.
func (c *Client) send(ctx context.Context, batch []message) {
	if n := c.dropped.Swap(0); n > 0 {
		c.log.Warn("analytics events dropped: the queue was full", "dropped", n)
	}
	body, err := json.Marshal(batchBody{APIKey: c.apiKey, Batch: batch})
	if err != nil {
		c.log.Warn("analytics batch not encodable; dropped", "events", len(batch), "err", err)
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		c.log.Warn("analytics batch not sent; dropped", "events", len(batch), "err", c.redact.String(err.Error()))
		return
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		c.log.Warn("analytics batch not sent; dropped", "events", len(batch), "err", c.redact.String(err.Error()))
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	_ = res.Body.Close()
	if res.StatusCode >= 300 {
		c.log.Warn("analytics host refused a batch; dropped", "events", len(batch), "status", res.StatusCode)
	}
}
