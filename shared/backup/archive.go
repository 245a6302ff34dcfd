// Package backup is the backup archive of one user's journal: a zip file of
// JSON Lines entries (accounts, ledger, positions with their fills, ...) and
// the images, with a manifest that names the format, its version, the app
// that wrote it and the SHA-256 of every entry. The writer streams (each
// entry is hashed as it is written; the manifest comes last); the reader
// checks the whole archive before anything is read from it: the format and
// its version, every entry listed with the right size and hash, no entry
// unlisted, and caps on entries and bytes (a zip bomb stops at the cap).
// It holds no SQL: functions/backup reads and writes the database.
package backup

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"tradejournal/shared/apperr"
)

// Format names the archive's kind in its manifest; FormatVersion is the
// version this code writes and the newest it reads. A later version that
// changes an entry's shape raises it; every version reads the ones before.
const (
	Format        = "tradejournal-backup"
	FormatVersion = 1
	ManifestName  = "manifest.json"
)

// Error codes of a refused archive (shared/httpx maps them to 400).
const (
	CodeInvalid = apperr.InvalidBackup
	CodeTooNew  = apperr.BackupTooNew
)

// Manifest is manifest.json.
type Manifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"formatVersion"`
	AppVersion    string    `json:"appVersion"`
	CreatedAt     time.Time `json:"createdAt"`
	Entries       []Entry   `json:"entries"`
}

// Entry is one file of the archive as the manifest lists it.
type Entry struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Writer writes an archive to a stream: Create an entry, write it, Create
// the next; Close adds the manifest and ends the zip.
type Writer struct {
	zw       *zip.Writer
	manifest Manifest
	cur      *hashingWriter
	now      time.Time
}

// NewWriter starts an archive on w.
func NewWriter(w io.Writer, appVersion string, now time.Time) *Writer {
	return &Writer{zw: zip.NewWriter(w), now: now,
		manifest: Manifest{Format: Format, FormatVersion: FormatVersion, AppVersion: appVersion, CreatedAt: now.UTC()}}
}

// Create starts an entry. compress is false for data that is compressed
// already (images), which are stored as they are.
func (w *Writer) Create(name string, compress bool) (io.Writer, error) {
	w.finish()
	method := zip.Store
	if compress {
		method = zip.Deflate
	}
	zf, err := w.zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: w.now})
	if err != nil {
		return nil, err
	}
	w.cur = &hashingWriter{w: zf, h: sha256.New(), name: name}
	return w.cur, nil
}

func (w *Writer) finish() {
	if w.cur != nil {
		w.manifest.Entries = append(w.manifest.Entries, Entry{Name: w.cur.name, Size: w.cur.n, SHA256: hex.EncodeToString(w.cur.h.Sum(nil))})
		w.cur = nil
	}
}

// Close writes the manifest and the zip's directory.
func (w *Writer) Close() error {
	w.finish()
	zf, err := w.zw.CreateHeader(&zip.FileHeader{Name: ManifestName, Method: zip.Deflate, Modified: w.now})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(w.manifest); err != nil {
		return err
	}
	return w.zw.Close()
}

type hashingWriter struct {
	w    io.Writer
	h    hash.Hash
	n    int64
	name string
}

func (hw *hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.w.Write(p)
	hw.h.Write(p[:n])
	hw.n += int64(n)
	return n, err
}

// Limits bound what the reader accepts.
type Limits struct {
	MaxEntries    int   // files in the archive, the manifest included
	MaxEntryBytes int64 // uncompressed bytes of one entry
	MaxTotalBytes int64 // uncompressed bytes of all entries together
}

// DefaultLimits hold a large journal (100,000 positions with their fills
// are about 100 MB of JSON; 2,000 images of 5 MiB) and stop a zip bomb
// after at most 2 GiB of reading.
var DefaultLimits = Limits{MaxEntries: 20_000, MaxEntryBytes: 512 << 20, MaxTotalBytes: 2 << 30}

// Archive is an archive whose every entry has been checked.
type Archive struct {
	Manifest Manifest
	files    map[string]*zip.File
	limits   Limits
}

// invalid is the refusal of an archive that is not a whole, unchanged
// backup; its message is the user's.
func invalid(format string, args ...any) error {
	return apperr.New(CodeInvalid, format, args...)
}

// Open reads the archive of size bytes from r and checks it whole: a zip
// with a manifest of this format, at most this version, listing every other
// entry exactly once with its size and SHA-256. Anything else is a 400
// (apperr CodeInvalid, or CodeTooNew for a later format version).
func Open(r io.ReaderAt, size int64, lim Limits) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, invalid("This file is not a Trade Journal backup (it is not a complete zip archive).")
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, invalid("This backup holds more than %d files, more than a restore accepts.", lim.MaxEntries)
	}
	a := &Archive{files: map[string]*zip.File{}, limits: lim}
	for _, f := range zr.File {
		if _, dup := a.files[f.Name]; dup || !validName(f.Name) {
			return nil, invalid("This file is not a Trade Journal backup (it holds an unexpected file).")
		}
		a.files[f.Name] = f
	}
	mf := a.files[ManifestName]
	if mf == nil {
		return nil, invalid("This file is not a Trade Journal backup (it has no manifest).")
	}
	raw, err := readCapped(mf, 4<<20)
	if err != nil {
		return nil, invalid("This file is not a Trade Journal backup (its manifest cannot be read).")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&a.Manifest); err != nil || a.Manifest.Format != Format || a.Manifest.FormatVersion < 1 {
		return nil, invalid("This file is not a Trade Journal backup.")
	}
	if a.Manifest.FormatVersion > FormatVersion {
		return nil, apperr.New(CodeTooNew, "This backup was made by a newer version of Trade Journal (backup format %d; this one reads up to %d). Update this instance, then restore.",
			a.Manifest.FormatVersion, FormatVersion)
	}
	if err := a.verify(); err != nil {
		return nil, err
	}
	return a, nil
}

// verify holds every entry to the manifest: listed once, no more bytes than
// the caps, and the size and hash it lists.
func (a *Archive) verify() error {
	listed := map[string]bool{ManifestName: true}
	var total int64
	for _, e := range a.Manifest.Entries {
		f := a.files[e.Name]
		if f == nil || listed[e.Name] {
			return invalid("This backup is incomplete: %s is missing.", e.Name)
		}
		listed[e.Name] = true
		if e.Size < 0 || e.Size > a.limits.MaxEntryBytes || int64(f.UncompressedSize64) != e.Size {
			return invalid("This backup has been changed or damaged: %s does not have the size its manifest lists.", e.Name)
		}
		if total += e.Size; total > a.limits.MaxTotalBytes {
			return invalid("This backup is larger than a restore accepts once unpacked.")
		}
		rc, err := f.Open()
		if err != nil {
			return invalid("This backup has been changed or damaged: %s cannot be read.", e.Name)
		}
		h := sha256.New()
		n, err := io.Copy(h, io.LimitReader(rc, e.Size+1))
		rc.Close()
		if err != nil || n != e.Size || hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
			return invalid("This backup has been changed or damaged: %s does not match its checksum.", e.Name)
		}
	}
	for name := range a.files {
		if !listed[name] {
			return invalid("This backup has been changed: %s is not in its manifest.", name)
		}
	}
	return nil
}

// validName accepts the plain relative names the writer makes.
func validName(name string) bool {
	return name != "" && !strings.HasPrefix(name, "/") && path.Clean(name) == name && !slices.Contains(strings.Split(name, "/"), "..")
}

func readCapped(f *zip.File, max int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, errors.New("too large")
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, max))
}

// Has reports whether the archive holds an entry.
func (a *Archive) Has(name string) bool { return a.files[name] != nil }

// Read returns an entry's bytes (checked by Open; at most MaxEntryBytes).
func (a *Archive) Read(name string) ([]byte, error) {
	f := a.files[name]
	if f == nil || name == ManifestName {
		return nil, invalid("This backup is incomplete: %s is missing.", name)
	}
	b, err := readCapped(f, a.limits.MaxEntryBytes)
	if err != nil {
		return nil, invalid("This backup has been changed or damaged: %s cannot be read.", name)
	}
	return b, nil
}

// Lines decodes the JSON Lines entry name, one value of T per line, into
// fn, and refuses more than max lines. A missing entry has no lines. A
// line that is not a T (unknown fields included) refuses the archive.
func Lines[T any](a *Archive, name string, max int, fn func(T) error) error {
	f := a.files[name]
	if f == nil {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return invalid("This backup has been changed or damaged: %s cannot be read.", name)
	}
	defer rc.Close()
	dec := json.NewDecoder(io.LimitReader(rc, a.limits.MaxEntryBytes))
	dec.DisallowUnknownFields()
	for n := 1; ; n++ {
		var v T
		if err := dec.Decode(&v); err == io.EOF {
			return nil
		} else if err != nil {
			return invalid("This backup is not consistent: line %d of %s cannot be read.", n, name)
		}
		if n > max {
			return invalid("This backup holds more than %d records in %s, more than a restore accepts.", max, name)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
}

// LineWriter writes JSON Lines into an entry.
type LineWriter struct{ enc *json.Encoder }

// NewLineWriter returns a LineWriter on w.
func NewLineWriter(w io.Writer) LineWriter { return LineWriter{enc: json.NewEncoder(w)} }

// Write writes one value as one line.
func (l LineWriter) Write(v any) error {
	if err := l.enc.Encode(v); err != nil {
		return fmt.Errorf("backup line: %w", err)
	}
	return nil
}
