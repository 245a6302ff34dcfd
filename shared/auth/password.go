package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password bounds: at least 8 characters, at most 1024 bytes (argon2 hashes
// any length, but an unbounded input is free CPU for an attacker).
const (
	MinPasswordChars = 8
	MaxPasswordBytes = 1024
)

// argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane).
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
)

// CheckPassword returns what is wrong with a new password, or "".
func CheckPassword(p string) string {
	switch {
	case len(p) > MaxPasswordBytes:
		return fmt.Sprintf("must be at most %d bytes", MaxPasswordBytes)
	case !utf8.ValidString(p):
		return "must be valid UTF-8"
	case utf8.RuneCountInString(p) < MinPasswordChars:
		return fmt.Sprintf("must be at least %d characters", MinPasswordChars)
	}
	return ""
}

// HashPassword returns the PHC-format argon2id hash of p.
func HashPassword(p string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(p), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, argonMemoryKiB, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("unrecognised password hash")

// VerifyPassword reports whether p matches the stored hash, with the
// parameters the hash was made with (so they can be raised later).
func VerifyPassword(p, encoded string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var mem, t uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &threads); err != nil {
		return false, errBadHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(p), salt, t, mem, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// DummyHash is verified against when no user has the email, so a wrong
// email costs the same time as a wrong password. Made on first use, not at
// start, to keep cold starts cheap.
var DummyHash = sync.OnceValue(func() string {
	h, _ := HashPassword("no user has this password")
	return h
})
