// Package objectstore keeps uploaded images in an S3-compatible bucket
// (AWS S3, MinIO, Cloudflare R2, Garage, ...) when all four of
// OBJECT_STORAGE_ENDPOINT, _BUCKET, _ACCESS_KEY_ID and _SECRET_ACCESS_KEY are
// set. It speaks the three object calls the service needs (PUT, GET and
// DELETE of one object) over plain HTTP, signed by its own SigV4 signer, in
// path-style (https://endpoint/bucket/key, OBJECT_STORAGE_FORCE_PATH_STYLE
// true, the default) or virtual-hosted style (https://bucket.endpoint/key).
//
// Object keys are random (NewKey): they carry no user id, file name or
// anything else of the upload. Errors name the operation, the status and
// the store's error code, never the credentials.
package objectstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"tradejournal/shared/config"
)

// DefaultRegion signs requests when OBJECT_STORAGE_REGION is unset; MinIO
// and most self-hosted stores accept it, R2 wants "auto".
const DefaultRegion = "us-east-1"

// ErrNotFound is a GET of an object the bucket does not hold.
var ErrNotFound = errors.New("object not found")

// Client is one bucket.
type Client struct {
	endpoint  *url.URL
	bucket    string
	pathStyle bool
	signer    signer
	http      *http.Client
	now       func() time.Time
}

// New returns the client of cfg, or nil when object storage is not
// (completely) configured. httpClient nil means a client with a 30 s
// timeout per call.
func New(cfg config.ObjectStorage, httpClient *http.Client) (*Client, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	u, err := url.Parse(strings.TrimRight(cfg.Endpoint, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return nil, errors.New("OBJECT_STORAGE_ENDPOINT must be an http or https URL without credentials or query")
	}
	region := cfg.Region
	if region == "" {
		region = DefaultRegion
	}
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{
		endpoint:  u,
		bucket:    cfg.Bucket,
		pathStyle: cfg.ForcePathStyle,
		signer:    signer{accessKeyID: cfg.AccessKeyID, secretAccessKey: cfg.SecretAccessKey, region: region, service: "s3"},
		http:      httpClient,
		now:       time.Now,
	}, nil
}

// NewKey returns a fresh object key: a prefix and 128 random bits, nothing
// derived from the user or the upload.
func NewKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "images/" + hex.EncodeToString(b[:])
}

// objectURL is the address of key ("" for the bucket itself).
func (c *Client) objectURL(key string) *url.URL {
	u := *c.endpoint
	if c.pathStyle {
		u.Path = u.Path + "/" + c.bucket
		if key != "" {
			u.Path += "/" + key
		}
		return &u
	}
	u.Host = c.bucket + "." + u.Host
	u.Path = u.Path + "/" + key
	return &u
}

// do sends one signed request and returns the response when its status is
// one of ok; anything else is closed and returned as an error.
func (c *Client) do(ctx context.Context, method, key string, body []byte, header http.Header, ok ...int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.objectURL(key).String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.ContentLength = int64(len(body))
	if len(body) == 0 {
		req.Body = http.NoBody
	}
	for name, values := range header {
		req.Header[name] = values
	}
	c.signer.sign(req, hexSHA256(body), c.now())
	res, err := c.http.Do(req)
	if err != nil {
		// The cause alone: the URL adds nothing an operator needs twice.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return nil, fmt.Errorf("object storage %s: %w", method, err)
	}
	for _, status := range ok {
		if res.StatusCode == status {
			return res, nil
		}
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound && method == http.MethodGet {
		return nil, ErrNotFound
	}
	return nil, fmt.Errorf("object storage %s: status %d%s", method, res.StatusCode, errorCode(res.Body))
}

// errorCode reads the store's XML error code, if the body has one.
func errorCode(body io.Reader) string {
	var e struct {
		Code string `xml:"Code"`
	}
	if xml.NewDecoder(io.LimitReader(body, 64<<10)).Decode(&e) != nil || e.Code == "" {
		return ""
	}
	return " (" + e.Code + ")"
}

// Put stores data under key.
func (c *Client) Put(ctx context.Context, key, contentType string, data []byte) error {
	res, err := c.do(ctx, http.MethodPut, key, data, http.Header{"Content-Type": {contentType}}, http.StatusOK)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	return res.Body.Close()
}

// Get opens the object at key; the caller closes it. size is its length in
// bytes, or -1 when the store did not say.
func (c *Client) Get(ctx context.Context, key string) (body io.ReadCloser, size int64, err error) {
	res, err := c.do(ctx, http.MethodGet, key, nil, nil, http.StatusOK)
	if err != nil {
		return nil, 0, err
	}
	size = -1
	if n, err := strconv.ParseInt(res.Header.Get("Content-Length"), 10, 64); err == nil {
		size = n
	}
	return res.Body, size, nil
}

// Delete removes the object at key; an object already gone is no error.
func (c *Client) Delete(ctx context.Context, key string) error {
	res, err := c.do(ctx, http.MethodDelete, key, nil, nil, http.StatusNoContent, http.StatusOK, http.StatusNotFound)
	if err != nil {
		return err
	}
	return res.Body.Close()
}

// CreateBucket creates the configured bucket (first-time set-up and tests);
// a bucket that already exists and is ours is no error.
func (c *Client) CreateBucket(ctx context.Context) error {
	res, err := c.do(ctx, http.MethodPut, "", nil, nil, http.StatusOK, http.StatusConflict)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusConflict {
		if code := errorCode(res.Body); code != " (BucketAlreadyOwnedByYou)" {
			return fmt.Errorf("object storage: bucket not created: status 409%s", code)
		}
	}
	return nil
}
