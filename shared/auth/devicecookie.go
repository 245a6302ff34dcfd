package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
	"time"

	"tradejournal/shared/db"
)

// Device cookies, after OWASP's "Slow Down Online Guessing Attacks with
// Device Cookies": a browser that signed in to an account carries a cookie
// naming that user, signed by the server. Sign-in (functions/auth) lets such
// a trusted browser past the per-account ceiling that guessing from many
// addresses fills, so a stranger cannot lock the owner out; it is held to a
// limit of its own instead (keyed by the cookie's nonce), and untrusted
// browsers keep every limit. A forged cookie, a changed one and another
// user's are all simply untrusted.
//
// The cookie is base64url(user id (16 bytes) || nonce (16) || HMAC-SHA256
// of both under the instance's device key). One cookie per browser: a
// sign-in to another account replaces it. The key is made at random on
// first use and kept in instance_state, so every host of the instance (the
// local process, each Lambda function) signs and checks with the same key
// whether or not ENCRYPTION_KEY is set.

// DeviceCookieName is the device cookie.
const DeviceCookieName = "tj_device"

// DeviceCookieTTL is how long a browser stays trusted without signing in;
// each sign-in issues a new cookie.
const DeviceCookieTTL = 180 * 24 * time.Hour

// deviceKeyName is the instance_state row of the signing key (hex).
const deviceKeyName = "device_cookie_key"

// deviceMACContext separates the device cookie's MAC from any other use of
// the key.
const deviceMACContext = "tradejournal device cookie v1\x00"

// deviceKey returns the instance's device-cookie key, made on first use
// (two racing hosts agree: the first insert wins, both read it) and then
// kept in memory for the life of the process.
//
// q is the caller's connection (a sign-in's transaction when there is one):
// asking the pool for a second connection while the transaction holds one
// could wait forever on a pool of one.
func (s *Sessions) deviceKey(ctx context.Context, q db.Querier) ([]byte, error) {
	s.deviceKeyMu.Lock()
	defer s.deviceKeyMu.Unlock()
	if s.deviceKeyBytes != nil {
		return s.deviceKeyBytes, nil
	}
	var fresh [32]byte
	if _, err := rand.Read(fresh[:]); err != nil {
		return nil, err
	}
	const sql = `WITH made AS (INSERT INTO instance_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value)
		SELECT value FROM made UNION ALL SELECT value FROM instance_state WHERE key = $1 LIMIT 1`
	var stored string
	if err := q.QueryRow(ctx, sql, deviceKeyName, hex.EncodeToString(fresh[:])).Scan(&stored); err != nil {
		return nil, db.Classify(err)
	}
	key, err := hex.DecodeString(stored)
	if err != nil || len(key) != 32 {
		return nil, errDeviceKey
	}
	s.deviceKeyBytes = key
	return key, nil
}

var (
	errDeviceKey  = errors.New("instance_state holds a malformed device cookie key")
	errDeviceUser = errors.New("a device cookie for a user id that is not a UUID")
)

func deviceMAC(key, user, nonce []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(deviceMACContext))
	m.Write(user)
	m.Write(nonce)
	return m.Sum(nil)
}

// deviceCookie makes a new device cookie naming the user: HttpOnly,
// SameSite like the session's, and Secure when the request came over TLS
// (directly or through a proxy that says so) or in split-origin mode. A
// plain-http instance gets a cookie without Secure, which browsers would
// otherwise refuse to keep.
func (s *Sessions) deviceCookie(r *http.Request, q db.Querier, userID string) (*http.Cookie, error) {
	user, ok := uuidBytes(userID)
	if !ok {
		return nil, errDeviceUser
	}
	key, err := s.deviceKey(r.Context(), q)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	value := base64.RawURLEncoding.EncodeToString(append(append(append([]byte{}, user...), nonce...), deviceMAC(key, user, nonce)...))
	c := &http.Cookie{
		Name: DeviceCookieName, Value: value, Path: "/api/auth/", HttpOnly: true,
		Expires: s.now().Add(DeviceCookieTTL), MaxAge: int(DeviceCookieTTL / time.Second),
		SameSite: http.SameSiteLaxMode,
		Secure:   r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https"),
	}
	if s.splitOrigin {
		c.SameSite, c.Secure = http.SameSiteNoneMode, true
	}
	return c, nil
}

// TrustedDevice reports whether the request carries a valid device cookie
// for the user, and if so the cookie's nonce (hex), the key of the
// browser's own failure limit. Anything else (no cookie, a malformed,
// forged or changed one, another user's) is untrusted, never an error.
func (s *Sessions) TrustedDevice(ctx context.Context, r *http.Request, userID string) (string, bool, error) {
	c, err := r.Cookie(DeviceCookieName)
	if err != nil || len(c.Value) > 128 {
		return "", false, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(c.Value)
	user, ok := uuidBytes(userID)
	if err != nil || len(raw) != 64 || !ok || !hmac.Equal(raw[:16], user) {
		return "", false, nil
	}
	key, err := s.deviceKey(ctx, s.pool)
	if err != nil {
		return "", false, err
	}
	if !hmac.Equal(raw[32:], deviceMAC(key, raw[:16], raw[16:32])) {
		return "", false, nil
	}
	return hex.EncodeToString(raw[16:32]), true, nil
}

// uuidBytes is the 16 bytes of a UUID in its text form.
func uuidBytes(id string) ([]byte, bool) {
	if !db.ValidUUID(id) {
		return nil, false
	}
	b, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
	return b, err == nil && len(b) == 16
}
