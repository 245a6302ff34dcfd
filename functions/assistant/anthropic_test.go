package assistant

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func drainAnthropic(body string) (text string, usage *Usage, calls []toolCall, err error) {
	s := &anthropicStream{events: newEventReader(strings.NewReader(body)), body: io.NopCloser(nil)}
	var b strings.Builder
	for {
		p, err := s.Next()
		if errors.Is(err, errDone) {
			return b.String(), usage, s.Calls(), nil
		}
		if err != nil {
			return b.String(), usage, s.Calls(), err
		}
		b.WriteString(p.Text)
		if p.Usage != nil {
			usage = p.Usage
		}
	}
}

func TestAnthropicStream(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n"
	const stop = "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":15}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	tests := []struct {
		name      string
		in        string
		text      string
		usage     *Usage
		calls     string
		errDetail string
		problem   string
	}{
		{"Text", start + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
			"event: ping\ndata: {\"type\": \"ping\"}\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}` + "\n\n" +
			`data: {"type":"content_block_stop","index":0}` + "\n\n" + stop, "Hello", &Usage{25, 15}, "", "", ""},
		{"ToolUse", start + `data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"statistics","input":{}}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"sym"}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"bol\":\"A\"}"}}` + "\n\n" + stop,
			"", &Usage{25, 15}, `toolu_1 statistics {"symbol":"A"}`, "", ""},
		{"ToolInputNotJSON", start + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n"}}` + "\n\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a"}}` + "\n\n" + stop,
			"", &Usage{25, 15}, `t n "{\"a"`, "", ""},
		{"ToolWithoutInput", start + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"n"}}` + "\n\n" + stop,
			"", &Usage{25, 15}, `t n {}`, "", ""},
		{"ErrorEvent", start + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", "", nil, "", "reported an error", "overloaded"},
		{"TooLong", `data: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens"}}` + "\n\n", "", nil, "", "reported an error", "context_too_long"},
		{"CutBeforeStop", start + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}` + "\n\n", "a", nil, "", "ended before", "unavailable"},
		{"NotJSON", "data: {oops\n\n", "", nil, "", "not a Messages event", "unavailable"},
		{"NegativeUsage", `data: {"type":"message_delta","usage":{"output_tokens":-3}}` + "\n\n", "", nil, "", "negative usage", "unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, u, calls, err := drainAnthropic(tt.in)
			if text != tt.text {
				t.Errorf("text %q, want %q", text, tt.text)
			}
			if (u == nil) != (tt.usage == nil) || (u != nil && *u != *tt.usage) {
				t.Errorf("usage %v, want %v", u, tt.usage)
			}
			var got []string
			for _, c := range calls {
				got = append(got, c.ID+" "+c.Name+" "+string(c.Arguments))
			}
			if strings.Join(got, "|") != tt.calls {
				t.Errorf("calls %q, want %q", got, tt.calls)
			}
			var pe *ProviderError
			switch {
			case tt.errDetail == "" && err != nil:
				t.Fatalf("err %v", err)
			case tt.errDetail != "" && (!errors.As(err, &pe) || !strings.Contains(pe.Detail, tt.errDetail) || pe.Problem() != tt.problem):
				t.Fatalf("err %v, want %q (%s)", err, tt.errDetail, tt.problem)
			}
		})
	}
}

func TestProblemOfRefusals(t *testing.T) {
	for _, tc := range []struct {
		e    ProviderError
		want string
	}{
		{ProviderError{Status: 401}, "key_invalid"},
		{ProviderError{Status: 400, Type: "invalid_api_key"}, "key_invalid"},
		{ProviderError{Status: 429}, "rate_limited"},
		{ProviderError{Status: 529, Type: "overloaded_error"}, "overloaded"},
		{ProviderError{Status: 400, Type: "context_length_exceeded"}, "context_too_long"},
		{ProviderError{Status: 400, TooLong: true}, "context_too_long"},
		{ProviderError{Status: 500}, "unavailable"},
	} {
		if got := tc.e.Problem(); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.e, got, tc.want)
		}
	}
}

// FuzzAnthropicStream: whatever the provider sends, the reader ends with
// errDone or a *ProviderError, never panics, reports no negative usage and
// gathers bounded tool calls.
func FuzzAnthropicStream(f *testing.F) {
	f.Add([]byte("data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n"))
	f.Add([]byte("data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"x\",\"name\":\"y\"}}\n\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\ndata: {\"type\":\"message_stop\"}\n\n"))
	f.Add([]byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &anthropicStream{events: newEventReader(strings.NewReader(string(data))), body: io.NopCloser(nil)}
		for i := 0; ; i++ {
			if i > len(data)+2 {
				t.Fatalf("no end after %d pieces of %d bytes of input", i, len(data))
			}
			p, err := s.Next()
			if errors.Is(err, errDone) {
				calls := s.Calls()
				if len(calls) > maxToolCalls {
					t.Fatalf("%d calls", len(calls))
				}
				for _, c := range calls {
					if !json.Valid(c.Arguments) {
						t.Fatalf("arguments %q are not JSON", c.Arguments)
					}
				}
				return
			}
			if err != nil {
				var pe *ProviderError
				if !errors.As(err, &pe) {
					t.Fatalf("error %T %v is not a *ProviderError", err, err)
				}
				if len(pe.Type) > 64 || !utf8.ValidString(pe.Type) {
					t.Fatalf("error type %q", pe.Type)
				}
				return
			}
			if p.Usage != nil && (p.Usage.PromptTokens < 0 || p.Usage.CompletionTokens < 0) {
				t.Fatalf("usage %+v", p.Usage)
			}
			if p.Usage == nil && p.Text == "" {
				t.Fatal("an empty piece")
			}
		}
	})
}

// The last round of a turn keeps its tools listed, as the messages hold
// calls of them, and lets none be called: tool_choice "none" in each API's
// shape; earlier rounds leave the choice to the model.
func TestFinalRoundToolChoice(t *testing.T) {
	p := prompt{Messages: []promptMessage{{Role: "user", Text: "hi"}}, Tools: []toolSpec{{Name: "quote", Parameters: json.RawMessage(`{}`)}}}
	for _, final := range []bool{false, true} {
		p.Final = final
		a, err := json.Marshal(anthropicBody("m", p))
		if err != nil {
			t.Fatal(err)
		}
		o, err := json.Marshal(openAIBody("m", p))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(a), `"tool_choice":{"type":"none"}`); got != final || !strings.Contains(string(a), `"tools":[`) {
			t.Fatalf("final %v, Anthropic: %s", final, a)
		}
		if got := strings.Contains(string(o), `"tool_choice":"none"`); got != final || !strings.Contains(string(o), `"tools":[`) {
			t.Fatalf("final %v, OpenAI: %s", final, o)
		}
	}
	// Without tools there is no choice to make.
	p.Tools = nil
	if a, _ := json.Marshal(anthropicBody("m", p)); strings.Contains(string(a), "tool_choice") {
		t.Fatalf("Anthropic without tools: %s", a)
	}
}
