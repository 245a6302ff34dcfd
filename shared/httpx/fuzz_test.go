package httpx_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"tradejournal/shared/apperr"
	"tradejournal/shared/httpx"
)

type fuzzTarget struct {
	Name  string            `json:"name"`
	Count int               `json:"count"`
	Price float64           `json:"price"`
	On    *bool             `json:"on"`
	Tags  []string          `json:"tags"`
	Meta  map[string]string `json:"meta"`
	Inner struct {
		Level uint8 `json:"level"`
	} `json:"inner"`
}

// FuzzDecodeBytes: DecodeBytes never panics, and every failure is one of
// the three client errors a request body can earn, never a raw decoder error
// (which httpx.Error would turn into a 500).
func FuzzDecodeBytes(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","count":1,"price":1.5,"on":true,"tags":["x"],"meta":{"k":"v"},"inner":{"level":3}}`,
		`{}`, ``, `null`, `[]`, `"s"`, `5`, `{"name":`, `{"nope":1}`, `{"count":"1"}`,
		`{"inner":{"level":300}}`, `{"count":1e400}`, `{"tags":[1]}`, `{"meta":{"k":1}}`,
		`{} {}`, `{}x`, `{"name":"\ud800"}`, `{"a\"b":1}`, `{"Name":"case-insensitive"}`,
		`{"name":"` + strings.Repeat("x", 100) + `"}`,
	} {
		f.Add([]byte(s))
	}
	allowed := map[apperr.Code]bool{apperr.InvalidJSON: true, apperr.Validation: true, apperr.PayloadTooLarge: true}
	check := func(t *testing.T, data []byte, err error) {
		t.Helper()
		if err == nil {
			return
		}
		e, ok := err.(*apperr.Error)
		if !ok {
			t.Fatalf("%q: error %T %v is not an *apperr.Error", data, err, err)
		}
		if !allowed[e.Code] || e.Message == "" {
			t.Fatalf("%q: error %+v", data, e)
		}
		// The field may be "" only when the body's key was "" ({"":0}).
		if e.Code == apperr.Validation && (len(e.Details) == 0 || e.Details[0].Field == "" && !bytes.Contains(data, []byte(`""`))) {
			t.Fatalf("%q: validation error without a field: %+v", data, e)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var dst fuzzTarget
		check(t, data, httpx.DecodeBytes(bytes.NewReader(data), &dst))
		// Through a small body limit, so the 413 path is explored too.
		var limited fuzzTarget
		err := httpx.DecodeBytes(http.MaxBytesReader(nil, io.NopCloser(bytes.NewReader(data)), 64), &limited)
		check(t, data, err)
		if e, ok := err.(*apperr.Error); ok && e.Code == apperr.PayloadTooLarge && len(data) <= 64 {
			t.Fatalf("%q: %d bytes refused as too large", data, len(data))
		}
	})
}
