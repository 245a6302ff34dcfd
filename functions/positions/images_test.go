package positions_test

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"slices"
	"strings"
	"testing"

	"tradejournal/functions/positions"
	"tradejournal/shared/apitest"
	"tradejournal/shared/listquery"
)

var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 64)...)
	jpegBytes = append([]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), make([]byte, 64)...)
	webpBytes = append([]byte("RIFF\x24\x00\x00\x00WEBPVP8 "), make([]byte, 64)...)
	gifBytes  = []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
)

// upload sends a multipart body; parts maps a part name to its content,
// and declared is the Content-Type the file part claims.
func upload(t *testing.T, c *apitest.Client, path string, parts map[string][]byte, declared string) apitest.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for name, content := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+name+`"; filename="chart.png"`)
		if name == "file" {
			h.Set("Content-Type", declared)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(content)
	}
	_ = w.Close()
	req := c.NewRequest("POST", path, buf.String())
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Send(req)
}

func TestImages(t *testing.T) {
	f := setup(t, nil)
	a := f.a
	id := apitest.Object(t, apitest.Must(t, a.Do("POST", "/api/positions", map[string]any{"accountId": f.account, "symbol": "AAPL", "assetType": "stock", "side": "long"}), 201), "position")["id"].(string)
	base := "/api/positions/" + id + "/images"

	img := apitest.Object(t, apitest.Must(t, upload(t, a, base, map[string][]byte{"file": pngBytes, "caption": []byte("Daily chart")}, "application/octet-stream"), 201), "image")
	if img["contentType"] != "image/png" || img["caption"] != "Daily chart" || img["sizeBytes"] != float64(len(pngBytes)) || img["url"] != base+"/"+img["id"].(string) {
		t.Fatalf("image %v", img)
	}
	imgID := img["id"].(string)
	for _, data := range [][]byte{jpegBytes, webpBytes} {
		apitest.Must(t, upload(t, a, base, map[string][]byte{"file": data}, "image/png"), 201)
	}
	t.Run("ServedToOwner", func(t *testing.T) {
		r := apitest.Must(t, a.Do("GET", base+"/"+imgID, nil), 200)
		if !bytes.Equal(r.Body, pngBytes) || r.Header.Get("Content-Type") != "image/png" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("served %q %v", r.Body[:8], r.Header)
		}
		l := apitest.Items(t, apitest.Must(t, a.Do("GET", base, nil), 200))
		if len(l) != 3 || l[0].(map[string]any)["id"] != imgID || l[1].(map[string]any)["contentType"] != "image/jpeg" {
			t.Fatalf("list %v", l)
		}
		if n := apitest.Object(t, apitest.Must(t, a.Do("GET", "/api/positions/"+id, nil), 200), "position")["imageCount"]; n != float64(3) {
			t.Fatalf("imageCount %v", n)
		}
		first := apitest.Must(t, a.Do("GET", base+"?limit=2", nil), 200)
		next, _ := first.JSON["nextCursor"].(string)
		rest := apitest.Must(t, a.Do("GET", base+"?limit=2&cursor="+next, nil), 200)
		if got := append(apitest.Items(t, first), apitest.Items(t, rest)...); len(apitest.Items(t, first)) != 2 || next == "" || rest.JSON["nextCursor"] != nil ||
			fmt.Sprint(got) != fmt.Sprint(l) {
			t.Fatalf("pages of two %s %s, want %v", first.Body, rest.Body, l)
		}
		apitest.Run(t, a, []apitest.Case{
			{Name: "BadLimit", Method: "GET", Path: base + "?limit=x", Status: 400, Code: "VALIDATION_ERROR"},
			{Name: "BadCursor", Method: "GET", Path: base + "?cursor=" + listquery.EncodeKeys("soon", imgID), Status: 400, Code: "VALIDATION_ERROR"},
		})
		// Each served with the type its content has, whatever the upload declared (image/png).
		for i, want := range []struct {
			data []byte
			typ  string
		}{{pngBytes, "image/png"}, {jpegBytes, "image/jpeg"}, {webpBytes, "image/webp"}} {
			r := apitest.Must(t, a.Do("GET", base+"/"+l[i].(map[string]any)["id"].(string), nil), 200)
			if !bytes.Equal(r.Body, want.data) || r.Header.Get("Content-Type") != want.typ {
				t.Errorf("image %d served as %q: %q", i, r.Header.Get("Content-Type"), r.Body[:min(len(r.Body), 12)])
			}
		}
	})
	apitest.Run(t, f.b, []apitest.Case{
		{Name: "OtherGet", Method: "GET", Path: base + "/" + imgID, Status: 404},
		{Name: "OtherList", Method: "GET", Path: base, Status: 404},
		{Name: "OtherDelete", Method: "DELETE", Path: base + "/" + imgID, Status: 404},
	})
	if r := upload(t, f.b, base, map[string][]byte{"file": pngBytes}, "image/png"); r.Status != 404 {
		t.Fatalf("b uploaded to a's position: %d", r.Status)
	}

	bad := []struct {
		name   string
		parts  map[string][]byte
		status int
		code   string
		field  string
	}{
		{"GIF", map[string][]byte{"file": gifBytes}, 400, "VALIDATION_ERROR", "file"},
		{"TextDeclaredAsPNG", map[string][]byte{"file": []byte("<script>alert(1)</script>")}, 400, "VALIDATION_ERROR", "file"},
		{"Empty", map[string][]byte{"file": {}}, 400, "VALIDATION_ERROR", "file"},
		{"NoFilePart", map[string][]byte{"caption": []byte("x")}, 400, "VALIDATION_ERROR", "file"},
		{"UnknownPart", map[string][]byte{"file": pngBytes, "extra": []byte("x")}, 400, "VALIDATION_ERROR", "extra"},
		{"LongCaption", map[string][]byte{"file": pngBytes, "caption": []byte(strings.Repeat("c", 501))}, 400, "VALIDATION_ERROR", "caption"},
		{"TooLarge", map[string][]byte{"file": append(slices.Clone(pngBytes), make([]byte, positions.MaxImageBytes)...)}, 413, "PAYLOAD_TOO_LARGE", ""},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := upload(t, a, base, tc.parts, "image/png")
			if r.Status != tc.status || r.ErrorCode() != tc.code {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			apitest.CheckErrorShape(t, r)
			if tc.field != "" && !slices.Contains(detailFields(t, r), tc.field) {
				t.Fatalf("details %s", r.Body)
			}
		})
	}
	t.Run("NotMultipart", func(t *testing.T) {
		req := a.NewRequest("POST", base, string(pngBytes))
		req.Header.Set("Content-Type", "image/png")
		if r := a.Send(req); r.Status != 400 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
	t.Run("CapPerPosition", func(t *testing.T) {
		for range positions.MaxImagesPerTrade - 3 {
			apitest.Must(t, upload(t, a, base, map[string][]byte{"file": pngBytes}, "image/png"), 201)
		}
		r := apitest.Must(t, upload(t, a, base, map[string][]byte{"file": pngBytes}, "image/png"), 400)
		if !strings.Contains(string(r.Body), "at most 20 images") {
			t.Fatalf("%s", r.Body)
		}
	})
	var n int
	if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM position_images`).Scan(&n); err != nil || n != positions.MaxImagesPerTrade {
		t.Fatalf("%d images stored (%v)", n, err)
	}
	apitest.Must(t, a.Do("DELETE", base+"/"+imgID, nil), 204)
	apitest.Must(t, a.Do("GET", base+"/"+imgID, nil), 404)
	apitest.Must(t, a.Do("DELETE", base+"/"+imgID, nil), 404)
	apitest.Must(t, a.Do("GET", base+"/not-an-id", nil), 404)
	// Deleting the position deletes its images.
	apitest.Must(t, a.Do("DELETE", "/api/positions/"+id, nil), 204)
	if err := f.srv.App.DB.QueryRow(context.Background(), `SELECT count(*) FROM position_images`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d images left (%v)", n, err)
	}
}
