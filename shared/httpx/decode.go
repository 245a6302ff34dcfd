package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	"tradejournal/shared/apperr"
)

// MaxJSONBody bounds every JSON request body; larger bodies are refused with
// 413 before they are parsed.
const MaxJSONBody = 1 << 20

// Decode reads one JSON object from the request body into dst. It refuses a
// non-JSON content type, a body over MaxJSONBody, malformed JSON, trailing
// data, unknown fields and wrong types, each as a 4xx in the documented shape.
func Decode(w http.ResponseWriter, r *http.Request, dst any) error {
	raw, err := ReadJSON(w, r)
	if err != nil {
		return err
	}
	return decodeRaw(raw, dst)
}

// ReadJSON is Decode's HTTP half: it checks the content type and reads the
// whole body, at most MaxJSONBody bytes, for a handler with a parser of its
// own for the common shape of its body; what that parser declines goes to
// DecodeBytes.
func ReadJSON(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if !isJSON(r.Header.Get("Content-Type")) {
		return nil, apperr.New(apperr.InvalidJSON, "Content-Type must be application/json")
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxJSONBody))
	if err != nil {
		return nil, decodeError(err)
	}
	return raw, nil
}

// DecodeBytes is Decode's parser without the HTTP checks, for multipart JSON
// parts and fuzzing. It reads the body once (it is already bounded) and
// parses it once.
func DecodeBytes(body io.Reader, dst any) error {
	raw, err := io.ReadAll(body)
	if err != nil {
		return decodeError(err)
	}
	return decodeRaw(raw, dst)
}

// decodeRaw is the parser Decode and DecodeBytes share.
func decodeRaw(raw []byte, dst any) error {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(raw) == 0:
		return apperr.New(apperr.InvalidJSON, "request body is empty")
	case raw[0] != '{':
		return apperr.New(apperr.InvalidJSON, "request body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.New(apperr.InvalidJSON, "request body must hold a single JSON object")
	}
	return nil
}

func decodeError(err error) error {
	var (
		syntax    *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		tooLarge  *http.MaxBytesError
		fieldName string
	)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return ErrBodyTimeout
	case errors.As(err, &tooLarge):
		return apperr.New(apperr.PayloadTooLarge, "request body is larger than %d bytes", tooLarge.Limit)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return apperr.New(apperr.InvalidJSON, "request body must be a JSON object")
		}
		return apperr.Invalid(field, "must be "+jsonKind(typeErr.Type.Kind().String()))
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return apperr.New(apperr.InvalidJSON, "request body is not valid JSON")
	case errors.Is(err, io.EOF):
		return apperr.New(apperr.InvalidJSON, "request body is empty")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if fieldName = strings.Trim(name, `"`); fieldName == "" {
			return apperr.New(apperr.InvalidJSON, "request body has a field with an empty name")
		}
		return apperr.Invalid(fieldName, "is not a known field")
	}
	return apperr.New(apperr.InvalidJSON, "request body is not valid JSON")
}

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	}
	return "a number"
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
