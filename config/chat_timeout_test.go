package config

import (
	"strings"
	"testing"
	"time"
)

func TestChatTimeoutDefaultsAndRange(t *testing.T) {
	cfg, err := Load(writeTemp(t, "chat:\n  base_url: http://127.0.0.1:1/v1\n  model: m\n"))
	if err != nil || cfg.Chat.Timeout != 30*time.Second {
		t.Fatalf("default chat.timeout = %s (%v), want 30s", cfg.Chat.Timeout, err)
	}
	cfg, err = Load(writeTemp(t, "chat:\n  base_url: http://127.0.0.1:1/v1\n  model: m\n  timeout: 5s\n"))
	if err != nil || cfg.Chat.Timeout != 5*time.Second {
		t.Fatalf("chat.timeout: 5s loaded as %s (%v)", cfg.Chat.Timeout, err)
	}
	_, err = Load(writeTemp(t, "chat:\n  base_url: http://127.0.0.1:1/v1\n  model: m\n  timeout: -1s\n"))
	if err == nil || !strings.Contains(err.Error(), "chat.timeout") {
		t.Fatalf("a negative chat.timeout: %v, want an error naming the field", err)
	}
}
