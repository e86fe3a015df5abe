package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/internal/syncbuf"
	"github.com/citahq/cita/internal/testdb"
)

// A Discord token that Discord refuses (HTTP 401 on registering /ask) stops `cita serve` with
// an error naming discord.token, like every other start-up error names its field.
func TestServeNamesDiscordTokenWhenDiscordRefusesIt(t *testing.T) {
	clearEnv(t)
	discordAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message": "401: Unauthorized", "code": 0}`)
	}))
	defer discordAPI.Close()
	cs, _ := testdb.Schema(t)
	path := writeConfig(t, fmt.Sprintf(`
database_url: "%s"
listen: %s
discord:
  token: wrong-token
  application_id: "123456789012345678"
  mode: http
  public_key: "%s"
  guild_ids: ["223456789012345678"]
  api_base_url: %s
`, cs, closedPort(t), strings.Repeat("ab", 32), discordAPI.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	if code := run(ctx, []string{"--config", path, "serve"}, &stdout, &stderr); code == 0 {
		t.Fatalf("serve with a refused Discord token exited 0")
	}
	if logs := stderr.String(); !strings.Contains(logs, "discord.token") || !strings.Contains(logs, "401") {
		t.Fatalf("the error does not name discord.token:\n%s", logs)
	}
}
