// Package email sends the service's mail: verification and password-reset
// links. Requests only put messages in the outbox table; a worker (a goroutine
// in cmd/local, a scheduled function on Lambda) delivers them over SMTP, so
// a slow or failing mail server never blocks or fails the request.
package email

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"tradejournal/shared/config"
)

// Message is one plain-text mail.
type Message struct {
	To      string
	Subject string
	Body    string
}

// sendTimeout bounds one delivery, connection to QUIT.
const sendTimeout = 30 * time.Second

// Mailer talks SMTP in the configured TLS mode: implicit (TLS from the first
// byte, usually port 465), starttls (upgrade required, 587) or none (plain;
// only sensible towards a relay on the same host or network).
type Mailer struct {
	cfg   config.Email
	roots *x509.CertPool
}

// NewMailer returns a mailer for cfg. roots nil means the system's CAs; tests
// pass their own.
func NewMailer(cfg config.Email, roots *x509.CertPool) *Mailer {
	return &Mailer{cfg: cfg, roots: roots}
}

// Send delivers one message.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	addr := net.JoinHostPort(m.cfg.SMTPHost, strconv.Itoa(m.cfg.SMTPPort))
	tlsConfig := &tls.Config{ServerName: m.cfg.SMTPHost, RootCAs: m.roots, MinVersion: tls.VersionTLS12}

	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connect to the SMTP server: %w", err)
	}
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	if m.cfg.TLSMode == "implicit" {
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return fmt.Errorf("TLS with the SMTP server: %w", err)
		}
		conn = tc
	}
	c, err := smtp.NewClient(conn, m.cfg.SMTPHost)
	if err != nil {
		conn.Close()
		return fmt.Errorf("SMTP greeting: %w", err)
	}
	defer c.Close()
	if m.cfg.TLSMode == "starttls" {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return errors.New("the SMTP server does not offer STARTTLS (set SMTP_TLS_MODE=implicit or none)")
		}
		if err := c.StartTLS(tlsConfig); err != nil {
			return fmt.Errorf("STARTTLS: %w", err)
		}
	}
	if m.cfg.SMTPUser != "" {
		if err := c.Auth(smtp.PlainAuth("", m.cfg.SMTPUser, m.cfg.SMTPPass, m.cfg.SMTPHost)); err != nil {
			return fmt.Errorf("SMTP authentication: %w", err)
		}
	}
	if err := c.Mail(m.cfg.From); err != nil {
		return fmt.Errorf("MAIL FROM: %w", err)
	}
	if err := c.Rcpt(msg.To); err != nil {
		return fmt.Errorf("RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("DATA: %w", err)
	}
	if _, err := w.Write(m.format(msg, time.Now())); err != nil {
		return fmt.Errorf("write message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("end message: %w", err)
	}
	return c.Quit()
}

// format renders headers and a quoted-printable UTF-8 body with CRLF lines.
func (m *Mailer) format(msg Message, now time.Time) []byte {
	from := (&mail.Address{Name: m.cfg.FromName, Address: m.cfg.From}).String()
	var id [12]byte
	_, _ = rand.Read(id[:])
	domain := m.cfg.From[strings.LastIndexByte(m.cfg.From, '@')+1:]

	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from)
	header("To", msg.To)
	header("Subject", mime.QEncoding.Encode("utf-8", msg.Subject))
	header("Date", now.Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id[:])+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", `text/plain; charset="utf-8"`)
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(strings.ReplaceAll(msg.Body, "\n", "\r\n")))
	_ = qp.Close()
	return b.Bytes()
}

// Describe names a delivery failure for a log line without its text, which
// can quote the recipient's address: the stage, and the SMTP code if any.
func Describe(err error) string {
	stage, _, _ := strings.Cut(err.Error(), ":")
	var tp *textproto.Error
	if errors.As(err, &tp) {
		return fmt.Sprintf("%s (SMTP %d)", stage, tp.Code)
	}
	return stage
}
