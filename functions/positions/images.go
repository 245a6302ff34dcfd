package positions

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"tradejournal/shared/imagetype"
	"tradejournal/shared/journalstore"
	"tradejournal/shared/listquery"

	"github.com/jackc/pgx/v5"

	"tradejournal/shared/apperr"
	"tradejournal/shared/auth"
	"tradejournal/shared/db"
	"tradejournal/shared/encrypt"
	"tradejournal/shared/httpx"
	"tradejournal/shared/journal"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/plans"
)

// Limits of position images.
const (
	MaxImageBytes     = 5 << 20 // one image
	MaxImagesPerTrade = 20      // images of one position
	// maxUploadBytes bounds the whole multipart body: the image, a caption
	// and the multipart framing.
	maxUploadBytes = MaxImageBytes + 64<<10
)

// Image is an image's metadata; url serves its bytes.
type Image struct {
	ID          string    `json:"id"`
	ContentType string    `json:"contentType"`
	SizeBytes   int       `json:"sizeBytes"`
	Caption     string    `json:"caption"`
	URL         string    `json:"url"`
	CreatedAt   time.Time `json:"createdAt"`
}

type imageEnvelope struct {
	Image Image `json:"image"`
}

type imageList struct {
	Items      []Image `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

const imageColumns = `id::text, position_id::text, content_type, size_bytes, caption, created_at`

func scanImage(row pgx.Row, k *encrypt.Keyring) (Image, error) {
	var (
		img        Image
		positionID string
	)
	if err := row.Scan(&img.ID, &positionID, &img.ContentType, &img.SizeBytes, &img.Caption, &img.CreatedAt); err != nil {
		return img, err
	}
	img.URL = "/api/positions/" + positionID + "/images/" + img.ID
	caption, err := k.Open(encrypt.ImageCaptions, img.Caption)
	img.Caption = caption
	return img, err
}

// ownPosition answers ErrNotFound unless the position is the user's.
func ownPosition(ctx context.Context, q db.Querier, userID, id string) error {
	if !db.ValidUUID(id) {
		return apperr.ErrNotFound
	}
	var ok bool
	err := q.QueryRow(ctx, `SELECT true FROM positions WHERE id = $1 AND user_id = $2`, id, userID).Scan(&ok)
	return db.Classify(err)
}

// imageOrder is the order of a position's images: oldest first.
var imageOrder = []listquery.SortKey{listquery.TimeKey("created_at"), listquery.IDKey}

func (h handler) listImages(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("positionId")
	if err := ownPosition(ctx, h.app.DB, userID, id); err != nil {
		httpx.Error(w, r, err)
		return
	}
	page, err := listquery.ParseBoundedPage(r.URL.Query(), imageOrder)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	sql, args := page.Query(`SELECT `+imageColumns+` FROM position_images WHERE position_id = $1 AND user_id = $2`,
		[]any{id, userID}, imageOrder)
	rows, err := h.app.DB.Query(ctx, sql, args...)
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Image, error) { return scanImage(row, h.app.Keyring) })
	if err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	items, next := listquery.PageOf(items, page, func(img Image) []string { return []string{listquery.TimeKeyOf(img.CreatedAt), img.ID} })
	httpx.JSON(w, http.StatusOK, imageList{Items: items, NextCursor: next})
}

var (
	errNotMultipart = apperr.Invalid("file", "send the image as multipart/form-data with a part named file")
	errTooLarge     = apperr.New(apperr.PayloadTooLarge, "an image may be at most %d bytes (5 MiB)", MaxImageBytes)
	errNotImage     = apperr.Invalid("file", "must be a PNG, JPEG or WebP image (checked by its content, not its name or declared type)")
)

// upload is a read multipart body.
type upload struct {
	data    []byte
	caption string
}

// readUpload reads the multipart body: a part "file" (required, at most
// MaxImageBytes) and an optional part "caption". It reads at most
// maxUploadBytes whatever Content-Length says.
func readUpload(w http.ResponseWriter, r *http.Request) (upload, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return upload{}, errNotMultipart
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		return upload{}, errNotMultipart
	}
	var (
		u       upload
		gotFile bool
		p       journal.Problems
	)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return upload{}, uploadError(err)
		}
		switch part.FormName() {
		case "file":
			if gotFile {
				p.Add("file", "send one file per request")
				continue
			}
			gotFile = true
			u.data, err = io.ReadAll(io.LimitReader(part, MaxImageBytes+1))
			if err != nil {
				return upload{}, uploadError(err)
			}
			if len(u.data) > MaxImageBytes {
				return upload{}, errTooLarge
			}
		case "caption":
			raw, err := io.ReadAll(io.LimitReader(part, 4*journal.MaxCaptionChars+1))
			if err != nil {
				return upload{}, uploadError(err)
			}
			u.caption = string(raw)
			p.Merge(journal.Text("caption", u.caption, journal.MaxCaptionChars))
		default:
			name := part.FormName()
			if name == "" {
				name = "file"
			}
			p.Add(name, "is not a known part (send file and, optionally, caption)")
		}
	}
	switch {
	case !gotFile:
		p.Add("file", "is required")
	case p.Has("file"):
	case len(u.data) == 0:
		p.Add("file", "is empty")
	case imagetype.Sniff(u.data) == "":
		p.Add("file", errNotImage.Details[0].Message)
	}
	return u, p.Err()
}

// uploadError turns a failed multipart read into 413 when the body was too
// large, and into a 400 otherwise.
func uploadError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return errTooLarge
	}
	return apperr.Invalid("file", "the multipart body could not be read")
}

// checkImageCap refuses a new image when the position holds the most.
func checkImageCap(ctx context.Context, q db.Querier, positionID string) error {
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM position_images WHERE position_id = $1`, positionID).Scan(&n); err != nil {
		return db.Classify(err)
	}
	if n >= MaxImagesPerTrade {
		return apperr.Invalid("file", "a position holds at most "+strconv.Itoa(MaxImagesPerTrade)+" images; delete one first")
	}
	return nil
}

