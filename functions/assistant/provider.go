package assistant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"tradejournal/shared/config"
)

// The provider is one OpenAI-compatible chat-completions endpoint, reached
// with stream: true and stream_options.include_usage, so the answer arrives
// as server-sent events of chat.completion.chunk objects and the last chunk
// before [DONE] reports the tokens the turn used.

// maxAnswerTokens bounds one answer; it also sizes the credit reservation.
const maxAnswerTokens = 2048

// Limits of what the stream decoder accepts from the provider, so a broken
// or hostile endpoint cannot make a turn hold unbounded memory.
const (
	maxEventBytes  = 1 << 20 // one event's data
	maxAnswerBytes = 1 << 20 // the answer text of one turn
)

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
	MaxTokens     int           `json:"max_tokens"`
}

// Usage is what the provider reports a turn used.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// provider is the configured endpoint. Its key goes into the Authorization
// header and nowhere else: errors and logs carry the status and the
// provider's error type, never the key or a request body.
type provider struct {
	url    string
	key    string
	model  string
	client *http.Client
}

func newProvider(cfg config.Assistant) *provider {
	return &provider{url: cfg.BaseURL + "/chat/completions", key: cfg.APIKey, model: cfg.Model, client: &http.Client{}}
}

// ProviderError is a failed provider call: a refused request (Status set)
// or a stream that broke or reported an error.
type ProviderError struct {
	Status int    // HTTP status of a refused request, 0 for a stream failure
	Type   string // the provider's error type or code, when it sent one
	Detail string // what went wrong, without any secret
}

func (e *ProviderError) Error() string {
	msg := "assistant provider: " + e.Detail
	if e.Status != 0 {
		msg += fmt.Sprintf(" (status %d)", e.Status)
	}
	if e.Type != "" {
		msg += " (" + e.Type + ")"
	}
	return msg
}

// open starts a streamed completion. The response body is the caller's to
// close (through the returned stream).
func (p *provider) open(ctx context.Context, messages []chatMessage) (*stream, error) {
	body, err := json.Marshal(chatRequest{Model: p.model, Messages: messages, Stream: true,
		StreamOptions: streamOptions{IncludeUsage: true}, MaxTokens: maxAnswerTokens})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, &ProviderError{Detail: "the request could not be built"}
	}
	req.Header.Set("Authorization", "Bearer "+p.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := p.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A *url.Error names the URL, which never holds the key.
		return nil, &ProviderError{Detail: "the request failed: " + err.Error()}
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		return nil, &ProviderError{Status: res.StatusCode, Type: errorType(io.LimitReader(res.Body, 64<<10)), Detail: "the request was refused"}
	}
	return &stream{events: newEventReader(res.Body), body: res.Body}, nil
}

// errorType reads the type or code of an OpenAI-style error body
// ({"error": {"type": ..., "code": ...}}), and only that: the message may
// echo part of the key.
func errorType(r io.Reader) string {
	var body struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		} `json:"error"`
	}
	if json.NewDecoder(r).Decode(&body) != nil {
		return ""
	}
	return providerErrorType(body.Error.Type, body.Error.Code)
}

// providerErrorType picks the code (or else the type) of a provider error
// for a log line: printable ASCII of bounded length, or nothing.
func providerErrorType(typ string, code any) string {
	if c, ok := code.(string); ok && c != "" {
		typ = c
	}
	if len(typ) > 64 || strings.ContainsFunc(typ, func(r rune) bool { return r < ' ' || r > '~' }) {
		return ""
	}
	return typ
}

// chunk is the part of a chat.completion.chunk a turn uses. Some providers
// send an error object inside the stream instead of failing the request.
type chunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Type string `json:"type"`
		Code any    `json:"code"`
	} `json:"error"`
}

// stream decodes a streamed completion one piece at a time.
type stream struct {
	events *eventReader
	body   io.Closer
	done   bool
	// finished: a choice carried a finish reason, so a body that ends
	// without [DONE] still ended the answer (some compatible servers omit it).
	finished bool
}

// piece is one step of the answer: text to show, or the usage report.
type piece struct {
	Text  string
	Usage *Usage
}

// errDone is Next's answer after [DONE] or the end of the body.
var errDone = errors.New("end of stream")

