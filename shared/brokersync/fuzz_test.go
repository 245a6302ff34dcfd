package brokersync

import (
	"errors"
	"testing"

	"tradejournal/shared/brokerfake"
	"tradejournal/shared/brokerfile"
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

func FuzzAlpacaPage(f *testing.F) {
	f.Add([]byte(`[{"id":"20240122093512000::a","activity_type":"FILL","transaction_time":"2024-01-22T14:35:12.123Z","type":"fill","price":"193.12","qty":"100","side":"buy","symbol":"AAPL"}]`))
	f.Add([]byte(`[{"id":"x","activity_type":"FILL","transaction_time":"2024-01-22T14:35:12Z","price":"0.5","qty":"2","side":"sell_short","symbol":"AAPL240119C00150000"},{"id":"y","activity_type":"DIV"}]`))
	f.Add([]byte(`{"code":40010000,"message":"bad"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, ids, _, _, err := readAlpacaPage(body)
		if err != nil {
			return
		}
		checkRows(t, alpacaOptions, alpacaHeader, rows, ids)
	})
}

func FuzzKrakenPage(f *testing.F) {
	f.Add([]byte(`{"trades":{"TQ5WZK-7KD2M-4XA1B1":{"ordertxid":"O1","pair":"XXBTZUSD","time":1741000522.4512,"type":"buy","ordertype":"limit","price":"84000.0","cost":"420.0","fee":"1.092","vol":"0.005"}},"count":1}`))
	f.Add([]byte(`{"trades":{"T":{"pair":"XETHZEUR","time":"1","type":"sell","price":"1","fee":"0","vol":"1"}},"count":9}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		rows, ids, _, err := readKrakenPage(body)
		if err != nil {
			return
		}
		checkRows(t, brokerfile.Options{PresetID: "kraken"}, krakenHeader, rows, ids)
	})
}

// checkRows reads rows as a sync does: executions with ids, or a *Failure.
func checkRows(t *testing.T, opts brokerfile.Options, header []string, rows [][]string, ids []string) {
	t.Helper()
	execs, err := readRows(opts, header, rows, ids, "UTC", t0, "the page")
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
}
