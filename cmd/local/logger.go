package main

import (
	"io"
	"log/slog"
	"os"
)

// newLogger is the local host's logger at LOG_LEVEL, writing to out: lines
// a person reads (slog's key=value text) when out is a terminal, as under
// `make run`, and JSON otherwise (compose, a log collector, a file).
func newLogger(level string, out io.Writer) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	if isTerminal(out) {
		return slog.New(slog.NewTextHandler(out, opts))
	}
	return slog.New(slog.NewJSONHandler(out, opts))
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
