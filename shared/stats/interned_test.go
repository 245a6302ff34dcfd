package stats

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestInterned: every string added is found at its index, and a string
// not added is not found, across the table's growth and strings that share
// long prefixes (OCC symbols).
func TestInterned(t *testing.T) {
	var (
		table   interned
		strings []string
		want    = map[string]int32{}
	)
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 20_000 {
		s := fmt.Sprintf("AAPL  2401%02dC%08d", rng.IntN(31), rng.IntN(1000)*500)
		if n%3 == 0 {
			s = s[:1+rng.IntN(8)]
		}
		i, ok := table.find([]byte(s), strings)
		if w, known := want[s]; ok != known || (ok && i != w) {
			t.Fatalf("find(%q) = %d, %v; want %d, %v", s, i, ok, w, known)
		}
		if !ok {
			i = int32(len(strings))
			strings = append(strings, s)
			table.add([]byte(s), i)
			want[s] = i
		}
	}
	if _, ok := table.find([]byte("MSFT"), strings); ok {
		t.Fatal("found a string never added")
	}
}
