package main

// The built SPA (web/dist), served by the local host itself as the mux's
// fallback, so `make run` gives a working web app without nginx. The web
// container (web/docker) does the same in production: the files, an SPA
// fallback to index.html, /config.js with the public settings, and the
// same security headers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"tradejournal/shared/buildinfo"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
)

// defaultWebDist is where `make run` builds the SPA, relative to the
// working directory (the repository root).
const defaultWebDist = "web/dist"

// webDistDir is the directory of the built SPA: WEB_DIST_DIR, which must
// hold an index.html, or ./web/dist when it has one, or "" (api only).
func webDistDir(getenv func(string) string) (string, error) {
	if dir := strings.TrimSpace(getenv("WEB_DIST_DIR")); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
			return "", fmt.Errorf("WEB_DIST_DIR %q holds no index.html (build the SPA with `cd web && npm ci && npm run build`)", dir)
		}
		return dir, nil
	}
	if _, err := os.Stat(filepath.Join(defaultWebDist, "index.html")); err == nil {
		return defaultWebDist, nil
	}
	return "", nil
}

// publicWebConfig is /config.js: the values the page may know, never a
// secret. The keys match web/docker/start.sh and web/src/config.ts.
type publicWebConfig struct {
	NewsletterURL           string `json:"newsletterUrl"`
	AnalyticsPublicKey      string `json:"analyticsPublicKey"`
	AnalyticsHost           string `json:"analyticsHost"`
	AnalyticsFeedbackSurvey string `json:"analyticsFeedbackSurvey"`
	Version                 string `json:"version"`
}

func publicConfigOf(cfg config.Config) publicWebConfig {
	version, _ := buildinfo.Labels(cfg.AppVersion)
	return publicWebConfig{
		NewsletterURL:           cfg.Web.NewsletterURL,
		AnalyticsPublicKey:      cfg.Analytics.PublicKey,
		AnalyticsHost:           strings.TrimRight(cfg.Analytics.Host, "/"),
		AnalyticsFeedbackSurvey: cfg.Analytics.PublicFeedbackSurvey,
		Version:                 version,
	}
}

// configJS renders /config.js; encoding/json escapes <, > and & too.
func configJS(p publicWebConfig) []byte {
	b, _ := json.Marshal(p)
	return []byte("// Written by cmd/local at start. Public values only.\nwindow.__TRADEJOURNAL_CONFIG__ = Object.freeze(" + string(b) + ");\n")
}

// contentSecurityPolicy is the SPA's policy (as in web/docker's nginx): no
// inline or foreign script; the analytics host may be reached only when
// the public key is set.
func contentSecurityPolicy(p publicWebConfig) string {
	connect := "'self'"
	if p.AnalyticsPublicKey != "" && p.AnalyticsHost != "" {
		connect += " " + p.AnalyticsHost
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"font-src 'self'; connect-src " + connect + "; worker-src 'self' blob:; object-src 'none'; base-uri 'self'; " +
		"form-action 'self'; frame-ancestors 'none'"
}

// webHandler serves the SPA found by webDistDir, or returns nil when there
// is none (the mux then answers its JSON 404 for every other path).
func webHandler(cfg config.Config, getenv func(string) string, log *slog.Logger) (http.Handler, error) {
	dir, err := webDistDir(getenv)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		log.Info("no built web app (web/dist): serving the api only; `make run` builds it when npm is installed")
		return nil, nil
	}
	log.Info("serving the web app", "dir", dir)
	return newSPA(os.DirFS(dir), publicConfigOf(cfg), time.Now()), nil
}

type spa struct {
	files    fs.FS
	configJS []byte
	csp      string
	started  time.Time
}

func newSPA(files fs.FS, p publicWebConfig, started time.Time) *spa {
	return &spa{files: files, configJS: configJS(p), csp: contentSecurityPolicy(p), started: started}
}

func (s *spa) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := path.Clean("/" + r.URL.Path)
	// The api's paths keep the api's 404, and the api never serves
	// /metrics on this port.
	if p == "/api" || strings.HasPrefix(p, "/api/") || p == "/metrics" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		httpx.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", s.csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if p == "/config.js" {
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Type", "application/javascript")
		http.ServeContent(w, r, "config.js", s.started, bytes.NewReader(s.configJS))
		return
	}
	name := strings.TrimPrefix(p, "/")
	if strings.HasPrefix(p, "/assets/") {
		// Hashed names never change: cached for a year; a missing one is a
		// 404, never index.html.
		if s.serveFile(w, r, name, "public, max-age=31536000, immutable") {
			return
		}
		h.Del("Content-Security-Policy")
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	if name == "manifest.webmanifest" { // Go's table of types lacks it
		h.Set("Content-Type", "application/manifest+json")
	}
	if name != "" && name != "index.html" && s.serveFile(w, r, name, "no-cache") {
		return
	}
	// Every other path is a screen of the SPA.
	if !s.serveFile(w, r, "index.html", "no-cache") {
		http.Error(w, "index.html is missing from the web app", http.StatusInternalServerError)
	}
}

// serveFile serves a regular file of the SPA, reporting false when there
// is none by that name.
func (s *spa) serveFile(w http.ResponseWriter, r *http.Request, name, cacheControl string) bool {
	f, err := s.files.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	rs, ok := f.(interface {
		Read([]byte) (int, error)
		Seek(int64, int) (int64, error)
	})
	if !ok {
		return false
	}
	w.Header().Set("Cache-Control", cacheControl)
	http.ServeContent(w, r, info.Name(), info.ModTime(), rs)
	return true
}
