package assistant_test

import (
	"strconv"
	"testing"
)

// BenchmarkTurn is one whole turn over loopback against real PostgreSQL
// and the real wallet, with a provider that answers at once (20 deltas and
// the usage): the gate, the journal context, recording, streaming,
// settling and storing; what a turn costs the server besides the model.
//
//	go test -run XXX -bench BenchmarkTurn -benchtime 200x ./functions/assistant/
func BenchmarkTurn(b *testing.B) {
	p := newFakeProvider(b)
	steps := []step{}
	for range 20 {
		steps = append(steps, step{text: "word "})
	}
	steps = append(steps, step{usage: &[2]int64{3000, 400}}, step{done: true})
	p.setScript(func(int) (int, []step) { return 200, steps })
	e := start(b, assistantConfig(b, p), p)
	u := e.user("bench@example.com")
	u.credit(1 << 50)
	for i := range 30 {
		u.trade("SYM"+strconv.Itoa(i%5), "a note", "100", strconv.Itoa(90+i%20), "2024-05-06T14:00:00Z", "2024-05-06T15:00:00Z")
	}
	b.ResetTimer()
	for i := range b.N {
		r := u.ask("new", "Why do my Monday trades lose?", "bench-"+strconv.Itoa(i))
		if r.Status != 200 || r.done()["status"] != "complete" {
			b.Fatalf("turn %d: %d %v", i, r.Status, r.done())
		}
	}
}