// Next returns the next piece: a delta's text, or the usage report. It
// returns errDone at [DONE] (or at the end of the body after a finish
// reason), a *ProviderError for anything the provider got wrong, and the
// context's error when the read was cut off.
func (s *stream) Next() (piece, error) {
	for {
		if s.done {
			return piece{}, errDone
		}
		data, err := s.events.Next()
		if errors.Is(err, io.EOF) {
			s.done = true
			if s.finished {
				return piece{}, errDone
			}
			return piece{}, &ProviderError{Detail: "the stream ended before the answer did"}
		}
		if err != nil {
			var pe *ProviderError
			if errors.As(err, &pe) {
				return piece{}, err
			}
			return piece{}, &ProviderError{Detail: "the stream broke: " + err.Error()}
		}
		if strings.TrimSpace(data) == "[DONE]" {
			s.done = true
			return piece{}, errDone
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return piece{}, &ProviderError{Detail: "the stream sent an event that is not a completion chunk"}
		}
		if c.Error != nil {
			return piece{}, &ProviderError{Type: providerErrorType(c.Error.Type, c.Error.Code), Detail: "the stream reported an error"}
		}
		if c.Usage != nil {
			if c.Usage.PromptTokens < 0 || c.Usage.CompletionTokens < 0 {
				return piece{}, &ProviderError{Detail: "the stream reported negative usage"}
			}
			return piece{Usage: &Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}}, nil
		}
		var text strings.Builder
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				s.finished = true
			}
		}
		if text.Len() > 0 {
			return piece{Text: text.String()}, nil
		}
	}
}

// Close releases the response body.
func (s *stream) Close() error { return s.body.Close() }

// eventReader reads server-sent events (the WHATWG event-stream format) and
// returns the data of each: data lines joined with "\n", comments and other
// fields skipped, lines ended by CRLF, LF or CR.
type eventReader struct {
	r     io.Reader
	store []byte // backing array of buf
	buf   []byte // read but not yet consumed
	eof   error  // the reader's final error, once seen
	// pendingCR: the last line ended with CR, so a LF that comes next
	// belongs to it.
	pendingCR bool
}

func newEventReader(r io.Reader) *eventReader {
	return &eventReader{r: r, store: make([]byte, 0, 16<<10)}
}

// errEventTooLarge refuses an event (or a line) over maxEventBytes.
var errEventTooLarge = &ProviderError{Detail: fmt.Sprintf("the stream sent an event over %d bytes", maxEventBytes)}

// Next returns the data of the next event that has any. At the end of the
// input it returns io.EOF; an event cut off by the end is dropped, as the
// format says.
func (e *eventReader) Next() (string, error) {
	var data []byte
	has := false
	for {
		line, err := e.readLine()
		if err != nil {
			return "", err
		}
		if len(line) == 0 {
			if has {
				return string(data), nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(line, []byte{':'})
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if string(field) != "data" {
			continue
		}
		if has {
			data = append(data, '\n')
		}
		if len(data)+len(value) > maxEventBytes {
			return "", errEventTooLarge
		}
		data = append(data, value...)
		has = true
	}
}

// readLine returns the next line without its terminator, or the reader's
// error (io.EOF) when the input ends; a last line without a terminator is
// returned first. The line is valid until the next call.
func (e *eventReader) readLine() ([]byte, error) {
	for {
		if e.pendingCR && len(e.buf) > 0 {
			e.pendingCR = false
			if e.buf[0] == '\n' {
				e.buf = e.buf[1:]
			}
		}
		if !e.pendingCR {
			if i := bytes.IndexAny(e.buf, "\r\n"); i >= 0 {
				line := e.buf[:i]
				e.pendingCR = e.buf[i] == '\r'
				e.buf = e.buf[i+1:]
				return line, nil
			}
		}
		if len(e.buf) > maxEventBytes {
			return nil, errEventTooLarge
		}
		if e.eof != nil {
			e.pendingCR = false
			if len(e.buf) > 0 {
				line := e.buf
				e.buf = nil
				return line, nil
			}
			return nil, e.eof
		}
		e.fill()
	}
}

// fill reads more input after what is left in buf, growing the store when
// buf fills it (readLine bounds it by refusing a line over maxEventBytes).
func (e *eventReader) fill() {
	n := copy(e.store[:cap(e.store)], e.buf)
	if n == cap(e.store) {
		grown := make([]byte, n, 2*cap(e.store))
		copy(grown, e.store[:n])
		e.store = grown
	}
	m, err := e.r.Read(e.store[n:cap(e.store)])
	e.store = e.store[:n+m]
	e.buf = e.store
	if err != nil {
		e.eof = err
	}
}
