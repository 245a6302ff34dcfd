// Package lambdahost is the one adapter between a route group and AWS Lambda:
// API Gateway HTTP API (payload v2) for every group, and a Lambda Function
// URL with response streaming for a group that streams (httpx.Group's
// Streaming). Only this package and the lambda mains import aws-lambda-go.
package lambdahost

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambdaurl"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"tradejournal/shared/app"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
)

// EventHandler is the Lambda handler signature for HTTP API v2 events.
type EventHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Handler adapts h to Lambda. ProxyWithContext hands the invocation's
// deadline to the handler's request context.
func Handler(h http.Handler) EventHandler {
	return httpadapter.NewV2(h).ProxyWithContext
}

// analyticsFlushTimeout bounds the analytics send at the end of an
// invocation (the invocation's own deadline bounds it too).
const analyticsFlushTimeout = 2 * time.Second

// AppHandler is what Start serves: group g behind a's shared middleware.
// With analytics on, the events an invocation queued are sent before it
// returns, within analyticsFlushTimeout: Lambda freezes the process between
// invocations, so a background send could wait indefinitely or die with the
// instance. A send that fails or runs out of time loses those events (logged
// as a warning); invocations that queued nothing make no call.
func AppHandler(a *app.App, g httpx.Group) EventHandler {
	h := Handler(a.Serve(g.Handler()))
	if a.Analytics == nil {
		return h
	}
	return func(ctx context.Context, ev events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		res, err := h(ctx, ev)
		flushCtx, cancel := context.WithTimeout(ctx, analyticsFlushTimeout)
		defer cancel()
		if ferr := a.Analytics.Flush(flushCtx); ferr != nil {
			a.Log.Warn("analytics events of this invocation not sent in time; dropped", "err", ferr)
		}
		return res, err
	}
}

// StreamingEventHandler is the Lambda handler signature of a Function URL
// in RESPONSE_STREAM mode: the body is read from the response as the
// handler writes it.
type StreamingEventHandler func(context.Context, *events.LambdaFunctionURLRequest) (*events.LambdaFunctionURLStreamingResponse, error)

// StreamingHandler adapts h to a Function URL with response streaming
// (aws-lambda-go's lambdaurl; the API Gateway adapter buffers a response
// whole). It restores two things lambdaurl leaves out: the request's
// cookies, which a Function URL event carries in its cookies field rather
// than its headers (without them no session would be found), and Flush:
// lambdaurl's writer is an unbuffered pipe, every Write is already on its
// way, so a no-op Flush lets http.ResponseController succeed.
func StreamingHandler(h http.Handler) StreamingEventHandler {
	return lambdaurl.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ev, ok := lambdaurl.RequestFromContext(r.Context()); ok && len(ev.Cookies) > 0 {
			r.Header.Set("Cookie", strings.Join(ev.Cookies, "; "))
		}
		h.ServeHTTP(unbuffered{w}, r)
	}))
}

// unbuffered marks lambdaurl's writer as one that needs no flushing.
type unbuffered struct{ http.ResponseWriter }

func (unbuffered) Flush() {}

// Unwrap lets http.ResponseController reach the writer underneath.
func (u unbuffered) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// Start builds the App from the environment at cold start, runs the start-up
// work (first-admin bootstrap; migrations are a deploy step, not a cold-start
// cost) and serves the one group on Lambda behind the HTTP API.
func Start(build func(*app.App) httpx.Group) {
	a := boot()
	lambda.Start(AppHandler(a, build(a)))
}

// StartStreaming is Start for a streaming group: it serves the group
// through its Function URL with response streaming.
func StartStreaming(build func(*app.App) httpx.Group) {
	a := boot()
	lambda.Start(StreamingHandler(a.Serve(build(a).Handler())))
}

// boot builds the App of a cold start, or exits.
func boot() *app.App {
	cfg, err := config.Load()
	if err != nil {
		slog.Error("configuration", "err", err)
		os.Exit(1)
	}
	log := app.NewLogger(cfg.LogLevel)
	ctx := context.Background()
	a, err := app.New(ctx, cfg, log, app.SystemClock)
	if err != nil {
		log.Error("start", "err", err)
		os.Exit(1)
	}
	if err := a.Start(ctx); err != nil {
		log.Warn("start-up work failed; continuing", "err", err)
	}
	return a
}
