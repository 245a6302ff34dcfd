package positions_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tradejournal/functions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/app"
	"tradejournal/shared/config"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/objectstore/s3test"
)

// restartWith starts a second api on srv's database with cfg, as a restart
// with a changed environment would.
func restartWith(t *testing.T, srv *apitest.Server, storage config.ObjectStorage) *apitest.Server {
	t.Helper()
	cfg := srv.App.Config
	cfg.Storage = storage
	a, err := app.New(context.Background(), cfg, srv.App.Log, app.SystemClock)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(apitest.Handler(a, functions.All))
	t.Cleanup(func() { hs.Close(); a.Close() })
	return &apitest.Server{Server: hs, App: a}
}

func login(t *testing.T, srv *apitest.Server, email string) *apitest.Client {
	t.Helper()
	c := srv.Client(t)
	apitest.Must(t, c.Do("POST", "/api/auth/login", map[string]string{"email": email, "password": "password1"}), 200)
	return c
}

// storedKey returns an image's storage_key, failing unless the row has no
// inline data.
func storedKey(t *testing.T, srv *apitest.Server, imageID string) string {
	t.Helper()
	var (
		inline bool
		key    *string
	)
	err := srv.App.DB.QueryRow(context.Background(), `SELECT data IS NOT NULL, storage_key FROM position_images WHERE id = $1`, imageID).Scan(&inline, &key)
	if err != nil || inline || key == nil {
		t.Fatalf("image %s: inline %v, key %v, err %v", imageID, inline, key, err)
	}
	return *key
}

func objectExists(t *testing.T, objects *objectstore.Client, key string) bool {
	t.Helper()
	body, _, err := objects.Get(context.Background(), key)
	if errors.Is(err, objectstore.ErrNotFound) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	body.Close()
	return true
}

