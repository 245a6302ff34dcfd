package email_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime/quotedprintable"
	"strings"
	"testing"
	"time"

	"tradejournal/shared/config"
	"tradejournal/shared/db/dbtest"
	"tradejournal/shared/email"
	"tradejournal/shared/email/smtptest"
)

func mailerFor(sink *smtptest.Sink, mode string) *email.Mailer {
	return email.NewMailer(config.Email{
		SMTPHost: sink.Host, SMTPPort: sink.Port, TLSMode: mode, From: "journal@example.org", FromName: "Trade Journal",
		WebBaseURL: "https://journal.example.org", SMTPUser: "mailer", SMTPPass: "smtp-secret",
	}, sink.Roots)
}

func receive(t *testing.T, sink *smtptest.Sink) smtptest.Mail {
	t.Helper()
	select {
	case m := <-sink.Mails:
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no mail arrived")
	}
	return smtptest.Mail{}
}

func TestSendInEachTLSMode(t *testing.T) {
	for _, mode := range []string{"none", "starttls", "implicit"} {
		t.Run(mode, func(t *testing.T) {
			sink := smtptest.Start(t, mode)
			msg := email.Message{To: "trader@example.com", Subject: "Réinitialiser", Body: "Open https://journal.example.org/reset-password#token=abc\n.\nBye"}
			if err := mailerFor(sink, mode).Send(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			m := receive(t, sink)
			m.Data = decodeBody(t, m.Data)
			if m.From != "journal@example.org" || m.To != "trader@example.com" || m.Auth != "mailer:smtp-secret" {
				t.Fatalf("envelope %+v", m)
			}
			if m.TLS != (mode != "none") {
				t.Fatalf("TLS %v in mode %s", m.TLS, mode)
			}
			for _, want := range []string{`From: "Trade Journal" <journal@example.org>`, "To: trader@example.com", "Subject: =?utf-8?q?R=C3=A9initialiser?=", "Content-Type: text/plain", "reset-password#token=abc"} {
				if !strings.Contains(m.Data, want) {
					t.Errorf("message lacks %q:\n%s", want, m.Data)
				}
			}
		})
	}
}

func TestStartTLSRequired(t *testing.T) {
	sink := smtptest.Start(t, "none") // offers no STARTTLS
	err := mailerFor(sink, "starttls").Send(context.Background(), email.Message{To: "a@example.com", Subject: "s", Body: "b"})
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("err %v: a starttls mailer must not fall back to plain text", err)
	}
}

func TestUntrustedCertificateRefused(t *testing.T) {
	sink := smtptest.Start(t, "implicit")
	m := email.NewMailer(config.Email{SMTPHost: sink.Host, SMTPPort: sink.Port, TLSMode: "implicit", From: "journal@example.org"}, nil)
	if err := m.Send(context.Background(), email.Message{To: "a@example.com", Subject: "s", Body: "b"}); err == nil {
		t.Fatal("sent over TLS to a server whose certificate no CA vouches for")
	}
}

func TestOutbox(t *testing.T) {
	pool := dbtest.New(t)
	ctx := context.Background()
	sink := smtptest.Start(t, "none")
	now := time.Now().UTC().Add(time.Second)
	var logs bytes.Buffer
	box := email.NewOutbox(pool, mailerFor(sink, "none"), func() time.Time { return now }, slog.New(slog.NewTextHandler(&logs, nil)))
	count := func() (n int) {
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM email_outbox`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("DeliversAndDeletes", func(t *testing.T) {
		for _, to := range []string{"one@example.com", "two@example.com"} {
			if err := email.Enqueue(ctx, pool, email.Message{To: to, Subject: "hi", Body: "body"}); err != nil {
				t.Fatal(err)
			}
		}
		if sent, err := box.DeliverDue(ctx); err != nil || sent != 2 {
			t.Fatalf("sent %d (%v)", sent, err)
		}
		receive(t, sink)
		receive(t, sink)
		if n := count(); n != 0 {
			t.Fatalf("%d rows left after delivery", n)
		}
	})
	t.Run("RetriesWithBackoffThenGivesUp", func(t *testing.T) {
		sink.Fail = true
		if err := email.Enqueue(ctx, pool, email.Message{To: "bounce@example.com", Subject: "hi", Body: "body"}); err != nil {
			t.Fatal(err)
		}
		if sent, err := box.DeliverDue(ctx); err != nil || sent != 0 {
			t.Fatalf("sent %d (%v)", sent, err)
		}
		if sent, _ := box.DeliverDue(ctx); sent != 0 || count() != 1 {
			t.Fatal("retried before its backoff passed")
		}
		for range 10 {
			now = now.Add(3 * time.Hour)
			box.DeliverDue(ctx)
		}
		if n := count(); n != 0 {
			t.Fatalf("%d rows left: never given up", n)
		}
		if strings.Contains(logs.String(), "bounce@example.com") {
			t.Fatalf("a log line names the recipient:\n%s", logs.String())
		}
	})
}

// decodeBody undoes the quoted-printable body so tests read the text.
func decodeBody(t *testing.T, data string) string {
	t.Helper()
	head, body, _ := strings.Cut(data, "\r\n\r\n")
	plain, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	return head + "\r\n\r\n" + string(plain)
}
