package discord

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/syncbuf"
)

// panicHandler panics while answering, as a bug in the pipeline would.
type panicHandler struct{}

func (panicHandler) Handle(context.Context, bot.Incoming, func(string)) bot.Outgoing {
	panic("pipeline bug")
}
func (panicHandler) Store() bot.Store { return nil }

// TestWorkerPanicIsRecovered: a panic while answering ends neither the server nor the
// conversation: it is logged with its stack and the asker gets a reason, for an interaction
// (HTTP and gateway) and a message.
func TestWorkerPanicIsRecovered(t *testing.T) {
	t.Parallel()
	const want = "Something went wrong on my side"
	tests := []struct {
		name string
		run  func(t *testing.T, f *fakeDiscord, a *Adapter) string // returns the reply
	}{
		{"/ask over HTTP", func(t *testing.T, f *fakeDiscord, a *Adapter) string {
			post(t, a, interaction{ID: "71", Token: "tok-71", Channel: chGeneral, User: userPlain, Question: "vacation?"}.JSON(t))
			wait(a)
			edits := f.callsTo("PATCH", "/webhooks/1000/tok-71/messages/@original")
			if len(edits) != 1 {
				t.Fatalf("%d edits, want 1", len(edits))
			}
			return textOf(edits[0].JSON(t))
		}},
		{"a DM message on the gateway", func(t *testing.T, f *fakeDiscord, a *Adapter) string {
			a.onMessage(&discordgo.Message{ID: "9300", ChannelID: "670", Author: &discordgo.User{ID: userPlain}, Content: "vacation?"})
			wait(a)
			sent := f.callsTo("POST", "/channels/670/messages")
			if len(sent) != 1 {
				t.Fatalf("%d replies, want 1", len(sent))
			}
			return textOf(sent[0].JSON(t))
		}},
		{"a malformed gateway interaction", func(t *testing.T, f *fakeDiscord, a *Adapter) string {
			// An application command without its data: reading it panics inside discordgo.
			a.onGatewayInteraction(&discordgo.Interaction{ID: "72", AppID: "1000", Token: "tok-72", Type: discordgo.InteractionApplicationCommand,
				GuildID: guildID, ChannelID: chGeneral, Member: &discordgo.Member{User: &discordgo.User{ID: userPlain}}})
			wait(a)
			cbs := f.callsTo("POST", "/interactions/72/tok-72/callback")
			if len(cbs) != 1 {
				t.Fatalf("%d callbacks, want 1", len(cbs))
			}
			var resp discordgo.InteractionResponse
			if err := json.Unmarshal(cbs[0].Body, &resp); err != nil || resp.Data == nil {
				t.Fatalf("callback %s: %v", cbs[0].Body, err)
			}
			return resp.Data.Content
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeDiscord(t)
			seedGuild(f)
			var logs syncbuf.Buffer
			a := newTestAdapter(t, f, panicHandler{}, func(o *Options) {
				o.MessageContent = true
				o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			if reply := tt.run(t, f, a); !strings.Contains(reply, want) {
				t.Errorf("reply %q, want it to contain %q", reply, want)
			}
			if l := logs.String(); !strings.Contains(l, "panic") || !strings.Contains(l, "goroutine") {
				t.Errorf("logs lack the panic and its stack:\n%s", l)
			}
		})
	}
}
