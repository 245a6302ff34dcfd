package objectstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"tradejournal/shared/config"
	"tradejournal/shared/objectstore"
	"tradejournal/shared/objectstore/s3test"
)

func TestOffUnlessAllFourSet(t *testing.T) {
	all := config.ObjectStorage{Endpoint: "http://127.0.0.1:1", Bucket: "b", AccessKeyID: "a", SecretAccessKey: "s"}
	partial := all
	partial.SecretAccessKey = ""
	for _, cfg := range []config.ObjectStorage{{}, partial} {
		if c, err := objectstore.New(cfg, nil); c != nil || err != nil {
			t.Errorf("New(%+v) = %v, %v; want nil, nil", cfg, c, err)
		}
	}
	bad := all
	bad.Endpoint = "ftp://user:pw@host"
	if _, err := objectstore.New(bad, nil); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("bad endpoint: %v", err)
	}
}

func TestNewKeyIsRandom(t *testing.T) {
	a, b := objectstore.NewKey(), objectstore.NewKey()
	if a == b || !regexp.MustCompile(`^images/[0-9a-f]{32}$`).MatchString(a) {
		t.Fatalf("keys %q %q", a, b)
	}
}

// TestAgainstMinIO runs every call against a real MinIO, which verifies each
// signature, in both addressing styles.
func TestAgainstMinIO(t *testing.T) {
	srv := s3test.Start(t)
	ctx := context.Background()
	styles := map[string]func() (*objectstore.Client, error){
		"PathStyle":     func() (*objectstore.Client, error) { return objectstore.New(srv.Config(), nil) },
		"VirtualHosted": func() (*objectstore.Client, error) { return objectstore.New(srv.VirtualHostConfig(), srv.HTTPClient()) },
	}
	for name, open := range styles {
		t.Run(name, func(t *testing.T) {
			c, err := open()
			if err != nil {
				t.Fatal(err)
			}
			key := objectstore.NewKey()
			data := bytes.Repeat([]byte("\x89PNG\r\n\x1a\n-image-"), 1000)
			if err := c.Put(ctx, key, "image/png", data); err != nil {
				t.Fatalf("Put: %v", err)
			}
			body, size, err := c.Get(ctx, key)
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			got, _ := io.ReadAll(body)
			body.Close()
			if !bytes.Equal(got, data) || size != int64(len(data)) {
				t.Fatalf("Get: %d bytes (size %d), want %d", len(got), size, len(data))
			}
			if err := c.Delete(ctx, key); err != nil {
				t.Fatalf("Delete: %v", err)
			}
			if _, _, err := c.Get(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
				t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
			}
			if err := c.Delete(ctx, key); err != nil {
				t.Fatalf("Delete of a deleted object: %v", err)
			}
		})
	}
	t.Run("WrongSecretRefused", func(t *testing.T) {
		cfg := srv.Config()
		cfg.SecretAccessKey = "not-the-secret-4242"
		c, _ := objectstore.New(cfg, nil)
		err := c.Put(ctx, objectstore.NewKey(), "image/png", []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "SignatureDoesNotMatch") {
			t.Fatalf("Put with a wrong secret: %v", err)
		}
		for _, secret := range []string{cfg.SecretAccessKey, s3test.SecretAccessKey} {
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the error carries a secret: %v", err)
			}
		}
	})
	t.Run("CreateBucketTwice", func(t *testing.T) {
		c, _ := objectstore.New(srv.Config(), nil)
		if err := c.CreateBucket(ctx); err != nil {
			t.Fatal(err)
		}
	})
}
