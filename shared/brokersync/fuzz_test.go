package brokersync

import (
	"errors"
	"testing"

	"tradejournal/shared/brokerfake"
)

// The readers of the brokers' answers take any bytes: executions or a
// *Failure, never a panic. Seeds found by `go test -fuzz` are kept under
// testdata/fuzz and run as tests.

func FuzzFlexStatement(f *testing.F) {
	f.Add([]byte(brokerfake.FlexStatement("U1234567", aaplTrades()...)))
	f.Add([]byte(`<FlexQueryResponse><Trade ibExecID="1" symbol="ES" assetCategory="FUT" dateTime="20240122;093512" quantity="1" tradePrice="4800" buySell="BUY"/></FlexQueryResponse>`))
	f.Add([]byte(`<FlexStatementResponse><Status>Warn</Status><ErrorCode>1019</ErrorCode></FlexStatementResponse>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		execs, err := readFlexStatement(body, "America/New_York", t0)
		if err != nil {
			if _, ok := errors.AsType[*Failure](err); !ok {
				t.Fatalf("error %v is not a *Failure", err)
			}
			return
		}
		for _, e := range execs {
			if e.ID == "" || e.Fill.Quantity.Sign() <= 0 {
				t.Fatalf("execution %+v", e)
			}
		}
	})
}

func FuzzFlexResponse(f *testing.F) {
	f.Add([]byte(`<FlexStatementResponse timestamp="x"><Status>Success</Status><ReferenceCode>123</ReferenceCode><Url>u</Url></FlexStatementResponse>`))
	f.Add([]byte(`<FlexStatementResponse><Status>Fail</Status><ErrorCode>1012</ErrorCode><ErrorMessage>Token has expired.</ErrorMessage></FlexStatementResponse>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if resp, ok := readFlexResponse(body); ok && resp.ErrorCode != "" {
			if fl := flexFailure(resp, t0); fl.Code == "" || fl.Message == "" {
				t.Fatalf("failure %+v", fl)
			}
		}
	})
}

func FuzzKrakenTime(f *testing.F) {
	for _, s := range []string{"1741000522.4512", "0", "1.", ".5", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out, ok := krakenTime(s); ok && len(out) != len("2006-01-02 15:04:05.000000") {
			t.Fatalf("krakenTime(%q) = %q", s, out)
		}
	})
}
