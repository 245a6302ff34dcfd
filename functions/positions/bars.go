package positions

import (
	"io"
	"mime"
	"net/http"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
	"tradejournal/shared/ratelimit"
	"tradejournal/shared/tradebars"
)

var (
	errBarsMedia = apperr.New(apperr.UnsupportedMedia, "send the bars file as text/csv")
	errBarsSize  = apperr.New(apperr.PayloadTooLarge, "a bars file may be at most %d bytes (8 MiB): upload a shorter span or a coarser resolution", market.MaxUploadBytes)
)

// uploadLimit bounds a user's bars uploads: each parses up to 8 MiB and
// writes up to 100,000 rows.
var uploadLimit = ratelimit.Limit{Name: "bars-upload", N: 30, Per: time.Hour}

type uploadResponse struct {
	Upload market.Upload `json:"upload"`
}

// barsSymbol reads the user's position and the symbol its bars are kept
// under (tradebars.Instrument: an option's are its underlying's).
func (h handler) barsSymbol(r *http.Request) (journalstore.Position, string, error) {
	ctx := r.Context()
	p, err := h.journal.Position(ctx, auth.CurrentUser(ctx).ID, r.PathValue("positionId"))
	if err != nil {
		return p, "", err
	}
	_, symbol, ok := tradebars.Instrument(p.Summary)
	if !ok {
		return p, "", tradebars.ErrNoBars
	}
	return p, symbol, nil
}

// uploadBars replaces the user's bars of the position's symbol with the
// CSV body (market.ParseBarsCSV): times without a zone are read in the
// timezone query parameter, by default the user's.
func (h handler) uploadBars(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	u := auth.CurrentUser(ctx)
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "text/csv" && mt != "text/plain" && mt != "application/csv" {
		httpx.Error(w, r, errBarsMedia)
		return
	}
	zone := u.Timezone
	if q := r.URL.Query(); q.Has("timezone") {
		zone = q.Get("timezone")
	}
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" || zone == "Local" {
		httpx.Error(w, r, apperr.Invalid("timezone", "must be an IANA time zone such as America/New_York"))
		return
	}
	_, symbol, err := h.barsSymbol(r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, market.MaxUploadBytes))
	if err != nil {
		httpx.Error(w, r, errBarsSize)
		return
	}
	bars, step, err := market.ParseBarsCSV(raw, loc)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	up, err := h.journal.SaveBarUpload(ctx, u.ID, symbol, bars, step, h.app.Now())
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusOK, uploadResponse{up})
}

// deleteBars deletes the user's uploaded bars of the position's symbol and
// the excursions measured from them.
func (h handler) deleteBars(w http.ResponseWriter, r *http.Request) {
	_, symbol, err := h.barsSymbol(r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	ctx := r.Context()
	if err := h.journal.DeleteBarUpload(ctx, auth.CurrentUser(ctx).ID, symbol); err != nil {
		httpx.Error(w, r, err)
		return
	}
	httpx.NoContent(w)
}
