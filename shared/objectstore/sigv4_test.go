package objectstore

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The examples of the S3 documentation ("Signature calculations for the
// Authorization header", sig-v4-header-based-auth): example credentials,
// bucket examplebucket, 2013-05-24T00:00:00Z.
var (
	docSigner = signer{accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		region: "us-east-1", service: "s3"}
	docTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)
)

func signatureOf(t *testing.T, req *http.Request) string {
	t.Helper()
	auth := req.Header.Get("Authorization")
	_, sig, ok := strings.Cut(auth, "Signature=")
	if !ok || !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=") {
		t.Fatalf("Authorization %q", auth)
	}
	return sig
}

func TestSignerDocumentedExamples(t *testing.T) {
	tests := []struct {
		name, method, url string
		headers           map[string]string
		payloadHash       string
		signedHeaders     string
		want              string
	}{
		{"GET object with Range", "GET", "https://examplebucket.s3.amazonaws.com/test.txt",
			map[string]string{"Range": "bytes=0-9"}, emptySHA256,
			"host;range;x-amz-content-sha256;x-amz-date",
			"f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"},
		{"PUT object (key with $)", "PUT", "https://examplebucket.s3.amazonaws.com/test$file.text",
			map[string]string{"Date": "Fri, 24 May 2013 00:00:00 GMT", "X-Amz-Storage-Class": "REDUCED_REDUNDANCY"},
			hexSHA256([]byte("Welcome to Amazon S3.")),
			"date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class",
			"98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"},
		{"GET bucket lifecycle (empty query value)", "GET", "https://examplebucket.s3.amazonaws.com/?lifecycle",
			nil, emptySHA256, "host;x-amz-content-sha256;x-amz-date",
			"fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"},
		{"GET bucket list (sorted query)", "GET", "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J",
			nil, emptySHA256, "host;x-amz-content-sha256;x-amz-date",
			"34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			docSigner.sign(req, tc.payloadHash, docTime)
			if !strings.Contains(req.Header.Get("Authorization"), "SignedHeaders="+tc.signedHeaders+",") {
				t.Errorf("Authorization %q, want SignedHeaders=%s", req.Header.Get("Authorization"), tc.signedHeaders)
			}
			if got := signatureOf(t, req); got != tc.want {
				t.Errorf("signature %s, want %s", got, tc.want)
			}
			if req.Header.Get("X-Amz-Date") != "20130524T000000Z" || req.Header.Get("X-Amz-Content-Sha256") != tc.payloadHash {
				t.Errorf("headers %v", req.Header)
			}
		})
	}
}

func TestURIEncode(t *testing.T) {
	tests := []struct {
		in          string
		encodeSlash bool
		want        string
	}{
		{"/images/0af3", false, "/images/0af3"},
		{"a b+c", true, "a%20b%2Bc"},
		{"a/b", true, "a%2Fb"},
		{"A-z_0.9~", true, "A-z_0.9~"},
		{"$é", false, "%24%C3%A9"},
	}
	for _, tc := range tests {
		if got := uriEncode(tc.in, tc.encodeSlash); got != tc.want {
			t.Errorf("uriEncode(%q, %v) = %q, want %q", tc.in, tc.encodeSlash, got, tc.want)
		}
	}
	if got := canonicalQuery("prefix=J&max-keys=2&a=x+y"); got != "a=x%20y&max-keys=2&prefix=J" {
		t.Errorf("canonicalQuery = %q", got)
	}
}

// BenchmarkSign is the signer's cost per request (the payload hash of an
// image is separate: SHA-256 of up to 5 MiB).
func BenchmarkSign(b *testing.B) {
	req, _ := http.NewRequest("PUT", "http://127.0.0.1:9000/trade-journal-images/images/0af3c2d1e4b5a6978877665544332211", nil)
	req.Header.Set("Content-Type", "image/png")
	b.ReportAllocs()
	for b.Loop() {
		docSigner.sign(req, emptySHA256, docTime)
	}
}
