package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"tradejournal/functions"
	"tradejournal/functions/positions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/lambdahost"
)

// TestImagesThroughLambda uploads an image as the function platform
// delivers it (API Gateway v2: the multipart body base64-encoded, the
// session in the cookies array) and reads it back: the binary answer must
// come out base64-encoded with its content type and nosniff.
func TestImagesThroughLambda(t *testing.T) {
	srv := apitest.Start(t, apitest.Config(t), functions.All)
	c := srv.Client(t)
	r := c.Register("lambda@example.com", "password1")
	cookie := (&http.Response{Header: r.Header}).Cookies()[0]
	account := c.Do("POST", "/api/accounts", map[string]any{"name": "Main", "currency": "USD"}).JSON["account"].(map[string]any)["id"].(string)
	pos := c.Do("POST", "/api/positions", map[string]any{"accountId": account, "symbol": "AAPL", "assetType": "stock", "side": "long"})
	id := pos.JSON["position"].(map[string]any)["id"].(string)

	handle := lambdahost.Handler(srv.App.Serve(positions.Group(srv.App).Handler()))
	invoke := func(method, path, contentType string, body []byte) events.APIGatewayV2HTTPResponse {
		t.Helper()
		headers := map[string]string{}
		if contentType != "" {
			headers["content-type"] = contentType
		}
		res, err := handle(context.Background(), events.APIGatewayV2HTTPRequest{
			Version: "2.0", RouteKey: "$default", RawPath: path, Headers: headers,
			Cookies: []string{cookie.Name + "=" + cookie.Value},
			Body:    base64.StdEncoding.EncodeToString(body), IsBase64Encoded: true,
			RequestContext: events.APIGatewayV2HTTPRequestContext{
				HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "203.0.113.9"},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0xff, 0x00}, 100)...)
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, _ := w.CreateFormFile("file", "chart.png")
	_, _ = part.Write(png)
	_ = w.WriteField("caption", "Entry on the 5-minute chart")
	_ = w.Close()
	res := invoke("POST", "/api/positions/"+id+"/images", w.FormDataContentType(), body.Bytes())
	if res.StatusCode != 201 || !strings.Contains(res.Body, `"contentType":"image/png"`) {
		t.Fatalf("upload: %d %s", res.StatusCode, res.Body)
	}
	url := res.Body[strings.Index(res.Body, `"url":"`)+7:]
	url = url[:strings.IndexByte(url, '"')]

	res = invoke("GET", url, "", nil)
	if res.StatusCode != 200 || !res.IsBase64Encoded {
		t.Fatalf("get: %d base64=%v", res.StatusCode, res.IsBase64Encoded)
	}
	got, err := base64.StdEncoding.DecodeString(res.Body)
	if err != nil || !bytes.Equal(got, png) {
		t.Fatalf("bytes differ (%v)", err)
	}
	if res.Headers["Content-Type"] != "image/png" || res.Headers["X-Content-Type-Options"] != "nosniff" {
		t.Fatalf("headers %v", res.Headers)
	}

	// Not an image, however it is declared: 400 through the adapter too.
	body.Reset()
	w = multipart.NewWriter(&body)
	part, _ = w.CreateFormFile("file", "chart.png")
	_, _ = part.Write([]byte("<html>not an image</html>"))
	_ = w.Close()
	if res := invoke("POST", "/api/positions/"+id+"/images", w.FormDataContentType(), body.Bytes()); res.StatusCode != 400 {
		t.Fatalf("non-image: %d %s", res.StatusCode, res.Body)
	}
}
