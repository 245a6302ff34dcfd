package httpx

import (
	"fmt"
	"net/http"

	"tradejournal/shared/apperr"
)

// Split-origin CORS answers. Preflights may ask for the methods the route
// table uses and the two request headers the SPA sends; responses expose
// the headers a client may act on (request id, rate-limit wait).
const (
	corsAllowMethods  = "GET, POST, PUT, PATCH, DELETE"
	corsAllowHeaders  = "Content-Type, X-Request-Id"
	corsExposeHeaders = "X-Request-Id, Retry-After"
	corsMaxAge        = "600"
)

// WebhookPattern is the payment processor's webhook: called server to
// server with its own signature, so it is exempt from the anti-CSRF check.
const WebhookPattern = "POST /api/billing/webhook"

// CORS returns the global middleware of split-origin mode
// (CORS_ALLOWED_ORIGINS set; spec part 5 item 2). It is used only in that
// mode; without it the api is same-origin and sends no Access-Control-*
// header at all.
//
//   - A request whose Origin is one of origins gets that origin echoed in
//     Access-Control-Allow-Origin with Access-Control-Allow-Credentials:
//     true. Every response carries Vary: Origin.
//   - A CORS preflight (OPTIONS with Origin and Access-Control-Request-Method)
//     is answered here with 204: with the allowed methods and headers for a
//     listed origin, with no CORS header at all for any other origin.
//   - Unsafe methods go through http.CrossOriginProtection, which trusts the
//     listed origins and refuses other cross-origin browser requests with
//     403 CSRF_REJECTED. Same-origin requests and requests without Origin
//     or Sec-Fetch-Site (non-browser clients) pass. The payment webhook is
//     exempt.
//
// The middleware sits inside httpx.Serve and before the router, so its own
// answers (preflights, rejections) carry the route label "unmatched".
// origins must be exact, as the config package normalises them; a
// malformed one is an error.
func CORS(origins []string) (func(http.Handler) http.Handler, error) {
	allowed := make(map[string]bool, len(origins))
	csrf := http.NewCrossOriginProtection()
	for _, o := range origins {
		if err := csrf.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("split-origin: %w", err)
		}
		allowed[o] = true
	}
	csrf.AddInsecureBypassPattern(WebhookPattern)
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Error(w, r, apperr.New(apperr.CSRFRejected, "cross-origin request refused"))
	}))
	return func(next http.Handler) http.Handler {
		protected := csrf.Handler(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Add("Vary", "Origin")
			origin := r.Header.Get("Origin")
			listed := origin != "" && allowed[origin]
			if r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != "" {
				if listed {
					h.Set("Access-Control-Allow-Origin", origin)
					h.Set("Access-Control-Allow-Credentials", "true")
					h.Set("Access-Control-Allow-Methods", corsAllowMethods)
					h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
					h.Set("Access-Control-Max-Age", corsMaxAge)
				}
				w.WriteHeader(http.StatusNoContent)
				return
			}
			if listed {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
				h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
			}
			protected.ServeHTTP(w, r)
		})
	}, nil
}
