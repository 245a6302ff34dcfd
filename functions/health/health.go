// Package health answers GET /api/health: the build version and whether the
// database answers.
package health

import (
	"context"
	"net/http"
	"time"

	"tradejournal/shared/app"
	"tradejournal/shared/httpx"
)

// probeTimeout bounds the database check, so health never hangs.
const probeTimeout = 2 * time.Second

type response struct {
	Status   string `json:"status"`
	Version  string `json:"version,omitempty"`
	Database string `json:"database"`
}

// Group returns the health route group.
func Group(a *app.App) httpx.Group {
	return httpx.Group{
		Name:   "health",
		Mounts: []string{"/api/health"},
		Routes: []httpx.Route{{Pattern: "GET /api/health", Handler: func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
			defer cancel()
			res := response{Status: "ok", Version: a.Config.AppVersion, Database: "up"}
			if err := a.DB.Ping(ctx); err != nil {
				res.Status, res.Database = "degraded", "down"
			}
			httpx.JSON(w, http.StatusOK, res)
		}}},
	}
}
