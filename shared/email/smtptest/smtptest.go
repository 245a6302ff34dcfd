// Package smtptest is a small SMTP server for tests: it speaks enough of
// RFC 5321 for net/smtp (EHLO, STARTTLS, AUTH PLAIN, MAIL, RCPT, DATA, RSET,
// NOOP, QUIT), in plain, STARTTLS or implicit-TLS mode, with a self-signed
// certificate, and hands every received message to the test.
package smtptest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"
)

// Mail is one received message.
type Mail struct {
	From, To string
	Data     string
	// Auth is "user:pass" when the client authenticated.
	Auth string
	// TLS reports whether the message travelled over TLS.
	TLS bool
}

// Sink is a running server.
type Sink struct {
	Host  string
	Port  int
	Roots *x509.CertPool
	Mails chan Mail
	// Fail, when set, makes RCPT answer 550 (a failing server).
	Fail bool

	mode string
	cert tls.Certificate
	ln   net.Listener
}

// Start runs a sink in mode "none", "starttls" or "implicit" on loopback.
func Start(tb testing.TB, mode string) *Sink {
	tb.Helper()
	cert, roots := selfSigned(tb)
	s := &Sink{Host: "localhost", Roots: roots, Mails: make(chan Mail, 100), mode: mode, cert: cert}
	var err error
	if mode == "implicit" {
		s.ln, err = tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	} else {
		s.ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		tb.Fatal(err)
	}
	s.Port = s.ln.Addr().(*net.TCPAddr).Port
	go s.serve()
	tb.Cleanup(func() { s.ln.Close() })
	return s
}

func (s *Sink) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.session(c)
	}
}

func (s *Sink) session(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	_, isTLS := c.(*tls.Conn)
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	say := func(line string) { w.WriteString(line + "\r\n"); w.Flush() }
	say("220 localhost smtptest")
	var m Mail
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			w.WriteString("250-localhost\r\n")
			if s.mode == "starttls" && !isTLS {
				w.WriteString("250-STARTTLS\r\n")
			}
			say("250 AUTH PLAIN")
		case "STARTTLS":
			say("220 go ahead")
			tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{s.cert}})
			if err := tc.Handshake(); err != nil {
				return
			}
			c, isTLS = tc, true
			r, w = bufio.NewReader(c), bufio.NewWriter(c)
		case "AUTH":
			_, b64, _ := strings.Cut(arg, " ")
			raw, _ := base64.StdEncoding.DecodeString(b64)
			parts := strings.Split(string(raw), "\x00")
			if len(parts) == 3 {
				m.Auth = parts[1] + ":" + parts[2]
			}
			say("235 ok")
		case "MAIL":
			m.From = pathOf(arg)
			say("250 ok")
		case "RCPT":
			if s.Fail {
				say("550 mailbox unavailable")
				continue
			}
			m.To = pathOf(arg)
			say("250 ok")
		case "DATA":
			say("354 end with .")
			var data strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(strings.TrimPrefix(l, "."))
			}
			m.Data, m.TLS = data.String(), isTLS
			s.Mails <- m
			m = Mail{}
			say("250 queued")
		case "RSET", "NOOP":
			say("250 ok")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}

func selfSigned(tb testing.TB) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, roots
}

// pathOf reads the address of "FROM:<a@b>" or "TO:<a@b>".
func pathOf(arg string) string {
	_, path, _ := strings.Cut(arg, ":")
	path, _, _ = strings.Cut(path, " ")
	return strings.Trim(path, "<>")
}
