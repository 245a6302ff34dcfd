package brokerfile

import "testing"

// TestStagedZeroPrice: an exit at 0 (an option that expired worthless),
// which Parse reads, stages and reads back.
func TestStagedZeroPrice(t *testing.T) {
	p := parseText(t, Options{PresetID: "generic-execution"}, "Date,Symbol,Side,Quantity,Price\n"+
		"2025-03-03 10:00:00,SPY   250321C00600000,Buy to Open,1,2.5\n2025-03-21 16:00:00,SPY   250321C00600000,Sell to Close,1,0\n")
	if len(p.Errors) != 0 || len(p.Fills) != 2 {
		t.Fatalf("errors %+v fills %+v", p.Errors, p.Fills)
	}
	back, err := DecodeFills(EncodeFills(p.Fills))
	if err != nil || len(back) != 2 || !back[1].Price.IsZero() {
		t.Fatalf("staged: %v %+v", err, back)
	}
}
