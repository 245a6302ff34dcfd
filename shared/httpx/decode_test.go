package httpx_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tradejournal/shared/apperr"
	"tradejournal/shared/httpx"
)

// payload is a small request body with a field of each JSON kind.
type payload struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	On    bool     `json:"on"`
	Tags  []string `json:"tags"`
	Inner struct {
		Level int `json:"level"`
	} `json:"inner"`
	Note *string `json:"note"`
}

// sized returns a valid JSON object of exactly n bytes.
func sized(n int) string {
	const pre, post = `{"name":"`, `"}`
	return pre + strings.Repeat("x", n-len(pre)-len(post)) + post
}

func TestDecode(t *testing.T) {
	const jsonType = "application/json"
	for _, tc := range []struct {
		name, contentType, body string
		status                  int
		code                    apperr.Code
		field                   string // the detail's field, for VALIDATION_ERROR
	}{
		{"Valid", jsonType, `{"name":"a","count":2,"on":true,"tags":["x"],"inner":{"level":3},"note":null}`, 200, "", ""},
		{"EmptyObject", jsonType, `{}`, 200, "", ""},
		{"CharsetAccepted", "application/json; charset=utf-8", `{"name":"a"}`, 200, "", ""},
		{"MediaTypeCaseInsensitive", "Application/JSON", `{"name":"a"}`, 200, "", ""},
		{"TrailingWhitespace", jsonType, "{\"name\":\"a\"}\n\t ", 200, "", ""},
		{"ExactlyAtLimit", jsonType, sized(httpx.MaxJSONBody), 200, "", ""},

		{"UnknownField", jsonType, `{"name":"a","admin":true}`, 400, apperr.Validation, "admin"},
		{"WrongTypeString", jsonType, `{"name":5}`, 400, apperr.Validation, "name"},
		{"WrongTypeNumber", jsonType, `{"count":"5"}`, 400, apperr.Validation, "count"},
		{"WrongTypeFraction", jsonType, `{"count":1.5}`, 400, apperr.Validation, "count"},
		{"WrongTypeBool", jsonType, `{"on":"yes"}`, 400, apperr.Validation, "on"},
		{"WrongTypeArray", jsonType, `{"tags":"x"}`, 400, apperr.Validation, "tags"},
		{"WrongTypeNested", jsonType, `{"inner":{"level":"high"}}`, 400, apperr.Validation, "inner.level"},
		{"WrongTypeObject", jsonType, `{"inner":[]}`, 400, apperr.Validation, "inner"},

		{"TrailingObject", jsonType, `{"name":"a"} {}`, 400, apperr.InvalidJSON, ""},
		{"TrailingGarbage", jsonType, `{"name":"a"}x`, 400, apperr.InvalidJSON, ""},
		{"EmptyBody", jsonType, ``, 400, apperr.InvalidJSON, ""},
		{"OnlyWhitespace", jsonType, "  \n", 400, apperr.InvalidJSON, ""},
		{"Array", jsonType, `[{"name":"a"}]`, 400, apperr.InvalidJSON, ""},
		{"String", jsonType, `"a"`, 400, apperr.InvalidJSON, ""},
		{"Number", jsonType, `5`, 400, apperr.InvalidJSON, ""},
		{"Truncated", jsonType, `{"name":`, 400, apperr.InvalidJSON, ""},
		{"SyntaxError", jsonType, `{name:"a"}`, 400, apperr.InvalidJSON, ""},
		{"TextPlain", "text/plain", `{"name":"a"}`, 400, apperr.InvalidJSON, ""},
		{"FormEncoded", "application/x-www-form-urlencoded", `name=a`, 400, apperr.InvalidJSON, ""},
		{"NoContentType", "", `{"name":"a"}`, 400, apperr.InvalidJSON, ""},
		{"BrokenContentType", "application/json; charset", `{"name":"a"}`, 400, apperr.InvalidJSON, ""},

		{"OneOverLimit", jsonType, sized(httpx.MaxJSONBody + 1), 413, apperr.PayloadTooLarge, ""},
		{"Huge", jsonType, sized(2 << 20), 413, apperr.PayloadTooLarge, ""},
		{"HugeTrailingWhitespace", jsonType, `{"name":"a"}` + strings.Repeat(" ", 2<<20), 413, apperr.PayloadTooLarge, ""},
		{"HugeAfterTypeError", jsonType, `{"count":"x","name":"` + strings.Repeat("x", 2<<20) + `"}`, 413, apperr.PayloadTooLarge, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("POST", "/api/x", strings.NewReader(tc.body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			var dst payload
			err := httpx.Decode(w, r, &dst)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != tc.code {
				t.Fatalf("error %v, want code %s", err, tc.code)
			}
			if tc.field != "" {
				if len(e.Details) != 1 || e.Details[0].Field != tc.field || !strings.Contains(e.Message, tc.field) {
					t.Fatalf("error %+v does not name %q", e, tc.field)
				}
			}
			httpx.Error(w, r, err)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d", w.Code, tc.status)
			}
		})
	}
}

func TestDecodeFillsDestination(t *testing.T) {
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(`{"name":"a","count":2,"on":true,"tags":["x","y"],"inner":{"level":3},"note":"n"}`))
	r.Header.Set("Content-Type", "application/json")
	var got payload
	if err := httpx.Decode(w, r, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "a" || got.Count != 2 || !got.On || len(got.Tags) != 2 || got.Inner.Level != 3 || got.Note == nil || *got.Note != "n" {
		t.Fatalf("decoded %+v", got)
	}
}

func TestDecodeBytes(t *testing.T) {
	// Multipart JSON parts go through DecodeBytes without an HTTP limit.
	var dst payload
	big := sized(2 << 20)
	if err := httpx.DecodeBytes(bytes.NewReader([]byte(big)), &dst); err != nil {
		t.Fatalf("unbounded reader: %v", err)
	}
	if err := httpx.DecodeBytes(http.MaxBytesReader(nil, nopCloser{strings.NewReader(big)}, 64), &dst); err == nil {
		t.Fatal("no error past the reader's limit")
	} else if e, ok := apperr.As(err); !ok || e.Code != apperr.PayloadTooLarge || !strings.Contains(e.Message, "64") {
		t.Fatalf("error %v", err)
	}
	// The message names the limit, never the raw decoder text.
	err := httpx.DecodeBytes(strings.NewReader(`{"count":"5"}`), &dst)
	if e, _ := apperr.As(err); e == nil || strings.Contains(e.Message, "Go") || strings.Contains(e.Message, "json:") {
		t.Fatalf("message %v leaks decoder internals", err)
	}
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }
