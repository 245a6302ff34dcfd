package backup

import (
	"archive/zip"
	"bytes"
	"testing"
	"time"

	"tradejournal/shared/apperr"
)

// sample is a small archive as the writer makes it.
func sample(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, "v1.2.3", time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC))
	for name, body := range map[string]string{
		EntryAccounts:   `{"id":"a1","name":"Main","currency":"USD","timezone":"UTC","startingBalance":"1","defaultRiskPercent":null,"brokerageId":null,"archived":false,"demo":false,"createdAt":"2025-01-01T00:00:00Z"}` + "\n",
		ImageDir + "i1": "\x89PNG\r\n\x1a\n",
	} {
		ew, err := w.Create(name, name == EntryAccounts)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = ew.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func code(err error) apperr.Code {
	if e, ok := apperr.As(err); ok {
		return e.Code
	}
	return ""
}

func TestOpenWhatTheWriterWrote(t *testing.T) {
	data := sample(t)
	a, err := Open(bytes.NewReader(data), int64(len(data)), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if a.Manifest.AppVersion != "v1.2.3" || len(a.Manifest.Entries) != 2 {
		t.Fatalf("manifest %+v", a.Manifest)
	}
	var names []string
	if err := Lines(a, EntryAccounts, 1, func(acc Account) error { names = append(names, acc.Name); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "Main" {
		t.Fatalf("accounts %v", names)
	}
	if err := Lines(a, EntryAccounts, 0, func(Account) error { return nil }); code(err) != CodeInvalid {
		t.Fatalf("more lines than the cap: %v", err)
	}
	if b, err := a.Read(ImageDir + "i1"); err != nil || string(b) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("image %q %v", b, err)
	}
}

// TestLimits: an archive past a cap is refused before it is read whole.
func TestLimits(t *testing.T) {
	data := sample(t)
	for name, lim := range map[string]Limits{
		"Entries":    {MaxEntries: 2, MaxEntryBytes: 1 << 20, MaxTotalBytes: 1 << 20},
		"EntryBytes": {MaxEntries: 10, MaxEntryBytes: 10, MaxTotalBytes: 1 << 20},
		"TotalBytes": {MaxEntries: 10, MaxEntryBytes: 1 << 20, MaxTotalBytes: 100},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Open(bytes.NewReader(data), int64(len(data)), lim); code(err) != CodeInvalid {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// TestRefusals: whatever is wrong, the answer is an apperr of the two
// backup codes, never another error.
func TestRefusals(t *testing.T) {
	data := sample(t)
	flip := bytes.Clone(data)
	// The stored image's bytes sit in the clear: change one.
	i := bytes.Index(flip, []byte("\x89PNG"))
	flip[i+1] = 'X'
	for name, body := range map[string][]byte{
		"Empty":     nil,
		"NotAZip":   []byte("hello"),
		"Truncated": data[:len(data)-10],
		"Changed":   flip,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(bytes.NewReader(body), int64(len(body)), DefaultLimits)
			if c := code(err); c != CodeInvalid {
				t.Fatalf("got %v", err)
			}
		})
	}
}

// FuzzOpen feeds arbitrary bytes to the reader: it never panics, and
// refuses with one of its two codes or accepts an archive whose every
// entry then reads. Seeds in testdata/fuzz/FuzzOpen and the sample.
func FuzzOpen(f *testing.F) {
	f.Add(sample(f))
	var empty bytes.Buffer
	_ = zip.NewWriter(&empty).Close()
	f.Add(empty.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxEntries: 50, MaxEntryBytes: 1 << 20, MaxTotalBytes: 4 << 20}
		a, err := Open(bytes.NewReader(data), int64(len(data)), lim)
		if err != nil {
			if c := code(err); c != CodeInvalid && c != CodeTooNew {
				t.Fatalf("refused with %v", err)
			}
			return
		}
		for _, e := range a.Manifest.Entries {
			if b, err := a.Read(e.Name); err != nil || int64(len(b)) != e.Size {
				t.Fatalf("entry %s: %d bytes, %v", e.Name, len(b), err)
			}
		}
		err = Lines(a, EntryPositions, 100, func(Position) error { return nil })
		if err != nil && code(err) != CodeInvalid {
			t.Fatalf("lines: %v", err)
		}
	})
}
