package sizing

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// decodeStd is what httpx.DecodeBytes does with a body: encoding/json,
// unknown fields refused, nothing after the object.
func decodeStd(body []byte) (Input, error) {
	var in Input
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Input{}, err
	}
	if _, err := dec.Token(); err == nil {
		return Input{}, errTrailing
	}
	return in, nil
}

var errTrailing = errors.New("data after the object")

func TestParseInput(t *testing.T) {
	for _, c := range []struct {
		name string
		body string
		ok   bool
	}{
		{"Typical", `{"mode":"stock","direction":"long","entryPrice":"50.25","stopLoss":"48.10","targetPrice":"56.00","balance":"25000","riskPercent":"1","buyingPower":"50000","feeSchedule":{"stockPerShareCommission":"0.005","stockMinPerFill":"1","stockMaxPerFill":"0"}}`, true},
		{"EveryKey", `{"mode":"options","direction":"short","entryPrice":"2.5","stopLoss":"3","targetPrice":"1","dollarRisk":"","balance":" ","riskPercent":"2","buyingPower":"-1","manualFees":"0","feeSchedule":{"stockPerShareCommission":"1","stockMinPerFill":"2","stockMaxPerFill":"3","optionsPerContractCommission":"4","optionsPerContractExchangeFee":"5","optionsMinPerFill":"6","optionsMaxPerFill":"7"}}`, true},
		{"WhiteSpace", " \t\n{ \"mode\" : \"stock\" ,\r\n\"feeSchedule\" : { } } \n", true},
		{"Nulls", `{"mode":null,"direction":null,"targetPrice":null,"feeSchedule":null}`, true},
		{"Empty", `{}`, true},
		{"NotStringValue", `{"entryPrice":50}`, false},
		{"Escape", `{"entryPrice":"\u0035"}`, false},
		{"NonASCII", `{"mode":"stöck"}`, false},
		{"UnknownKey", `{"accountId":"x"}`, false},
		{"OtherCase", `{"MODE":"stock"}`, false},
		{"RepeatedKey", `{"mode":"stock","mode":"options"}`, false},
		{"RepeatedFeeKey", `{"feeSchedule":{"stockMinPerFill":"1","stockMinPerFill":"2"}}`, false},
		{"TrailingComma", `{"mode":"stock",}`, false},
		{"TrailingData", `{"mode":"stock"} {}`, false},
		{"Unclosed", `{"mode":"stock"`, false},
		{"Array", `[]`, false},
		{"FeeScheduleString", `{"feeSchedule":"cheap"}`, false},
		{"NullPrefix", `{"mode":nul}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseInput([]byte(c.body))
			if ok != c.ok {
				t.Fatalf("ParseInput(%s) ok = %v, want %v", c.body, ok, c.ok)
			}
			if !ok {
				if !reflect.DeepEqual(got, Input{}) {
					t.Fatalf("declined with a partial Input %+v", got)
				}
				return
			}
			want, err := decodeStd([]byte(c.body))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ParseInput = %+v, encoding/json = %+v (%v)", got, want, err)
			}
		})
	}
}

// FuzzParseInput: whatever ParseInput accepts, encoding/json accepts too and
// decodes to the same Input.
func FuzzParseInput(f *testing.F) {
	for _, s := range seedBodies {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := ParseInput(body)
		if !ok {
			return
		}
		want, err := decodeStd(body)
		if err != nil {
			t.Fatalf("ParseInput accepted %q, encoding/json refused it: %v", body, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: ParseInput %+v, encoding/json %+v", body, got, want)
		}
	})
}

func BenchmarkParseInput(b *testing.B) {
	body := []byte(`{"mode":"stock","direction":"long","entryPrice":"187.35","stopLoss":"182.10","targetPrice":"201.50",` +
		`"balance":"25000","riskPercent":"1","buyingPower":"50000",` +
		`"feeSchedule":{"stockPerShareCommission":"0.005","stockMinPerFill":"1","stockMaxPerFill":"25"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ParseInput(body); !ok {
			b.Fatal("declined")
		}
	}
}
