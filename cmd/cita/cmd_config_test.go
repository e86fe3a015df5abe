package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clearEnv unsets the variables that override the configuration, so a test sees only its file.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, name := range []string{"DATABASE_URL", "CITA_CONFIG", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET",
		"CITA_CHAT_API_KEY", "CITA_CHAT_BASE_URL", "CITA_CHAT_MODEL", "CITA_EMBEDDER_API_KEY", "CITA_WORKERS", "CITA_QUEUE_SIZE",
		"CITA_LOG_FORMAT", "CITA_LOG_LEVEL"} {
		t.Setenv(name, "")
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cita.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigCheckMasksSecrets(t *testing.T) {
	clearEnv(t)
	t.Setenv("TEST_CHAT_KEY", "sk-topsecret-chat")
	path := writeConfig(t, `
database_url: postgres://cita:hunter2pw@db.internal:5432/cita?sslmode=require
chat:
  base_url: http://127.0.0.1:1/v1
  model: gpt-4o-mini
  api_key: ${TEST_CHAT_KEY}
slack:
  bot_token: xoxb-1234-secretbotvalue
  mode: http
  signing_secret: sigsecret0123456789
sources:
  - name: bucket
    type: s3
    s3:
      bucket: docs
      endpoint: 127.0.0.1:9000
      insecure: true
      access_key_id: AKIAEXAMPLEKEY
      secret_access_key: s3-secret-value
`)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", path, "config", "check"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, secret := range []string{"hunter2pw", "sk-topsecret-chat", "secretbotvalue", "sigsecret0123456789", "AKIAEXAMPLEKEY", "s3-secret-value"} {
		if strings.Contains(out, secret) {
			t.Errorf("config check printed the secret %q", secret)
		}
	}
	for _, want := range []string{"postgres://cita:********@db.internal:5432/cita?sslmode=require", "bot_token: '********'",
		"signing_secret: '********'", "api_key: '********'", "workers: 8", "queue_size: 64", "# configuration is valid",
		"app_token: \"\""} {
		if !strings.Contains(out, want) {
			t.Errorf("config check output lacks %q:\n%s", want, out)
		}
	}
}

func TestConfigCheckNamesInvalidFields(t *testing.T) {
	clearEnv(t)
	path := writeConfig(t, "server:\n  workers: -3\n  log:\n    format: xml\n")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", path, "config", "check"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"server.workers", "server.log.format"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("error output lacks %q: %s", want, stderr.String())
		}
	}
}

func TestMaskDatabaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"postgres://u:p4ss@h/db", "postgres://u:********@h/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgresql://h/db?password=p4ss&sslmode=disable", "postgresql://h/db?password=********&sslmode=disable"},
		{"host=h user=u password=p4ss dbname=d", "host=h user=u password=******** dbname=d"},
		{"host=h password='p 4ss' dbname=d", "host=h password=******** dbname=d"},
		{`host=h password="p4ss word" dbname=d`, "host=h password=******** dbname=d"},
		{"host=h password=p4ss", "host=h password=********"},
	}
	for _, tt := range tests {
		if got := maskDatabaseURL(tt.in); got != tt.want || strings.Contains(got, "p4ss") {
			t.Errorf("maskDatabaseURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestConfigCheckMasksReadReplicaPasswords: the replicas' URLs carry passwords as the primary's
// does, in both forms; config check must print neither.
func TestConfigCheckMasksReadReplicaPasswords(t *testing.T) {
	clearEnv(t)
	path := writeConfig(t, `
database_url: postgres://cita:primarypw1@db.internal:5432/cita
database:
  read_urls:
    - postgres://reader:replicapw1@replica1.internal:5432/cita?sslmode=require
    - host=replica2.internal user=reader password=replicapw2 dbname=cita
  max_replica_lag: 3s
`)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--config", path, "config", "check"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, secret := range []string{"primarypw1", "replicapw1", "replicapw2"} {
		if strings.Contains(out, secret) {
			t.Errorf("config check printed the password %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{"postgres://reader:********@replica1.internal:5432/cita?sslmode=require",
		"host=replica2.internal user=reader password=******** dbname=cita", "max_replica_lag: 3s"} {
		if !strings.Contains(out, want) {
			t.Errorf("config check output lacks %q:\n%s", want, out)
		}
	}
}

// TestBadDatabaseURLIsNotQuoted: pgx redacts a password from its parse errors only as far as
// it can tell where it ends; neither ask nor doctor may print the rest of it.
func TestBadDatabaseURLIsNotQuoted(t *testing.T) {
	clearEnv(t)
	path := writeConfig(t, `database_url: "host=db.internal user=cita password=\"hunter2 secret77\" port=notaport"`+"\n")
	for _, args := range [][]string{{"ask", "anything?"}, {"doctor"}, {"config", "check"}} {
		var stdout, stderr bytes.Buffer
		run(context.Background(), append([]string{"--config", path}, args...), &stdout, &stderr)
		if out := stdout.String() + stderr.String(); strings.Contains(out, "secret77") {
			t.Errorf("cita %s printed part of the password:\n%s", args[0], out)
		}
	}
}
