package csvimport

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

// benchFile is a generic file of rows fills: round trips of 250 symbols,
// a tenth of them options.
func benchFile(rows int) []byte {
	var b bytes.Buffer
	b.WriteString("Date,Time,Symbol,Side,Quantity,Price,Fees\n")
	start := time.Date(2024, 1, 2, 14, 30, 0, 0, time.UTC)
	for i := range rows / 2 {
		at := start.Add(time.Duration(i) * time.Minute)
		sym := fmt.Sprintf("S%03d", i%250)
		qty, price := 10+i%90, 20+float64(i%400)/4
		if i%10 == 9 {
			sym = fmt.Sprintf("S%03d  %sC%08d", i%250, at.AddDate(0, 0, 30).Format("060102"), (50+i%50)*1000)
			qty, price = 1+i%9, 1+float64(i%80)/20
		}
		fmt.Fprintf(&b, "%s,%s,%s,Buy,%d,%.2f,1.00\n", at.Format("2006-01-02"), at.Format("15:04:05"), sym, qty, price)
		fmt.Fprintf(&b, "%s,%s,%s,Sell,%d,%.2f,1.00\n", at.Format("2006-01-02"), at.Add(40*time.Second).Format("15:04:05"), sym, qty, price+0.05)
	}
	return b.Bytes()
}

// BenchmarkParse10k: Parse and Build of 10,000 rows, the preview's CPU
// work without the database.
func BenchmarkParse10k(b *testing.B) {
	file := benchFile(10000)
	s, err := Resolve(Options{PresetID: "generic-execution"}, "America/New_York", now, 10000)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := Parse(bytes.NewReader(file), s)
		if err != nil || len(p.Errors) > 0 {
			b.Fatal(err, p.Errors)
		}
		Build(p.Fills, Journal{}, BuildOptions{Header: p.Header})
	}
}
