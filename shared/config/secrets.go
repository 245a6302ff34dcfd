package config

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// Secrets returns every non-empty secret value of c, so tests elsewhere can
// assert that none reaches a response, a log line or /config.js. Passwords
// embedded in URLs are listed both decoded and as written.
func (c Config) Secrets() []string {
	var out []string
	seen := map[string]bool{}
	add := func(vals ...string) {
		for _, v := range vals {
			if v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	add(c.DB.Password)
	add(dsnPasswords(c.DB.URL)...)
	add(dsnPasswords(c.DB.DirectURL)...)
	add(c.Billing.SecretKey, c.Billing.WebhookSecret)
	add(c.Email.SMTPPass)
	add(c.Store.URL)
	add(urlPasswords(c.Store.URL)...)
	add(c.Storage.SecretAccessKey, c.Storage.AccessKeyID)
	add(c.Analytics.APIKey, c.Market.QuoteAPIKey, c.Assistant.APIKey, c.Assistant.AnthropicAPIKey)
	add(c.Market.Bars.AlpacaKeyID, c.Market.Bars.AlpacaSecretKey, c.Market.Bars.TwelveDataKey, c.Market.TradierKey)
	for _, k := range [][]byte{c.Encryption.Key, c.Encryption.PreviousKey} {
		if len(k) > 0 {
			add(base64.StdEncoding.EncodeToString(k), base64.RawStdEncoding.EncodeToString(k))
		}
	}
	return out
}

// dsnPasswords finds the password of a PostgreSQL connection string in
// either of the forms pgx accepts: a URL, or keyword=value pairs.
func dsnPasswords(dsn string) []string {
	if dsn == "" {
		return nil
	}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return urlPasswords(dsn)
	}
	if v, ok := keywordValue(dsn, "password"); ok {
		return []string{v}
	}
	return nil
}

// urlPasswords returns the userinfo password (decoded and as written) and a
// password query parameter, which libpq also accepts.
func urlPasswords(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	u, err := url.Parse(s)
	if err == nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw)
		}
		out = append(out, u.Query()["password"]...)
	}
	// The written form, which differs from the decoded one when escaped.
	if _, rest, ok := strings.Cut(s, "://"); ok {
		authority, _, _ := strings.Cut(rest, "/")
		if i := strings.LastIndex(authority, "@"); i >= 0 {
			if _, pw, ok := strings.Cut(authority[:i], ":"); ok {
				out = append(out, pw)
			}
		}
	}
	return out
}

// keywordValue reads one key from a libpq keyword/value string such as
// "host=db password='a b\'c'".
func keywordValue(s, want string) (string, bool) {
	i := 0
	for i < len(s) {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' {
			i++
		}
		key := s[start:i]
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return "", false
		}
		i++
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			for i < len(s) && s[i] != '\'' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			}
			i++
		} else {
			for i < len(s) && s[i] != ' ' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			}
		}
		if key == want {
			return val.String(), true
		}
	}
	return "", false
}
