package auth

import (
	"encoding/base32"
	"strings"
	"testing"
	"time"
)

// rfcKey is the SHA-1 seed of RFC 6238 appendix B.
var rfcKey = []byte("12345678901234567890")

// TestTOTPVectors checks the code computation against the SHA-1 rows of
// RFC 6238 appendix B (eight digits there; a six-digit code is the same
// number modulo 10^6, so its last six digits).
func TestTOTPVectors(t *testing.T) {
	vectors := []struct {
		unix int64
		code string
	}{
		{59, "94287082"},
		{1111111109, "07081804"},
		{1111111111, "14050471"},
		{1234567890, "89005924"},
		{2000000000, "69279037"},
		{20000000000, "65353130"},
	}
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(rfcKey)
	for _, v := range vectors {
		at := time.Unix(v.unix, 0).UTC()
		if got := hotp(rfcKey, uint64(totpStepAt(at)), 8); got != v.code {
			t.Errorf("T=%d: %s, want %s", v.unix, got, v.code)
		}
		six, err := TOTPCode(secret, at)
		if err != nil || six != v.code[2:] {
			t.Errorf("T=%d six digits: %s (%v), want %s", v.unix, six, err, v.code[2:])
		}
	}
}

func TestMatchTOTPDriftAndReuse(t *testing.T) {
	now := time.Unix(1111111111, 0)
	step := totpStepAt(now)
	codeAt := func(s int64) string { return hotp(rfcKey, uint64(s), totpDigits) }
	cases := []struct {
		name     string
		code     string
		lastStep int64
		want     int64
		ok       bool
	}{
		{"Current", codeAt(step), 0, step, true},
		{"OneStepBehind", codeAt(step - 1), 0, step - 1, true},
		{"OneStepAhead", codeAt(step + 1), 0, step + 1, true},
		{"TwoStepsBehind", codeAt(step - 2), 0, 0, false},
		{"TwoStepsAhead", codeAt(step + 2), 0, 0, false},
		{"AlreadyUsed", codeAt(step), step, 0, false},
		{"OlderThanUsed", codeAt(step - 1), step, 0, false},
		{"NewerThanUsed", codeAt(step + 1), step, step + 1, true},
		{"Wrong", "000000", 0, 0, false},
		{"Short", codeAt(step)[:5], 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := matchTOTP(rfcKey, tc.code, now, tc.lastStep)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("got %d %v, want %d %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

var secondFactorSeeds = []string{
	"123456", "123 456", " 123-456 ", "12345", "1234567", "12345a", "",
	"abcd-efgh-ijkl-mnop", "ABCD EFGH IJKL MNOP", "abcdefghijklmnop", "abcd-efgh-ijkl-mno1",
	"abcd-efgh-ijkl-mnop-q", "١٢٣٤٥٦", "12\x003456", strings.Repeat("1", 70), "--------",
}

func TestParseSecondFactor(t *testing.T) {
	cases := map[string]SecondFactor{
		"123456":              {TOTP: "123456"},
		"123 456":             {TOTP: "123456"},
		" 123-456 ":           {TOTP: "123456"},
		"abcd-efgh-ijkl-mnop": {Recovery: "abcdefghijklmnop"},
		"ABCD EFGH IJKL MNOP": {Recovery: "abcdefghijklmnop"},
		"abcdefghijklmnop":    {Recovery: "abcdefghijklmnop"},
	}
	for _, in := range secondFactorSeeds {
		got, ok := ParseSecondFactor(in)
		want, wantOK := cases[in]
		if ok != wantOK || got != want {
			t.Errorf("%q: %+v %v, want %+v %v", in, got, ok, want, wantOK)
		}
	}
}

// FuzzParseSecondFactor: never panics; what it accepts is exactly one of
// the two shapes, in their normal form.
func FuzzParseSecondFactor(f *testing.F) {
	for _, s := range secondFactorSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := ParseSecondFactor(in)
		if !ok {
			if got != (SecondFactor{}) {
				t.Fatalf("refused %q but returned %+v", in, got)
			}
			return
		}
		switch {
		case got.TOTP != "" && got.Recovery == "":
			if len(got.TOTP) != 6 || strings.Trim(got.TOTP, "0123456789") != "" {
				t.Fatalf("%q: TOTP %q", in, got.TOTP)
			}
		case got.Recovery != "" && got.TOTP == "":
			if len(got.Recovery) != 16 || strings.Trim(got.Recovery, "abcdefghijklmnopqrstuvwxyz234567") != "" {
				t.Fatalf("%q: recovery %q", in, got.Recovery)
			}
		default:
			t.Fatalf("%q: %+v", in, got)
		}
		if again, ok := ParseSecondFactor(got.TOTP + got.Recovery); !ok || again != got {
			t.Fatalf("normal form %+v does not parse to itself", got)
		}
	})
}

var bearerSeeds = []string{
	"Bearer tj_" + strings.Repeat("A", 43), "bearer tj_" + strings.Repeat("a", 42) + "A", "Bearer  tj_" + strings.Repeat("-", 42) + "Q",
	"Bearer tj_" + strings.Repeat("A", 42), "Bearer tj_" + strings.Repeat("A", 44), "Bearer " + strings.Repeat("A", 46),
	"Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "", "Bearer tj_" + strings.Repeat("+", 43), "Bearer tj_" + strings.Repeat("A", 42) + "=",
}

func TestParseBearer(t *testing.T) {
	want := map[int]bool{0: true, 1: true, 2: true}
	for i, in := range bearerSeeds {
		if _, ok := ParseBearer(in); ok != want[i] {
			t.Errorf("%q: %v", in, ok)
		}
	}
}

// FuzzParseBearer: never panics; an accepted token is the prefix and 43
// characters of URL-safe base64, and never longer than the header.
func FuzzParseBearer(f *testing.F) {
	for _, s := range bearerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		token, ok := ParseBearer(header)
		if !ok {
			return
		}
		if len(token) != len(tokenPrefix)+43 || !strings.HasPrefix(token, tokenPrefix) || !strings.Contains(header, token) {
			t.Fatalf("%q gave %q", header, token)
		}
		if strings.Trim(token[len(tokenPrefix):], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Fatalf("%q gave %q", header, token)
		}
	})
}