func queued(t *testing.T, srv *apitest.Server) int {
	t.Helper()
	var n int
	if err := srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM object_deletions`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestImagesInObjectStorage: images stored inline keep working when object
// storage is turned on; new ones go to the bucket (a real MinIO) under
// random keys, are served through the api to their owner only, and their
// objects go when the image, its position or its account does.
func TestImagesInObjectStorage(t *testing.T) {
	minio := s3test.Start(t)
	f := setup(t, nil) // object storage off
	position := func(c *apitest.Client, account string) string {
		return apitest.Object(t, apitest.Must(t, c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": "AAPL",
			"assetType": "stock", "side": "long"}), 201), "position")["id"].(string)
	}
	posID := position(f.a, f.account)
	base := "/api/positions/" + posID + "/images"
	inlineID := apitest.Object(t, apitest.Must(t, upload(t, f.a, base, map[string][]byte{"file": pngBytes}, "image/png"), 201), "image")["id"].(string)

	on := restartWith(t, f.srv, minio.Config())
	a, b := login(t, on, "a@example.com"), login(t, on, "b@example.com")
	objects := on.App.Objects
	if objects == nil {
		t.Fatal("no bucket client with all four variables set")
	}

	t.Run("InlineImageStillServed", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", base+"/"+inlineID, nil), 200)
		if !bytes.Equal(r.Body, pngBytes) || r.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("inline image after storage was turned on: %q %v", r.Body, r.Header)
		}
	})

	img := apitest.Object(t, apitest.Must(t, upload(t, a, base, map[string][]byte{"file": jpegBytes, "caption": []byte("entry")}, "image/png"), 201), "image")
	storedID := img["id"].(string)
	key := storedKey(t, on, storedID)
	t.Run("NewImageInTheBucket", func(t *testing.T) {
		if !regexp.MustCompile(`^images/[0-9a-f]{32}$`).MatchString(key) {
			t.Fatalf("key %q is not a random id", key)
		}
		body, _, err := objects.Get(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(body)
		body.Close()
		if !bytes.Equal(got, jpegBytes) {
			t.Fatal("the bucket holds other bytes")
		}
	})
	t.Run("ServedThroughTheAPIToItsOwner", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", base+"/"+storedID, nil), 200)
		if !bytes.Equal(r.Body, jpegBytes) || r.Header.Get("Content-Type") != "image/jpeg" ||
			r.Header.Get("X-Content-Type-Options") != "nosniff" || r.Header.Get("Content-Length") != strconv.Itoa(len(jpegBytes)) {
			t.Fatalf("served %q %v", r.Body, r.Header)
		}
		if r := b.Do("GET", base+"/"+storedID, nil); r.Status != 404 {
			t.Fatalf("another user got the image: %d", r.Status)
		}
		l := apitest.Items(t, apitest.Must(t, a.Do("GET", base, nil), 200))
		if len(l) != 2 || l[1].(map[string]any)["caption"] != "entry" {
			t.Fatalf("list %v", l)
		}
	})
	t.Run("ConfigReportsIt", func(t *testing.T) {
		if r := apitest.Must(t, a.Do("GET", "/api/config", nil), 200); r.JSON["imageStorage"] != true {
			t.Fatalf("with storage: %s", r.Body)
		}
		if r := apitest.Must(t, f.a.Do("GET", "/api/config", nil), 200); r.JSON["imageStorage"] != false {
			t.Fatalf("without storage: %s", r.Body)
		}
	})
	t.Run("StorageTurnedOffAgain", func(t *testing.T) {
		r := f.a.Do("GET", base+"/"+storedID, nil)
		if r.Status != 503 || r.ErrorCode() != "SERVICE_UNAVAILABLE" || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("stored image without storage: %d %s %v", r.Status, r.Body, r.Header)
		}
		apitest.CheckErrorShape(t, r)
	})
	t.Run("DeleteImageDeletesObject", func(t *testing.T) {
		apitest.Must(t, a.Do("DELETE", base+"/"+storedID, nil), 204)
		if objectExists(t, objects, key) || queued(t, on) != 0 {
			t.Fatal("the object outlived its image")
		}
		if r := a.Do("GET", base+"/"+storedID, nil); r.Status != 404 {
			t.Fatalf("deleted image: %d", r.Status)
		}
	})
	t.Run("DeletePositionDeletesObjects", func(t *testing.T) {
		id := position(a, f.account)
		imageID := apitest.Object(t, apitest.Must(t, upload(t, a, "/api/positions/"+id+"/images", map[string][]byte{"file": webpBytes}, "image/webp"), 201), "image")["id"].(string)
		k := storedKey(t, on, imageID)
		apitest.Must(t, a.Do("DELETE", "/api/positions/"+id, nil), 204)
		if objectExists(t, objects, k) || queued(t, on) != 0 {
			t.Fatal("the object outlived its position")
		}
	})
	t.Run("AccountDeleteQueuedThenPurged", func(t *testing.T) {
		account := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/accounts", map[string]any{"name": "Gone", "currency": "USD"}), 201), "account")["id"].(string)
		id := position(a, account)
		imageID := apitest.Object(t, apitest.Must(t, upload(t, a, "/api/positions/"+id+"/images", map[string][]byte{"file": pngBytes}, "image/png"), 201), "image")["id"].(string)
		k := storedKey(t, on, imageID)
		if r := a.Do("DELETE", "/api/accounts/"+account+"?confirm=true", nil); r.Status != 204 {
			t.Fatalf("delete account: %d %s", r.Status, r.Body)
		}
		if queued(t, on) != 1 || !objectExists(t, objects, k) {
			t.Fatal("the cascade did not queue the object")
		}
		n, err := objectstore.PurgeQueued(context.Background(), on.App.DB, on.App.Objects)
		if err != nil || n != 1 || objectExists(t, objects, k) || queued(t, on) != 0 {
			t.Fatalf("purge: %d %v", n, err)
		}
	})
	t.Run("DeleteWithStoreDownIsRetried", func(t *testing.T) {
		imageID := apitest.Object(t, apitest.Must(t, upload(t, a, base, map[string][]byte{"file": pngBytes}, "image/png"), 201), "image")["id"].(string)
		k := storedKey(t, on, imageID)
		cfg := minio.Config()
		cfg.Endpoint = "http://127.0.0.1:1" // the store is down for this api
		down := restartWith(t, f.srv, cfg)
		apitest.Must(t, login(t, down, "a@example.com").Do("DELETE", base+"/"+imageID, nil), 204)
		if queued(t, on) != 1 || !objectExists(t, objects, k) {
			t.Fatal("the object of an image deleted while the store was down is not queued")
		}
		if n, err := objectstore.PurgeQueued(context.Background(), on.App.DB, on.App.Objects); err != nil || n != 1 || objectExists(t, objects, k) {
			t.Fatalf("purge once the store is back: %d %v", n, err)
		}
	})
	t.Run("StoreDownIsA503AndNothingWritten", func(t *testing.T) {
		cfg := minio.Config()
		cfg.Endpoint = "http://127.0.0.1:1" // nothing listens
		down := restartWith(t, f.srv, cfg)
		c := login(t, down, "a@example.com")
		var before int
		_ = down.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM position_images`).Scan(&before)
		r := upload(t, c, base, map[string][]byte{"file": pngBytes}, "image/png")
		if r.Status != 503 || r.ErrorCode() != "SERVICE_UNAVAILABLE" || strings.Contains(string(r.Body), "127.0.0.1") {
			t.Fatalf("upload with the store down: %d %s", r.Status, r.Body)
		}
		var after int
		_ = down.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM position_images`).Scan(&after)
		if after != before {
			t.Fatal("a row was written for an image the store refused")
		}
	})
}
