package tax

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

// TestForm8949CSV reads the CSV back with encoding/csv and compares it line
// by line: boxes in order with a total after each, Form 8949's date and
// amount forms, the wash sale's code and adjustment, and the Section 1256
// contracts kept off the form and summed as Form 6781 lines.
func TestForm8949CSV(t *testing.T) {
	trades := []Trade{
		// Box A: Pub 550 example 1 (see TestUS).
		stock("b1", "us", "X", Buy, "2024-01-05", "100", "10"),
		stock("s1", "us", "X", Sell, "2024-03-01", "100", "7.50"),
		stock("b2", "us", "X", Buy, "2024-03-15", "100", "8"),
		stock("s2", "us", "X", Sell, "2024-06-03", "100", "12"),
		// Box D: held a year and a day: 10 x (11 - 10) = 10.
		stock("k1", "us", "K", Buy, "2023-03-15", "10", "10"),
		stock("k2", "us", "K", Sell, "2024-03-16", "10", "11"),
		// Box C: no 1099-B: 5 x (22 - 20) = 10, less 1.25 fees on each
		// side: 108.75 - 101.25 = 7.50.
		withFees(stock("c1", "foreign", "C", Buy, "2024-02-01", "5", "20"), "1.25"),
		withFees(stock("c2", "foreign", "C", Sell, "2024-02-10", "5", "22"), "1.25"),
		// Form 6781: (5,895 - 5,890) x 50 = 250: 40% 100, 60% 150.
		future("z3", "ESZ24", Buy, "2024-11-05", "1", "5890", "0"),
		future("z4", "ESZ24", Sell, "2024-11-20", "1", "5895", "0"),
	}
	r := compute(t, Request{Jurisdiction: US, Year: 2024, Zone: newYork, Trades: trades,
		Reporting: map[string]BasisReporting{"foreign": NoForm1099B}})
	var buf bytes.Buffer
	if err := WriteForm8949CSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		Form8949Header,
		{"A", "100 sh X", "01/05/2024", "03/01/2024", "750.00", "1000.00", "W", "250.00", "0.00"},
		{"A", "100 sh X", "01/19/2024", "06/03/2024", "1200.00", "1050.00", "", "", "150.00"},
		{"A", "Total box A", "", "", "1950.00", "2050.00", "", "250.00", "150.00"},
		{"C", "5 sh C", "02/01/2024", "02/10/2024", "108.75", "101.25", "", "", "7.50"},
		{"C", "Total box C", "", "", "108.75", "101.25", "", "", "7.50"},
		{"D", "10 sh K", "03/15/2023", "03/16/2024", "110.00", "100.00", "", "", "10.00"},
		{"D", "Total box D", "", "", "110.00", "100.00", "", "", "10.00"},
		{"6781", "Section 1256 contracts, net gain or (loss)", "", "", "", "", "", "", "250.00"},
		{"6781", "40% short-term (Schedule D line 4)", "", "", "", "", "", "", "100.00"},
		{"6781", "60% long-term (Schedule D line 11)", "", "", "", "", "", "", "150.00"},
	}
	if len(got) != len(want) {
		t.Errorf("%d lines, want %d:\n%v", len(got), len(want), got)
	}
	for i := range min(len(got), len(want)) {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("line %d\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}

	// Schedule D: line 1a holds box A's lot without an adjustment, 1b the
	// washed one; line 3 box C, 8a box D; 4 and 11 the 6781 parts.
	lines := map[string]string{}
	for _, l := range r.Totals.ScheduleD {
		lines[l.Line] = l.Gain.StringFixed(2)
	}
	for line, gain := range map[string]string{"1a": "150.00", "1b": "0.00", "2": "0.00", "3": "7.50", "4": "100.00", "8a": "10.00", "11": "150.00"} {
		if lines[line] != gain {
			t.Errorf("Schedule D line %s = %s, want %s", line, lines[line], gain)
		}
	}

	if err := WriteForm8949CSV(&buf, Report{Jurisdiction: UK}); err == nil {
		t.Error("a UK report wrote a Form 8949")
	}
}

// TestLotsCSV: one line per lot, with its matches and where a washed loss
// went.
func TestLotsCSV(t *testing.T) {
	r := compute(t, Request{Jurisdiction: US, Year: 2024, Zone: newYork, Trades: []Trade{
		stock("b1", "us", "X", Buy, "2024-01-05", "100", "10"),
		stock("s1", "us", "X", Sell, "2024-03-01", "100", "7.50"),
		stock("b2", "us", "X", Buy, "2024-03-15", "100", "8"),
		stock("s2", "us", "X", Sell, "2024-06-03", "100", "12"),
	}})
	var buf bytes.Buffer
	if err := WriteLotsCSV(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		LotsHeader,
		{"s1/1", "us", "X", "100 sh X", "100", "2024-01-05", "2024-03-01", "750.00", "1000.00", "W", "250.00", "0.00", "short", "A", "fifo", "", "", "",
			"fifo b1 us 2024-01-05 qty 100 cost 1000.00", "b2 us 2024-03-15 qty 100 amount 250.00", "USD"},
		{"s2/1", "us", "X", "100 sh X", "100", "2024-01-19", "2024-06-03", "1200.00", "1050.00", "", "", "150.00", "short", "A", "fifo", "", "", "",
			"fifo b2 us 2024-03-15 qty 100 cost 1050.00 (wash 250.00 from s1/1)", "", "USD"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("line %d\n got %q\nwant %q", i+1, got[i], want[i])
		}
	}
}
