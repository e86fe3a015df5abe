package discord

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// testKey is the application's signing key, from a fixed seed so runs are reproducible.
var testKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))

// Ids of the fake guild: @everyone (= guild id) can see #general; #hr is denied to @everyone and
// allowed to the HR role. Member 42 holds HR, member 43 holds no role.
const (
	guildID   = "500"
	roleHR    = "700"
	chGeneral = "600"
	chHR      = "601"
	userHR    = "42"
	userPlain = "43"
	ownerID   = "1"
)

// testOptions are http-mode options pointing at the fake, answering through handler; HR is
// mapped by role name and every member has "everyone".
func testOptions(baseURL string, handler Handler) Options {
	return Options{
		Token: "test-token", ApplicationID: "1000", PublicKey: testKey.Public().(ed25519.PublicKey),
		Mode: ModeHTTP, APIBaseURL: baseURL, GuildIDs: []string{guildID},
		Access:  bot.NewAccessMap(nil, map[string][]string{roleHR: {"hr"}}, nil, nil, []string{"everyone"}),
		Handler: handler, Logger: slog.New(slog.DiscardHandler),
	}
}

// seedGuild gives the fake the guild, its channels and members.
func seedGuild(f *fakeDiscord) {
	view := int64(discordgo.PermissionViewChannel | discordgo.PermissionSendMessages)
	f.addGuild(&discordgo.Guild{ID: guildID, Name: "Acme", OwnerID: ownerID, Roles: []*discordgo.Role{
		{ID: guildID, Name: "@everyone", Permissions: view},
		{ID: roleHR, Name: "HR"},
	}})
	f.addChannel(&discordgo.Channel{ID: chGeneral, GuildID: guildID, Type: discordgo.ChannelTypeGuildText, Name: "general"})
	f.addChannel(&discordgo.Channel{ID: chHR, GuildID: guildID, Type: discordgo.ChannelTypeGuildText, Name: "hr",
		PermissionOverwrites: []*discordgo.PermissionOverwrite{
			{ID: guildID, Type: discordgo.PermissionOverwriteTypeRole, Deny: int64(discordgo.PermissionViewChannel)},
			{ID: roleHR, Type: discordgo.PermissionOverwriteTypeRole, Allow: int64(discordgo.PermissionViewChannel)},
		}})
	f.addMember(guildID, &discordgo.Member{User: &discordgo.User{ID: ownerID}, Roles: []string{roleHR}})
	f.addMember(guildID, &discordgo.Member{User: &discordgo.User{ID: userHR}, Roles: []string{roleHR}})
	f.addMember(guildID, &discordgo.Member{User: &discordgo.User{ID: userPlain}})
}

// newTestAdapter returns an adapter over handler talking to the fake.
func newTestAdapter(t *testing.T, f *fakeDiscord, handler Handler, edit func(*Options)) *Adapter {
	t.Helper()
	opts := testOptions(f.srv.URL, handler)
	if edit != nil {
		edit(&opts)
	}
	a, err := New(opts)
	if err != nil {
		t.Fatalf("new adapter: %v", err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	return a
}

// signedPost is a POST to the interactions endpoint signed with key at time ts.
func signedPost(key ed25519.PrivateKey, body []byte, ts time.Time) *http.Request {
	stamp := strconv.FormatInt(ts.Unix(), 10)
	sig := ed25519.Sign(key, append([]byte(stamp), body...))
	r := httptest.NewRequest(http.MethodPost, "/discord/interactions", bytes.NewReader(body))
	r.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	r.Header.Set("X-Signature-Timestamp", stamp)
	r.Header.Set("Content-Type", "application/json")
	return r
}

// post signs body, sends it to the adapter's endpoint and returns the recorded response.
func post(t *testing.T, a *Adapter, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	a.HTTPHandler().ServeHTTP(w, signedPost(testKey, body, time.Now()))
	return w
}

// interaction builds an interaction payload as Discord sends it.
type interaction struct {
	ID, Token, Channel, User string
	Guild                    string // default guildID
	Roles                    []string
	DM                       bool
	Context                  *int // the interaction's "context" (0 guild, 1 bot DM, 2 private channel) when set
	Question                 string
	Private                  bool
	CustomID                 string // a button click when set
	Message                  map[string]any
}

func (in interaction) JSON(t *testing.T) []byte {
	t.Helper()
	m := map[string]any{"id": in.ID, "application_id": "1000", "token": in.Token, "channel_id": in.Channel, "version": 1}
	user := map[string]any{"id": in.User, "username": "user" + in.User}
	if in.Context != nil {
		m["context"] = *in.Context
	}
	if in.DM {
		m["user"] = user
	} else {
		m["guild_id"] = cmp.Or(in.Guild, guildID)
		roles := in.Roles
		if roles == nil {
			roles = []string{}
		}
		m["member"] = map[string]any{"user": user, "roles": roles, "permissions": "2147483647"}
	}
	if in.CustomID != "" {
		m["type"] = 3
		m["data"] = map[string]any{"custom_id": in.CustomID, "component_type": 2}
		m["message"] = in.Message
	} else {
		m["type"] = 2
		opts := []map[string]any{{"name": "question", "type": 3, "value": in.Question}}
		if in.Private {
			opts = append(opts, map[string]any{"name": "private", "type": 5, "value": true})
		}
		m["data"] = map[string]any{"id": "1", "name": "ask", "type": 1, "options": opts}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wait waits for the adapter's background work to finish.
func wait(a *Adapter) { a.work.Wait() }

// nopHandler answers every turn with a fixed reply and has no store; for transport tests.
type nopHandler struct{ out bot.Outgoing }

func (h nopHandler) Handle(context.Context, bot.Incoming, func(string)) bot.Outgoing { return h.out }
func (h nopHandler) Store() bot.Store                                                { return nil }

// recordingHandler answers every turn with out and records the turns it was given.
type recordingHandler struct {
	out   bot.Outgoing
	mu    sync.Mutex
	turns []bot.Incoming
}

func (h *recordingHandler) Handle(_ context.Context, in bot.Incoming, _ func(string)) bot.Outgoing {
	h.mu.Lock()
	h.turns = append(h.turns, in)
	h.mu.Unlock()
	return h.out
}
func (h *recordingHandler) Store() bot.Store { return nil }

// handled returns the turns handled so far.
func (h *recordingHandler) handled() []bot.Incoming {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.turns)
}

// toJSONAny round-trips v through JSON, as Discord would receive it.
func toJSONAny(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
