package auth_test

import (
	"testing"

	"tradejournal/shared/auth"
)

// Registration and sign-in are bounded by argon2id (19 MiB, 2 passes, 1 lane):
// one hash is one core busy for the whole ns/op. The Parallel variants run on
// every core (GOMAXPROCS) and report the machine's hashes/s directly, which
// memory bandwidth can hold below cores x 1/ns/op.
//
//	go test -run '^$' -bench Password -benchtime 3s ./shared/auth/

const benchPassword = "correct horse battery staple"

func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		if _, err := auth.HashPassword(benchPassword); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyPassword(b *testing.B) {
	hash, err := auth.HashPassword(benchPassword)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ok, err := auth.VerifyPassword(benchPassword, hash); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkHashPasswordParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := auth.HashPassword(benchPassword); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hashes/s")
}

func BenchmarkVerifyPasswordParallel(b *testing.B) {
	hash, err := auth.HashPassword(benchPassword)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if ok, err := auth.VerifyPassword(benchPassword, hash); !ok || err != nil {
				b.Error(ok, err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
}
