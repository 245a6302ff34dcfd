package assistant

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"tradejournal/shared/assistantdata"
)

// Two provider APIs answer a turn, both streamed as server-sent events: an
// OpenAI-compatible chat-completions endpoint (stream: true with
// stream_options.include_usage, so the last chunk before [DONE] reports the
// tokens used) and the Anthropic Messages API (anthropic.go). A turn builds
// one provider-neutral prompt; each API's client renders it in its own shape.

// maxAnswerTokens bounds one answer; it also sizes the credit reservation.
const maxAnswerTokens = 2048

// Limits of what the stream decoder accepts from the provider, so a broken
// or hostile endpoint cannot make a turn hold unbounded memory.
const (
	maxEventBytes  = 1 << 20                            // one event's data
	maxAnswerBytes = 1 << 20                            // the answer text of one turn
	maxToolCalls   = assistantdata.MaxToolCallsPerRound // tool calls of one answer
)

// prompt is what a model gets, in neither API's shape.
type prompt struct {
	System   string
	Messages []promptMessage
	Tools    []toolSpec // none: no tool is offered
	// Final: the model must answer now. The tools stay listed (the
	// messages may hold calls of them, which both APIs want defined) but
	// tool_choice "none" lets it call none.
	Final bool
}

// promptMessage is one message: a user's question (with its images), an
// answer (with the tool calls it asked for), or a tool's result.
type promptMessage struct {
	Role   string // user, assistant or tool
	Text   string
	Images []image    // user
	Calls  []toolCall // assistant
	CallID string     // tool: the call this is the result of
}

// image is an attached image, sent as an image part.
type image struct {
	MediaType string
	Data      []byte
}

// toolCall is one call the model asked for; Arguments is a JSON object.
type toolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// toolSpec is a tool as offered to the model.
type toolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments object
}

// modelAPI is one provider API reached with one key.
type modelAPI interface {
	open(ctx context.Context, model string, p prompt) (answerStream, error)
}

// answerStream is a streamed answer: text pieces and the usage report, then
// errDone; after errDone, Calls returns the tool calls the answer ended with.
type answerStream interface {
	Next() (piece, error)
	Calls() []toolCall
	Close() error
}

// openAIMessage is a chat-completions message: Content is a string, an
// array of parts (text and image_url) or null beside tool calls.
type openAIMessage struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"`
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatRequest struct {
	Model         string          `json:"model"`
	Messages      []openAIMessage `json:"messages"`
	Tools         []openAITool    `json:"tools,omitempty"`
	ToolChoice    string          `json:"tool_choice,omitempty"`
	Stream        bool            `json:"stream"`
	StreamOptions streamOptions   `json:"stream_options"`
	MaxTokens     int             `json:"max_tokens"`
}

// openAIBody renders a prompt as a chat-completions request.
func openAIBody(model string, p prompt) chatRequest {
	msgs := []openAIMessage{{Role: "system", Content: p.System}}
	for _, m := range p.Messages {
		switch {
		case m.Role == "tool":
			msgs = append(msgs, openAIMessage{Role: "tool", Content: m.Text, ToolCallID: m.CallID})
		case len(m.Calls) > 0:
			om := openAIMessage{Role: "assistant"}
			if m.Text != "" {
				om.Content = m.Text
			}
			for _, c := range m.Calls {
				tc := openAIToolCall{ID: c.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = c.Name, string(c.Arguments)
				om.ToolCalls = append(om.ToolCalls, tc)
			}
			msgs = append(msgs, om)
		case len(m.Images) > 0:
			parts := []any{map[string]any{"type": "text", "text": m.Text}}
			for _, img := range m.Images {
				parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]string{"url": img.dataURL()}})
			}
			msgs = append(msgs, openAIMessage{Role: m.Role, Content: parts})
		default:
			msgs = append(msgs, openAIMessage{Role: m.Role, Content: m.Text})
		}
	}
	req := chatRequest{Model: model, Messages: msgs, Stream: true, StreamOptions: streamOptions{IncludeUsage: true}, MaxTokens: maxAnswerTokens}
	for _, t := range p.Tools {
		ot := openAITool{Type: "function"}
		ot.Function.Name, ot.Function.Description, ot.Function.Parameters = t.Name, t.Description, t.Parameters
		req.Tools = append(req.Tools, ot)
	}
	if p.Final && len(req.Tools) > 0 {
		req.ToolChoice = "none"
	}
	return req
}

