// Package imagetype names an uploaded image's type by its bytes, whatever
// the client declared: the screenshots of a position and the images
// attached to an assistant turn take the same three types.
package imagetype

import "bytes"

// Sniff names the image type of data by its magic bytes: image/png,
// image/jpeg or image/webp, or "" for anything else.
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case len(data) >= 12 && bytes.Equal(data[:4], []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return "image/webp"
	}
	return ""
}
