// Package encrypt seals the free text a trader considers private (position
// notes, image captions) with AES-256-GCM under ENCRYPTION_KEY. Each stored
// value names the key that sealed it, so a previous key
// (ENCRYPTION_KEY_PREVIOUS) keeps opening old values while
// `cmd/local rotate-encryption-key` re-seals them.
package encrypt

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
)

// prefix marks a sealed value: "tj1:<key id>:<base64 of nonce and ciphertext>".
const prefix = "tj1:"

// Keyring seals with the current key and opens with the current or the
// previous one. A nil *Keyring stores plaintext: encryption is optional.
type Keyring struct {
	current  key
	previous *key
}

type key struct {
	id   string
	aead cipher.AEAD
}

// New returns a keyring for the 32-byte current key and optional previous
// key, or nil when current is empty (encryption off).
func New(current, previous []byte) (*Keyring, error) {
	if len(current) == 0 {
		if len(previous) != 0 {
			return nil, errors.New("ENCRYPTION_KEY_PREVIOUS is set without ENCRYPTION_KEY")
		}
		return nil, nil
	}
	cur, err := newKey(current)
	if err != nil {
		return nil, err
	}
	k := &Keyring{current: cur}
	if len(previous) != 0 {
		prev, err := newKey(previous)
		if err != nil {
			return nil, err
		}
		k.previous = &prev
	}
	return k, nil
}

func newKey(raw []byte) (key, error) {
	if len(raw) != 32 {
		return key{}, errors.New("an encryption key must be 32 bytes")
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return key{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, err
	}
	return key{id: KeyID(raw), aead: aead}, nil
}

// KeyID names a key in stored values: the first 8 hex digits of its SHA-256
// (not the full fingerprint, which would help nobody and costs space).
func KeyID(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:4])
}

// Seal encrypts plaintext for the column it is stored in (bound as
// additional data, so a value moved to another column does not open). The
// empty string stays empty: there is nothing to hide and it keeps defaults.
func (k *Keyring) Seal(column Column, plaintext string) string {
	if k == nil || plaintext == "" {
		return plaintext
	}
	nonce := make([]byte, k.current.aead.NonceSize(), k.current.aead.NonceSize()+len(plaintext)+k.current.aead.Overhead())
	_, _ = rand.Read(nonce)
	sealed := k.current.aead.Seal(nonce, nonce, []byte(plaintext), []byte(column.String()))
	return prefix + k.current.id + ":" + base64.RawStdEncoding.EncodeToString(sealed)
}

// ErrUnknownKey means a value was sealed with a key this process does not
// have (neither ENCRYPTION_KEY nor ENCRYPTION_KEY_PREVIOUS).
var ErrUnknownKey = errors.New("value was encrypted with a key that is not configured")

// Open returns the plaintext of a stored value. A value that was never
// sealed (written before encryption was turned on) is returned as it is.
func (k *Keyring) Open(column Column, stored string) (string, error) {
	id, body, ok := parse(stored)
	if !ok {
		return stored, nil
	}
	var aead cipher.AEAD
	switch {
	case k == nil:
		return "", ErrUnknownKey
	case id == k.current.id:
		aead = k.current.aead
	case k.previous != nil && id == k.previous.id:
		aead = k.previous.aead
	default:
		return "", ErrUnknownKey
	}
	raw, err := base64.RawStdEncoding.DecodeString(body)
	if err != nil || len(raw) < aead.NonceSize() {
		return "", errors.New("encrypted value is damaged")
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(column.String()))
	if err != nil {
		return "", errors.New("encrypted value does not authenticate")
	}
	return string(plain), nil
}

// Current reports whether stored is already sealed with the current key
// (or is empty), so rotation can skip it.
func (k *Keyring) Current(stored string) bool {
	if stored == "" {
		return true
	}
	id, _, ok := parse(stored)
	return ok && id == k.current.id
}

func parse(stored string) (id, body string, ok bool) {
	rest, ok := strings.CutPrefix(stored, prefix)
	if !ok {
		return "", "", false
	}
	id, body, ok = strings.Cut(rest, ":")
	if !ok || len(id) != 8 {
		return "", "", false
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", "", false
	}
	return id, body, true
}
