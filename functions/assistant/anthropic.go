package assistant

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// anthropicVersion is the Messages API version every request names.
const anthropicVersion = "2023-06-01"

// anthropic is the Anthropic Messages API (POST {base}/messages) reached
// with one key, sent in x-api-key and nowhere else.
type anthropic struct {
	url    string
	key    string
	client *http.Client
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Source    *anthropicImage `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
}

type anthropicImage struct {
	Type      string `json:"type"` // base64
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

type anthropicMessage struct {
	Role    string           `json:"role"` // user or assistant
	Content []anthropicBlock `json:"content"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    string             `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
	// ToolChoice {"type": "none"} keeps the listed tools uncalled.
	ToolChoice *anthropicToolChoice `json:"tool_choice,omitempty"`
	Stream     bool                 `json:"stream"`
}

type anthropicToolChoice struct {
	Type string `json:"type"`
}

// anthropicBody renders a prompt as a Messages request. Tool results are
// user content; consecutive messages of one role merge into one, as the
// API wants the roles to alternate.
func anthropicBody(model string, p prompt) anthropicRequest {
	req := anthropicRequest{Model: model, MaxTokens: maxAnswerTokens, System: p.System, Stream: true}
	for _, m := range p.Messages {
		role := m.Role
		var blocks []anthropicBlock
		switch role {
		case "tool":
			role = "user"
			blocks = []anthropicBlock{{Type: "tool_result", ToolUseID: m.CallID, Content: m.Text}}
		default:
			if m.Text != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Text})
			}
			for _, img := range m.Images {
				blocks = append(blocks, anthropicBlock{Type: "image", Source: &anthropicImage{Type: "base64", MediaType: img.MediaType,
					Data: base64.StdEncoding.EncodeToString(img.Data)}})
			}
			for _, c := range m.Calls {
				blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Arguments})
			}
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == role {
			req.Messages[n-1].Content = append(req.Messages[n-1].Content, blocks...)
			continue
		}
		req.Messages = append(req.Messages, anthropicMessage{Role: role, Content: blocks})
	}
	for _, t := range p.Tools {
		req.Tools = append(req.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
	}
	if p.Final && len(req.Tools) > 0 {
		req.ToolChoice = &anthropicToolChoice{Type: "none"}
	}
	return req
}

func (a *anthropic) open(ctx context.Context, model string, p prompt) (answerStream, error) {
	res, err := post(ctx, a.client, a.url, anthropicBody(model, p), func(h http.Header) {
		h.Set("x-api-key", a.key)
		h.Set("anthropic-version", anthropicVersion)
	})
	if err != nil {
		return nil, err
	}
	return &anthropicStream{events: newEventReader(res.Body), body: res.Body}, nil
}

// anthropicEvent is the part of a Messages stream event a turn uses. The
// event's type is in its data as well as its event line; only the data is
// read.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type anthropicUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// anthropicStream decodes a Messages stream: message_start (the prompt's
// tokens), content blocks of text or tool_use (text_delta and
// input_json_delta), message_delta (the answer's tokens so far), then
// message_stop. Usage is reported once, at message_stop; an error event or
// a body that ends before message_stop is a *ProviderError.
type anthropicStream struct {
	events *eventReader
	body   io.Closer
	done   bool
	usage  Usage
	tools  map[int]bool // content blocks that are tool_use
	calls  callBuilder
}

func (s *anthropicStream) Next() (piece, error) {
	for {
		if s.done {
			return piece{}, errDone
		}
		data, err := s.events.Next()
		if errors.Is(err, io.EOF) {
			s.done = true
			return piece{}, &ProviderError{Detail: "the stream ended before the answer did"}
		}
		if err != nil {
			var pe *ProviderError
			if errors.As(err, &pe) {
				return piece{}, err
			}
			return piece{}, &ProviderError{Detail: "the stream broke: " + err.Error()}
		}
		var ev anthropicEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return piece{}, &ProviderError{Detail: "the stream sent an event that is not a Messages event"}
		}
		switch ev.Type {
		case "error":
			pe := &ProviderError{Detail: "the stream reported an error"}
			if ev.Error != nil {
				pe.Type, pe.TooLong = providerErrorType(ev.Error.Type, nil), saysTooLong(ev.Error.Message)
			}
			return piece{}, pe
		case "message_start":
			if ev.Message != nil {
				if err := s.count(ev.Message.Usage); err != nil {
					return piece{}, err
				}
			}
		case "content_block_start":
			if b := ev.ContentBlock; b != nil {
				if b.Type == "tool_use" {
					if s.tools == nil {
						s.tools = map[int]bool{}
					}
					s.tools[ev.Index] = true
					if err := s.calls.add(ev.Index, b.ID, b.Name, ""); err != nil {
						return piece{}, err
					}
				} else if b.Text != "" {
					return piece{Text: b.Text}, nil
				}
			}
		case "content_block_delta":
			switch d := ev.Delta; {
			case d == nil:
			case d.Type == "text_delta" && d.Text != "":
				return piece{Text: d.Text}, nil
			case d.Type == "input_json_delta" && s.tools[ev.Index]:
				if err := s.calls.add(ev.Index, "", "", d.PartialJSON); err != nil {
					return piece{}, err
				}
			}
		case "message_delta":
			if ev.Usage != nil {
				if err := s.count(*ev.Usage); err != nil {
					return piece{}, err
				}
			}
		case "message_stop":
			s.done = true
			u := s.usage
			return piece{Usage: &u}, nil
		}
		// ping, content_block_stop and event types added later say nothing a turn needs.
	}
}

// count takes the usage of message_start (the prompt) and message_delta
// (the answer, cumulative): each figure the latest non-zero one.
func (s *anthropicStream) count(u anthropicUsage) error {
	if u.InputTokens < 0 || u.OutputTokens < 0 {
		return &ProviderError{Detail: "the stream reported negative usage"}
	}
	if u.InputTokens > 0 {
		s.usage.PromptTokens = u.InputTokens
	}
	if u.OutputTokens > 0 {
		s.usage.CompletionTokens = u.OutputTokens
	}
	return nil
}

func (s *anthropicStream) Calls() []toolCall { return s.calls.done() }

func (s *anthropicStream) Close() error { return s.body.Close() }

// apiFor returns the client of a provider kind at its API root.
func apiFor(kind, base, key string, client *http.Client) modelAPI {
	if kind == "anthropic" {
		return &anthropic{url: strings.TrimSuffix(base, "/") + "/messages", key: key, client: client}
	}
	return &openAI{url: strings.TrimSuffix(base, "/") + "/chat/completions", key: key, client: client}
}