func (img image) dataURL() string {
	return "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// Usage is what the provider reports a turn used (summed over its rounds).
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// openAI is an OpenAI-compatible endpoint. Its key goes into the
// Authorization header and nowhere else: errors and logs carry the status
// and the provider's error type, never the key or a request body.
type openAI struct {
	url    string
	key    string
	client *http.Client
}

// ProviderError is a failed provider call: a refused request (Status set)
// or a stream that broke or reported an error.
type ProviderError struct {
	Status  int    // HTTP status of a refused request, 0 for a stream failure
	Type    string // the provider's error type or code, when it sent one
	TooLong bool   // the provider said the prompt is too long for the model
	Detail  string // what went wrong, without any secret
}

// Problem names the kind of failure for the trader's screen: key_invalid,
// rate_limited, overloaded, context_too_long or unavailable.
func (e *ProviderError) Problem() string {
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden ||
		e.Type == "invalid_api_key" || e.Type == "authentication_error" || e.Type == "permission_error":
		return "key_invalid"
	case e.Status == http.StatusTooManyRequests || e.Type == "rate_limit_error" || e.Type == "rate_limit_exceeded":
		return "rate_limited"
	case e.Status == 529 || e.Status == http.StatusServiceUnavailable || e.Type == "overloaded_error":
		return "overloaded"
	case e.TooLong || e.Type == "context_length_exceeded":
		return "context_too_long"
	}
	return "unavailable"
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
func (p *openAI) open(ctx context.Context, model string, pr prompt) (answerStream, error) {
	res, err := post(ctx, p.client, p.url, openAIBody(model, pr), func(h http.Header) {
		h.Set("Authorization", "Bearer "+p.key)
	})
	if err != nil {
		return nil, err
	}
	return &stream{events: newEventReader(res.Body), body: res.Body}, nil
}

// post sends a streamed request and returns the 200 response; a refusal
// becomes a *ProviderError with the provider's error type and what kind of
// problem it is.
func post(ctx context.Context, client *http.Client, url string, v any, auth func(http.Header)) (*http.Response, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, &ProviderError{Detail: "the request could not be built"}
	}
	auth(req.Header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A *url.Error names the URL, which never holds the key.
		return nil, &ProviderError{Detail: "the request failed: " + err.Error()}
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		typ, long := errorType(io.LimitReader(res.Body, 64<<10))
		return nil, &ProviderError{Status: res.StatusCode, Type: typ, TooLong: long, Detail: "the request was refused"}
	}
	return res, nil
}

// errorType reads the type or code of an error body (OpenAI's {"error":
// {"type", "code"}} and Anthropic's {"type": "error", "error": {"type"}}),
// and whether its message says the prompt is too long; the message itself
// is never kept: it may echo part of the key.
func errorType(r io.Reader) (typ string, tooLong bool) {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.NewDecoder(r).Decode(&body) != nil {
		return "", false
	}
	return providerErrorType(body.Error.Type, body.Error.Code), saysTooLong(body.Error.Message)
}

// saysTooLong recognises the providers' "context too long" messages.
func saysTooLong(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "too long") || strings.Contains(msg, "context length") || strings.Contains(msg, "maximum context")
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
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Message string `json:"message"`
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
	calls    callBuilder
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
			return piece{}, &ProviderError{Type: providerErrorType(c.Error.Type, c.Error.Code), TooLong: saysTooLong(c.Error.Message), Detail: "the stream reported an error"}
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
			for _, tc := range ch.Delta.ToolCalls {
				if err := s.calls.add(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
					return piece{}, err
				}
			}
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

// Calls returns the tool calls the answer asked for.
func (s *stream) Calls() []toolCall { return s.calls.done() }

// callBuilder gathers streamed tool calls: each starts with its id and
// name, and its arguments arrive in pieces, by index (OpenAI) or content
// block (Anthropic). Bounded in number and size.
type callBuilder struct {
	calls []toolCall
	index map[int]int // stream index -> position in calls
	size  int
}

var errTooManyCalls = &ProviderError{Detail: "the stream asked for too many tool calls or sent too large arguments"}

func (b *callBuilder) add(index int, id, name, args string) error {
	if b.index == nil {
		b.index = map[int]int{}
	}
	i, ok := b.index[index]
	if !ok {
		if len(b.calls) >= maxToolCalls {
			return errTooManyCalls
		}
		i = len(b.calls)
		b.index[index] = i
		b.calls = append(b.calls, toolCall{})
	}
	c := &b.calls[i]
	if id != "" {
		c.ID = id
	}
	if name != "" {
		c.Name = name
	}
	b.size += len(args)
	if b.size > maxEventBytes {
		return errTooManyCalls
	}
	c.Arguments = append(c.Arguments, args...)
	return nil
}

// done returns the gathered calls. Arguments that are empty become {};
// arguments that are not JSON (a model's slip) become a JSON string of
// their text, so every later encoding of the call stays valid JSON and
// the tool answers that its arguments do not fit.
func (b *callBuilder) done() []toolCall {
	for i := range b.calls {
		args := &b.calls[i].Arguments
		switch {
		case len(bytes.TrimSpace(*args)) == 0:
			*args = json.RawMessage("{}")
		case !json.Valid(*args):
			*args, _ = json.Marshal(string(*args))
		}
	}
	return b.calls
}

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
