package encrypt_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/encrypt"
)

var (
	keyA = bytes.Repeat([]byte{0xA1}, 32)
	keyB = bytes.Repeat([]byte{0xB2}, 32)
	col  = encrypt.PositionNotes
)

func mustKeyring(t *testing.T, cur, prev []byte) *encrypt.Keyring {
	t.Helper()
	k, err := encrypt.New(cur, prev)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpen(t *testing.T) {
	k := mustKeyring(t, keyA, nil)
	sealed := k.Seal(col, "bought the breakout, sold too early")
	if !strings.HasPrefix(sealed, "tj1:"+encrypt.KeyID(keyA)+":") || strings.Contains(sealed, "breakout") {
		t.Fatalf("sealed %q", sealed)
	}
	if first, second := k.Seal(col, "same"), k.Seal(col, "same"); first == second {
		t.Fatal("two seals of one text are equal: the nonce is not random")
	}
	cases := []struct {
		name   string
		keys   *encrypt.Keyring
		column encrypt.Column
		stored string
		want   string
		fails  bool
	}{
		{"RoundTrip", k, col, sealed, "bought the breakout, sold too early", false},
		{"PlaintextPassesThrough", k, col, "written before encryption", "written before encryption", false},
		{"Empty", k, col, "", "", false},
		{"OtherColumnRefused", k, encrypt.ImageCaptions, sealed, "", true},
		{"PreviousKeyOpens", mustKeyring(t, keyB, keyA), col, sealed, "bought the breakout, sold too early", false},
		{"UnknownKey", mustKeyring(t, keyB, nil), col, sealed, "", true},
		{"EncryptionOffCannotOpen", nil, col, sealed, "", true},
		{"Tampered", k, col, tamper(sealed), "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.keys.Open(tc.column, tc.stored)
			if (err != nil) != tc.fails || got != tc.want {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
	t.Run("NilKeyringStoresPlaintext", func(t *testing.T) {
		var off *encrypt.Keyring
		if got := off.Seal(col, "note"); got != "note" {
			t.Fatalf("%q", got)
		}
	})
	t.Run("BadKeys", func(t *testing.T) {
		if _, err := encrypt.New([]byte("short"), nil); err == nil {
			t.Fatal("short key accepted")
		}
		if _, err := encrypt.New(nil, keyA); err == nil {
			t.Fatal("previous key without a current one accepted")
		}
	})
}

func TestRotate(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	if _, err := pool.Exec(ctx, `CREATE TABLE notes_test (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), body text NOT NULL DEFAULT '')`); err != nil {
		t.Fatal(err)
	}
	c := encrypt.Column{Table: "notes_test", Name: "body"}
	old := mustKeyring(t, keyA, nil)
	for i := range 25 {
		v := "plain note"
		if i%2 == 0 {
			v = old.Seal(c, "old note")
		}
		if i%5 == 0 {
			v = ""
		}
		if _, err := pool.Exec(ctx, `INSERT INTO notes_test (body) VALUES ($1)`, v); err != nil {
			t.Fatal(err)
		}
	}
	rotated := mustKeyring(t, keyB, keyA)
	n, err := encrypt.Rotate(ctx, pool, rotated, []encrypt.Column{c}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if n != 20 {
		t.Fatalf("re-sealed %d values, want 20 (5 are empty)", n)
	}
	rows, _ := pool.Query(ctx, `SELECT body FROM notes_test`)
	defer rows.Close()
	onlyB := mustKeyring(t, keyB, nil)
	for rows.Next() {
		var v string
		_ = rows.Scan(&v)
		if !onlyB.Current(v) {
			t.Fatalf("value %q not under the new key", v)
		}
		if plain, err := onlyB.Open(c, v); err != nil || (v != "" && plain != "old note" && plain != "plain note") {
			t.Fatalf("opened %q, %v", plain, err)
		}
	}
	if n, err := encrypt.Rotate(ctx, pool, rotated, []encrypt.Column{c}, 4); err != nil || n != 0 {
		t.Fatalf("second rotation re-sealed %d (%v): it must resume, not redo", n, err)
	}
}

// tamper changes one character of the ciphertext to another.
func tamper(sealed string) string {
	i := len(sealed) - 5
	c := byte('A')
	if sealed[i] == 'A' {
		c = 'B'
	}
	return sealed[:i] + string(c) + sealed[i+1:]
}