// errStorageUnavailable answers when the bucket cannot be reached; the
// cause is logged, never sent.
var errStorageUnavailable = apperr.New(apperr.ServiceUnavailable, "image storage is unavailable; try again shortly")

// addImage stores an image of a position (PNG, JPEG or WebP by content, at
// most 5 MiB, at most 20 per position): in the bucket under a random key
// when object storage is on, else inline. The object is written before the
// row, outside the transaction, and deleted again if the row is refused.
func (h handler) addImage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id := auth.CurrentUser(ctx).ID, r.PathValue("positionId")
	if err := ownPosition(ctx, h.app.DB, userID, id); err != nil {
		httpx.Error(w, r, err)
		return
	}
	u, err := readUpload(w, r)
	if err != nil {
		httpx.Error(w, r, err)
		return
	}
	contentType := imagetype.Sniff(u.data)
	inline, storageKey := u.data, (*string)(nil)
	if h.app.Objects != nil {
		// A position at its cap is refused before anything is uploaded.
		if err := checkImageCap(ctx, h.app.DB, id); err != nil {
			httpx.Error(w, r, err)
			return
		}
		key := objectstore.NewKey()
		if err := h.app.Objects.Put(ctx, key, contentType, u.data); err != nil {
			httpx.Logger(ctx).Warn("image upload to object storage failed", "err", err)
			httpx.Error(w, r, errStorageUnavailable)
			return
		}
		inline, storageKey = nil, &key
	}
	var img Image
	err = db.InTx(ctx, h.app.DB, func(tx pgx.Tx) error {
		// The position lock serialises uploads, so the cap holds.
		if err := journalstore.LockPosition(ctx, tx, userID, id); err != nil {
			return err
		}
		if err := checkImageCap(ctx, tx, id); err != nil {
			return err
		}
		if err := plans.New(h.app.Config, h.app.Now).Check(ctx, tx, userID, plans.StorageBytes, int64(len(u.data))); err != nil {
			return err
		}
		const ins = `INSERT INTO position_images (user_id, position_id, content_type, size_bytes, data, storage_key, caption)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ` + imageColumns
		var err error
		img, err = scanImage(tx.QueryRow(ctx, ins, userID, id, contentType, len(u.data), inline, storageKey,
			h.app.Keyring.Seal(encrypt.ImageCaptions, u.caption)), h.app.Keyring)
		return db.Classify(err)
	})
	if err != nil {
		if storageKey != nil {
			h.discardObject(context.WithoutCancel(ctx), *storageKey)
		}
		httpx.Error(w, r, err)
		return
	}
	httpx.JSON(w, http.StatusCreated, imageEnvelope{img})
}

