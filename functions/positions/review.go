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

	"github.com/shopspring/decimal"
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

// errNoFills answers a look-up of bars for a draft: no holding period yet.
var errNoFills = &apperr.Error{Code: apperr.NotFound, Message: "the position has no fills yet, so no holding period to show"}

// marketPosition reads the user's position for a market look-up and the
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
	// MaePrice and MfePrice the excursions the bars overlapping it and its
	// fills imply (null without such bars).
	HeldFrom time.Time `json:"heldFrom"`
	HeldTo   time.Time `json:"heldTo"`
	MaePrice *string   `json:"maePrice"`
	MfePrice *string   `json:"mfePrice"`
}

// bars answers the price bars around a stock position's holding period,
// at a resolution chosen from the hold (market.WindowFor) or by the trader,
// or over the whole days of the trade (barsWindow), and the MAE and
// MFE they imply: for a long the lowest low and highest high of the bars
// overlapping the hold and of its fills, for a short the other way round.
func (h handler) bars(w http.ResponseWriter, r *http.Request) {
	p, symbol, err := h.marketPosition(r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	if p.OpenedAt == nil {
		httpx.Error(w, r, errNoFills)
		return
	}
	heldTo := h.app.Now()
	if p.Status == journal.StatusClosed && p.ClosedAt != nil {
		heldTo = *p.ClosedAt
	}
	win, err := barsWindow(r, *p.OpenedAt, heldTo)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	bars, err := h.quotes.Bars(r.Context(), symbol, win)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	res := barsResponse{Symbol: symbol, Resolution: win.Resolution.Code, From: win.From, To: win.To, Bars: bars,
		HeldFrom: p.OpenedAt.UTC(), HeldTo: heldTo.UTC()}
	if low, high, ok := market.Excursion(bars, win.Resolution.Step, *p.OpenedAt, heldTo); ok {
		// Every fill traded inside the range the position saw, which bars
		// of another feed (or a coarse resolution) may not show.
		for _, f := range p.Fills {
			if price, err := decimal.NewFromString(f.Price); err == nil {
				low, high = decimal.Min(low, price), decimal.Max(high, price)
			}
		}
		lo, hi := low.String(), high.String()
		res.MaePrice, res.MfePrice = &lo, &hi
		if p.Side == journal.SideShort {
			res.MaePrice, res.MfePrice = &hi, &lo
		}
	}
	httpx.JSON(w, http.StatusOK, res)
}

// barsWindow reads the bars' query: window "hold" (the default, the hold
// with a margin) or "session" (whole days: market.SessionWindow), and
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
		win = market.SessionWindow(open, end, res)
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
