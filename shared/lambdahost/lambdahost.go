// Package lambdahost is the one adapter between a route group and AWS Lambda
// (API Gateway HTTP API, payload v2). Only this package and the lambda mains
// import aws-lambda-go.
package lambdahost

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
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

// Start builds the App from the environment at cold start, runs the start-up
// work (first-admin bootstrap; migrations are a deploy step, not a cold-start
// cost) and serves the one group on Lambda.
func Start(build func(*app.App) httpx.Group) {
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
	lambda.Start(AppHandler(a, build(a)))
}