// getImage serves an image's bytes, only to its owner, with the sniffed
// content type and nosniff, so a browser never reads it as anything else.
func (h handler) getImage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id, imageID := auth.CurrentUser(ctx).ID, r.PathValue("positionId"), r.PathValue("imageId")
	if !db.ValidUUID(id) || !db.ValidUUID(imageID) {
		httpx.NotFound(w, r)
		return
	}
	var (
		contentType string
		data        []byte
		storageKey  *string
	)
	const q = `SELECT content_type, data, storage_key FROM position_images WHERE id = $1 AND position_id = $2 AND user_id = $3`
	if err := h.app.DB.QueryRow(ctx, q, imageID, id, userID).Scan(&contentType, &data, &storageKey); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	if storageKey == nil {
		// Inline, as every image is without object storage, and as images
		// stored before it was turned on stay.
		writeImageHeaders(w, contentType, int64(len(data)))
		_, _ = w.Write(data)
		return
	}
	h.serveObject(w, r, *storageKey, contentType)
}

// writeImageHeaders starts a 200 with an image's headers. size < 0 means
// unknown.
func writeImageHeaders(w http.ResponseWriter, contentType string, size int64) {
	hd := w.Header()
	hd.Set("Content-Type", contentType)
	if size >= 0 {
		hd.Set("Content-Length", strconv.FormatInt(size, 10))
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hd.Set("Cache-Control", "private, max-age=3600")
	w.WriteHeader(http.StatusOK)
}

// serveObject streams an image from the bucket, through the api so the
// owner check above stays the only way in.
func (h handler) serveObject(w http.ResponseWriter, r *http.Request, key, contentType string) {
	ctx := r.Context()
	if h.app.Objects == nil {
		httpx.Logger(ctx).Warn("an image is in object storage, but OBJECT_STORAGE_* is no longer configured")
		httpx.Error(w, r, errStorageUnavailable)
		return
	}
	body, size, err := h.app.Objects.Get(ctx, key)
	if err != nil {
		httpx.Logger(ctx).Warn("image download from object storage failed", "err", err)
		if errors.Is(err, objectstore.ErrNotFound) {
			httpx.NotFound(w, r)
			return
		}
		httpx.Error(w, r, errStorageUnavailable)
		return
	}
	defer body.Close()
	writeImageHeaders(w, contentType, size)
	_, _ = io.Copy(w, body)
}

func (h handler) deleteImage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	userID, id, imageID := auth.CurrentUser(ctx).ID, r.PathValue("positionId"), r.PathValue("imageId")
	if !db.ValidUUID(id) || !db.ValidUUID(imageID) {
		httpx.NotFound(w, r)
		return
	}
	const del = `DELETE FROM position_images WHERE id = $1 AND position_id = $2 AND user_id = $3 RETURNING storage_key`
	var storageKey *string
	if err := h.app.DB.QueryRow(ctx, del, imageID, id, userID).Scan(&storageKey); err != nil {
		httpx.Error(w, r, db.Classify(err))
		return
	}
	if storageKey != nil {
		h.deleteObjects(ctx, []string{*storageKey})
	}
	httpx.NoContent(w)
}

// discardObject deletes the object of an upload whose row was refused. It
// is queued first, so a store that is down now gets it deleted by the purge
// job later.
func (h handler) discardObject(ctx context.Context, key string) {
	if _, err := h.app.DB.Exec(ctx, `INSERT INTO object_deletions (storage_key) VALUES ($1) ON CONFLICT DO NOTHING`, key); err != nil {
		httpx.Logger(ctx).Warn("an uploaded image object could not be queued for deletion", "err", err)
	}
	h.deleteObjects(ctx, []string{key})
}

// deleteObjects deletes objects whose rows are gone (queued in
// object_deletions by the row's delete trigger) and takes them off the
// queue. A failure is a warning: the key stays queued and the purge job
// (objectstore.PurgeQueued) retries it.
func (h handler) deleteObjects(ctx context.Context, keys []string) {
	if _, err := objectstore.Purge(ctx, h.app.DB, h.app.Objects, keys); err != nil {
		httpx.Logger(ctx).Warn("image objects not deleted yet; the purge job retries", "err", err)
	}
}
