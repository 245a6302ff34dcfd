package wallet

import "testing"

// FuzzDecodeCursor holds the wallet history's cursor parser: it never
// panics, and what it accepts is a positive id that survives re-encoding.
func FuzzDecodeCursor(f *testing.F) {
	for _, s := range []string{"", "x", encodeCursor(1), encodeCursor(9223372036854775807), "d3QuMA", "d3QuLTE", "d3QuOTIyMzM3MjAzNjg1NDc3NTgwOA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := decodeCursor(s)
		if !ok {
			return
		}
		if id <= 0 {
			t.Fatalf("accepted id %d", id)
		}
		if again, ok := decodeCursor(encodeCursor(id)); !ok || again != id {
			t.Fatalf("id %d does not survive its encoding", id)
		}
	})
}
