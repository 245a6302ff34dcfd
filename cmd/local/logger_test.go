package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"testing"
)

func TestLoggerFormat(t *testing.T) {
	t.Run("JSONWhenNotATerminal", func(t *testing.T) {
		var buf bytes.Buffer
		newLogger("info", &buf).Info("serving", "addr", "127.0.0.1:3100")
		if _, ok := newLogger("info", &buf).Handler().(*slog.JSONHandler); !ok {
			t.Fatal("not slog's JSONHandler")
		}
		var line map[string]any
		if err := json.Unmarshal(buf.Bytes(), &line); err != nil || line["msg"] != "serving" {
			t.Fatalf("want one JSON line, got %q (%v)", buf.String(), err)
		}
	})
	t.Run("JSONToAFile", func(t *testing.T) {
		f, err := os.Create(t.TempDir() + "/log")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if isTerminal(f) {
			t.Fatal("a regular file is not a terminal")
		}
	})
	t.Run("TextOnATerminal", func(t *testing.T) {
		// /dev/tty is a terminal only when the test has one; /dev/ptmx
		// (the pseudo-terminal multiplexer) is a character device on
		// every Linux machine, which is what the check looks at.
		tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
		if err != nil {
			t.Fatalf("no pseudo-terminal device: %v", err)
		}
		defer tty.Close()
		if !isTerminal(tty) {
			t.Fatal("/dev/ptmx is not seen as a terminal")
		}
		if _, ok := newLogger("info", tty).Handler().(*slog.TextHandler); !ok {
			t.Fatalf("handler %T on a terminal, want slog's TextHandler", newLogger("info", tty).Handler())
		}
	})
	t.Run("LevelFromLOG_LEVEL", func(t *testing.T) {
		var buf bytes.Buffer
		newLogger("warn", &buf).Info("hidden")
		if buf.Len() != 0 {
			t.Fatalf("info logged at warn: %q", buf.String())
		}
	})
}
