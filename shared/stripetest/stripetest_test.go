package stripetest

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestServes(t *testing.T) {
	req, err := http.NewRequest("GET", URL(t)+"/v1/customers", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("sk_test_stripetest", "")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("stripe-mock answered %s", res.Status)
	}
}

func TestMissingBinaryNamesMakeTest(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", dir)
	_, err := binary()
	if err == nil || !strings.Contains(err.Error(), "make test") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("error %v, want one naming `make test` and where it looked", err)
	}
}
