package positions

import (
	"net/http"
	"time"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
	"tradejournal/shared/instrument"
	"tradejournal/shared/journal"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/market"
	"tradejournal/shared/ratelimit"
)

// marketLimit bounds one user's market look-ups of positions (bars and
// unrealised P&L), cached answers included, as the symbols group bounds
// quotes: the provider's quota is the platform's.
var marketLimit = ratelimit.Limit{Name: "position-market", N: 60, Per: time.Minute}

type captionRequest struct {
	Caption *string `json:"caption"`
}

// updateImage changes an image's caption.
func (h handler) updateImage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id, imageID := auth.CurrentUser(ctx).ID, r.PathValue("positionId"), r.PathValue("imageId")
	if !db.ValidUUID(id) || !db.ValidUUID(imageID) {
		httpx.NotFound(w, r)
		return
	}
	var in captionRequest
	if err := httpx.Decode(w, r, &in); err != nil {
		httpx.Error(w, r, err)
		return
	}
	if in.Caption == nil {
		httpx.Error(w, r, apperr.Invalid("caption", "is required (an empty string clears it)"))
		return
	}
	if err := journal.Text("caption", *in.Caption, journal.MaxCaptionChars); err != nil {
		httpx.Error(w, r, err)
		return
	}
	const upd = `UPDATE position_images SET caption = $4 WHERE id = $1 AND position_id = $2 AND user_id = $3 RETURNING ` + imageColumns
	img, err := scanImage(h.app.DB.QueryRow(ctx, upd, imageID, id, userID,
		h.app.Keyring.Seal(encrypt.ImageCaptions, *in.Caption)), h.app.Keyring)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	httpx.JSON(w, http.StatusOK, imageEnvelope{img})
}

// errNotStock answers a market look-up of a position the provider has no
// prices for: options and futures (its plan quotes US stocks).
var errNotStock = &apperr.Error{Code: apperr.NotFound, Message: "prices are looked up for stocks only"}

// marketPosition reads the user's position for a quote look-up and the
// ticker to look up. Without a provider it is the codeless 404 of an
// absent route, before the position is read.
func (h handler) marketPosition(r *http.Request) (journalstore.Position, string, error) {
	if !h.quotes.Enabled() {
		return journalstore.Position{}, "", apperr.ErrNotFound
	}
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	p, err := h.journal.Position(ctx, userID, r.PathValue("positionId"))
	if err != nil {
		return p, "", err
	}
	symbol, ok := market.ValidSymbol(p.Symbol)
	if p.AssetType != instrument.AssetStock || !ok {
		return p, "", errNotStock
	}
	return p, symbol, ratelimit.Check(ctx, h.app.Limiter, marketLimit, userID)
}

type barsResponse struct {
	Symbol     string       `json:"symbol"`
	Resolution string       `json:"resolution"`
	From       time.Time    `json:"from"`
	To         time.Time    `json:"to"`
	Bars       []market.Bar `json:"bars"`
	// HeldFrom and HeldTo are the holding period (to now while open);
	// MaePrice and MfePrice the excursions the bars and the fills imply
	// (market.Measure; null without a bar in the hold), FirstHit which of
	// the stop and target the price reached first ("target", "stop", or
	// null), Source where the bars came from (a provider's name, or
	// "uploaded").
	HeldFrom time.Time `json:"heldFrom"`
	HeldTo   time.Time `json:"heldTo"`
	MaePrice *string   `json:"maePrice"`
	MfePrice *string   `json:"mfePrice"`
	FirstHit *string   `json:"firstHit"`
	Source   string    `json:"source"`
}

// bars answers the price bars around a position's holding period, from
// its asset type's provider or the bars uploaded for its symbol
// (tradebars), at a resolution chosen from the hold (market.WindowFor) or
// by the trader, or over the whole days of the trade (barsWindow), and the
// excursions they imply. A read: the bar-excursions job records them.
func (h handler) bars(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID := auth.CurrentUser(ctx).ID
	p, err := h.journal.Position(ctx, userID, r.PathValue("positionId"))
	if err == nil {
		err = ratelimit.Check(ctx, h.app.Limiter, marketLimit, userID)
	}
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	b, err := h.tradeBars.For(ctx, userID, p, h.app.Now(), func(open, end time.Time) (market.Window, error) {
		return barsWindow(r, open, end)
	})
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	res := barsResponse{Symbol: b.Symbol, Resolution: b.Window.Resolution.Code, From: b.Window.From, To: b.Window.To, Bars: b.Bars,
		HeldFrom: b.HeldFrom, HeldTo: b.HeldTo, Source: b.Source}
	if e := b.Excursions; e != nil {
		mae, mfe := e.MAE.String(), e.MFE.String()
		res.MaePrice, res.MfePrice = &mae, &mfe
		if e.FirstHit != "" {
			res.FirstHit = &e.FirstHit
		}
	}
	httpx.JSON(w, http.StatusOK, res)
}

// barsWindow reads the bars' query: window "hold" (the default, the hold
// with a margin) or "session" (whole days in the user's time zone:
// market.SessionWindow), and
// resolution, one of market.Resolutions' codes (the window's own choice
// without it), refused when it makes more bars than one answer holds.
func barsWindow(r *http.Request, open, end time.Time) (market.Window, error) {
	q := r.URL.Query()
	var res *market.Resolution
	if code := q.Get("resolution"); code != "" {
		chosen, ok := market.ParseResolution(code)
		if !ok {
			return market.Window{}, apperr.Invalid("resolution", "must be one of 1, 5, 15, 30, 60, D or W")
		}
		res = &chosen
	}
	var win market.Window
	switch q.Get("window") {
	case "", "hold":
		win = market.WindowFor(open, end)
		if res != nil {
			win = market.HoldWindow(open, end, *res)
		}
	case "session":
		zone, err := time.LoadLocation(auth.CurrentUser(r.Context()).Timezone)
		if err != nil {
			zone = time.UTC // a stored zone is checked when set (auth.CheckTimezone)
		}
		win = market.SessionWindow(open, end, res, zone)
	default:
		return market.Window{}, apperr.Invalid("window", "must be hold or session")
	}
	return win, win.CheckSize()
}

// errNotOpen answers an unrealised P&L of a position with nothing open.
var errNotOpen = &apperr.Error{Code: apperr.NotFound, Message: "the position is not open, so it has no unrealised P&L"}

type unrealizedResponse struct {
	Quote market.Quote `json:"quote"`
	// UnrealizedPnl is (price - average cost of what is open) x open
	// quantity x multiplier, negated for a short, 4 places.
	UnrealizedPnl string `json:"unrealizedPnl"`
}

// unrealized answers an open stock position's P&L at the delayed quote,
// computed here from the quote (cached as the symbols group caches it).
func (h handler) unrealized(w http.ResponseWriter, r *http.Request) {
	p, symbol, err := h.marketPosition(r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if p.Status != journal.StatusOpen {
		httpx.Error(w, r, errNotOpen)
		return
	}
	q, err := h.quotes.Get(r.Context(), symbol)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	pnl, ok := p.Unrealized(q.Price)
	if !ok {
		httpx.Error(w, r, errNotOpen)
		return
	}
	httpx.JSON(w, http.StatusOK, unrealizedResponse{Quote: q, UnrealizedPnl: pnl})
}
