package assistant

import (
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEventReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"LF", "data: a\n\ndata: b\n\n", []string{"a", "b"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"MultiLineData", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"NoSpaceAfterColon", "data:a\n\n", []string{"a"}},
		{"CommentsAndOtherFields", ": keep-alive\nevent: x\nid: 1\nretry: 10\ndata: a\n\n", []string{"a"}},
		{"BlankLinesBetween", "\n\n\ndata: a\n\n\n", []string{"a"}},
		{"EventCutOffAtEnd", "data: a\n\ndata: b", []string{"a"}},
		{"FieldWithoutColon", "data\n\n", []string{""}},
		{"OnlyComments", ": x\n: y\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newEventReader(strings.NewReader(tt.in))
			var got []string
			for {
				d, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, d)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("LineTooLong", func(t *testing.T) {
		r := newEventReader(strings.NewReader("data: " + strings.Repeat("x", maxEventBytes+1) + "\n\n"))
		if _, err := r.Next(); !errors.Is(err, errEventTooLarge) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("EventTooLarge", func(t *testing.T) {
		line := "data: " + strings.Repeat("x", 1000) + "\n"
		r := newEventReader(strings.NewReader(strings.Repeat(line, maxEventBytes/1000+1) + "\n"))
		if _, err := r.Next(); !errors.Is(err, errEventTooLarge) {
			t.Fatalf("err %v", err)
		}
	})
}

// drain reads a stream to its end: the text, the usage, and the error it
// ended with (nil for [DONE]).
func drain(body string) (text string, usage *Usage, err error) {
	s := &stream{events: newEventReader(strings.NewReader(body)), body: io.NopCloser(nil)}
	var b strings.Builder
	for {
		p, err := s.Next()
		if errors.Is(err, errDone) {
			return b.String(), usage, nil
		}
		if err != nil {
			return b.String(), usage, err
		}
		b.WriteString(p.Text)
		if p.Usage != nil {
			usage = p.Usage
		}
	}
}

func TestStream(t *testing.T) {
	const usage = `data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34}}` + "\n\n"
	tests := []struct {
		name      string
		in        string
		text      string
		usage     *Usage
		errDetail string // "" for a clean end
	}{
		{"Normal", `data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"content":"Hel"}}]}` + "\n\n" +
			`data: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}` + "\n\n" + usage + "data: [DONE]\n\n",
			"Hello", &Usage{12, 34}, ""},
		{"NoDoneAfterFinish", `data: {"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}` + "\n\n", "a", nil, ""},
		{"EndsWithoutFinish", `data: {"choices":[{"delta":{"content":"a"}}]}` + "\n\n", "a", nil, "ended before"},
		{"ErrorEvent", `data: {"choices":[{"delta":{"content":"a"}}]}` + "\n\n" + `data: {"error":{"message":"sk-xyz","type":"server_error"}}` + "\n\n", "a", nil, "reported an error"},
		{"NotJSON", "data: {oops\n\n", "", nil, "not a completion chunk"},
		{"NegativeUsage", `data: {"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":3}}` + "\n\n", "", nil, "negative usage"},
		{"Empty", "", "", nil, "ended before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, u, err := drain(tt.in)
			if text != tt.text {
				t.Errorf("text %q, want %q", text, tt.text)
			}
			if (u == nil) != (tt.usage == nil) || (u != nil && *u != *tt.usage) {
				t.Errorf("usage %v, want %v", u, tt.usage)
			}
			switch {
			case tt.errDetail == "" && err != nil:
				t.Errorf("err %v", err)
			case tt.errDetail != "" && (err == nil || !strings.Contains(err.Error(), tt.errDetail)):
				t.Errorf("err %v, want one about %q", err, tt.errDetail)
			}
			if err != nil && strings.Contains(err.Error(), "sk-xyz") {
				t.Errorf("the provider's message reached the error: %v", err)
			}
		})
	}
}

// FuzzStream feeds arbitrary provider output to the stream decoder: it
// never panics, ends, keeps every event within its bound, reports usage
// only as non-negative counts, and its errors are provider errors that
// carry no part of the input beyond a short printable type.
func FuzzStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &stream{events: newEventReader(strings.NewReader(string(data))), body: io.NopCloser(nil)}
		total := 0
		for i := 0; ; i++ {
			if i > len(data)+2 {
				t.Fatalf("no end after %d pieces of %d bytes of input", i, len(data))
			}
			p, err := s.Next()
			if errors.Is(err, errDone) {
				if _, again := s.Next(); !errors.Is(again, errDone) {
					t.Fatalf("after the end: %v", again)
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
			total += len(p.Text)
			if total > len(data) {
				t.Fatalf("%d bytes of text from %d bytes of input", total, len(data))
			}
		}
	})
}

// BenchmarkStreamDecoder decodes a 400-delta answer with its usage: the
// parser's own cost per turn.
func BenchmarkStreamDecoder(b *testing.B) {
	var body strings.Builder
	for range 400 {
		body.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word "}}]}` + "\n\n")
	}
	body.WriteString(`data: {"choices":[],"usage":{"prompt_tokens":3000,"completion_tokens":400}}` + "\n\ndata: [DONE]\n\n")
	in := body.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, u, err := drain(in); err != nil || u == nil {
			b.Fatal(err)
		}
	}
}
