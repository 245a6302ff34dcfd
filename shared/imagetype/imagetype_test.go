package imagetype_test

import (
	"testing"

	"tradejournal/shared/imagetype"
)

func TestSniff(t *testing.T) {
	for data, want := range map[string]string{
		"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR":       "image/png",
		"\xff\xd8\xff\xe0\x00\x10JFIF\x00":          "image/jpeg",
		"RIFF\x24\x00\x00\x00WEBPVP8 ":              "image/webp",
		"GIF89a\x01\x00\x01\x00\x00\x00\x00;":       "",
		"<svg xmlns='http://www.w3.org/2000/svg'/>": "",
		"RIFF\x24\x00\x00\x00WAVEfmt ":              "",
		"RIFF":                                      "",
		"":                                          "",
	} {
		if got := imagetype.Sniff([]byte(data)); got != want {
			t.Errorf("Sniff(%q) = %q, want %q", data[:min(len(data), 12)], got, want)
		}
	}
}
