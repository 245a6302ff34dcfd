package csvimport

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"tradejournal/shared/apperr"
	"tradejournal/shared/brokerfile"
	"tradejournal/shared/config"
	"tradejournal/shared/httpx"
)

// multipartSlack is what the whole body may hold beyond the two parts'
// caps: boundaries and part headers.
const multipartSlack = 64 << 10

var (
	errNotMultipart = apperr.New(apperr.UnsupportedMedia, "send multipart/form-data with a JSON part named options and then a part named file")
	errBadMultipart = apperr.Invalid("file", "the multipart body could not be read (cut short or malformed)")
	errNoOptions    = apperr.Invalid("options", "is required: a JSON part named options before the file part")
	errNoFile       = apperr.Invalid("file", "is required: a part named file after the options part")
)

func fileTooLarge(cfg config.CSVImport) error {
	return apperr.New(apperr.PayloadTooLarge, "the file is larger than %d bytes (CSV_IMPORT_MAX_FILE_BYTES); split it into several imports", cfg.MaxFileBytes)
}

func optionsTooLarge(cfg config.CSVImport) error {
	return apperr.New(apperr.PayloadTooLarge, "the options part is larger than %d bytes (CSV_IMPORT_MAX_REQUEST_BYTES)", cfg.MaxRequestBytes)
}

// upload reads a preview's multipart body as a stream: the options part
// first (at most cfg.MaxRequestBytes), then the file part, which is handed
// to Parse as it arrives and never buffered whole.
type upload struct {
	cfg  config.CSVImport
	mr   *multipart.Reader
	file *multipart.Part
}

// openUpload checks the content type and caps the whole body, whatever
// Content-Length says.
func openUpload(w http.ResponseWriter, r *http.Request, cfg config.CSVImport) (*upload, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, errNotMultipart
	}
	r.Body = http.MaxBytesReader(w, r.Body, cfg.MaxFileBytes+cfg.MaxRequestBytes+multipartSlack)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errNotMultipart
	}
	return &upload{cfg: cfg, mr: mr}, nil
}

// options reads and decodes the options part, which must come first.
func (u *upload) options() (brokerfile.Options, error) {
	var opts brokerfile.Options
	part, err := u.mr.NextPart()
	switch {
	case errors.Is(err, io.EOF):
		return opts, errNoOptions
	case err != nil:
		return opts, u.readError(err)
	}
	switch part.FormName() {
	case "options":
	case "file":
		return opts, apperr.Invalid("options", "must come before the file part (the file is read as it arrives)")
	default:
		return opts, apperr.Invalid(nameOf(part), "is not a known part (send options, then file)")
	}
	raw, err := io.ReadAll(io.LimitReader(part, u.cfg.MaxRequestBytes+1))
	if err != nil {
		return opts, u.readError(err)
	}
	if int64(len(raw)) > u.cfg.MaxRequestBytes {
		return opts, optionsTooLarge(u.cfg)
	}
	if err := httpx.DecodeBytes(bytesReader(raw), &opts); err != nil {
		return opts, err
	}
	return opts, nil
}

// next returns the file part, which must follow the options.
func (u *upload) next() (io.Reader, error) {
	part, err := u.mr.NextPart()
	switch {
	case errors.Is(err, io.EOF):
		return nil, errNoFile
	case err != nil:
		return nil, u.readError(err)
	}
	if part.FormName() != "file" {
		return nil, apperr.Invalid(nameOf(part), "is not a known part (send options, then file)")
	}
	u.file = part
	return &capped{r: part, left: u.cfg.MaxFileBytes, err: fileTooLarge(u.cfg)}, nil
}

// finish refuses parts after the file (reading past the rest of the file
// part, within the body's cap).
func (u *upload) finish() error {
	part, err := u.mr.NextPart()
	switch {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return u.readError(err)
	}
	return apperr.Invalid(nameOf(part), "is not a known part (send options, then file)")
}

// readError turns a failed read of the body into 413 when the body was
// over its cap, and 400 otherwise.
func (u *upload) readError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return fileTooLarge(u.cfg)
	}
	if _, ok := apperr.As(err); ok {
		return err
	}
	return errBadMultipart
}

func nameOf(p *multipart.Part) string {
	if n := p.FormName(); n != "" && len(n) <= 64 {
		return n
	}
	return "part"
}

// capped reads at most left bytes of r and then fails with err if r has
// more: the file's cap counted on the bytes actually read.
type capped struct {
	r    io.Reader
	left int64
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var probe [1]byte
		for {
			n, err := c.r.Read(probe[:])
			if n > 0 {
				return 0, c.err
			}
			if err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}
