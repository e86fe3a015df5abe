package leakcheck

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
	discordbot "github.com/citahq/cita/bot/discord"
)

// The Discord paths.
const (
	pathDiscordAsk        = "discord /ask"
	pathDiscordPrivate    = "discord /ask private"
	pathDiscordDM         = "discord direct message"
	pathDiscordExplain    = "discord how I answered"
	pathDiscordOtherGuild = "discord other guild"
)

// otherGuild is a guild cita is not configured for.
const otherGuild = "919999999999999999"

// discordSide is two Discord adapters (one per replica) in http mode: Discord signs each
// interaction and POSTs it to one replica, which answers by editing the response over REST.
type discordSide struct {
	endpoints[*discordbot.Adapter]
	fake   *fakeDiscord
	org    *org
	oracle *oracle
	key    ed25519.PrivateKey
	seq    atomic.Int64
	logger *slog.Logger

	mu       sync.Mutex
	answered map[string][]discordFinal // channel -> visible answers
}

func newDiscordSide(o *org, or *oracle, dc *dice, replicas []*replica, timeout time.Duration, logger *slog.Logger) (*discordSide, error) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	d := &discordSide{endpoints: newEndpoints[*discordbot.Adapter](timeout), fake: newFakeDiscord(o, or, dc), org: o, oracle: or,
		key: priv, logger: logger, answered: map[string][]discordFinal{}}
	roles := map[string][]string{}
	for i, g := range o.groups {
		roles[roleID(i)] = []string{g}
	}
	for _, r := range replicas {
		a, err := discordbot.New(discordbot.Options{
			Token: "leakcheck-token", ApplicationID: discordApp, PublicKey: pub, Mode: discordbot.ModeHTTP,
			GuildIDs: []string{o.guildID}, Access: bot.NewAccessMap(nil, roles, nil, nil, []string{everyone}),
			APIBaseURL: d.fake.srv.URL, Handler: r.handler, Logger: logger,
		})
		if err != nil {
			d.close(context.Background())
			return nil, err
		}
		d.serve(a, a.HTTPHandler())
	}
	return d, nil
}

// close lets every answer in flight finish, then stops the servers and the fake.
func (d *discordSide) close(ctx context.Context) {
	d.shutdown(ctx, (*discordbot.Adapter).Close)
	d.fake.close()
}

// send signs and posts an interaction to one replica, checks its immediate response, and waits
// for the work that edits it (when there is some). It returns the final response, ok false on
// timeout.
func (d *discordSide) send(ctx context.Context, replica int, info *interactionInfo, i map[string]any) (discordFinal, bool, error) {
	n := d.seq.Add(1)
	token := fmt.Sprintf("tok-%d", n)
	i["id"], i["token"], i["application_id"], i["version"] = strconv.FormatInt(970000000000+n, 10), token, discordApp, 1
	// The wait keeps its own reference: the fake takes the channel out of info at the first
	// edit, which may come before the first response is read here.
	done := make(chan discordFinal, 1)
	info.done = done
	d.fake.mu.Lock()
	d.fake.interactions[token] = info
	d.fake.mu.Unlock()
	body, _ := json.Marshal(i)
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	sig := ed25519.Sign(d.key, append([]byte(stamp), body...))
	header := http.Header{"Content-Type": {"application/json"}, "X-Signature-Ed25519": {hex.EncodeToString(sig)}, "X-Signature-Timestamp": {stamp}}
	raw, err := d.postSigned(ctx, replica, "", header, body)
	if err != nil {
		return discordFinal{}, false, fmt.Errorf("discord interaction: %w", err)
	}
	var first discordgo.InteractionResponse
	_ = json.Unmarshal(raw, &first)
	if first.Type == discordgo.InteractionResponseChannelMessageWithSource {
		// Answered at once: no work follows.
		if first.Data != nil && first.Data.Flags&discordgo.MessageFlagsEphemeral == 0 && !info.private && info.asker != nil {
			channel := info.channel
			d.oracle.post(info.path+" (first response)", channel, fmt.Sprintf("discord/%s/first-%d", channel, n), string(raw),
				func() []*person { return d.org.discordReadersLocked(channel) })
		} else if info.asker != nil {
			d.oracle.private(info.path+" (first response)", info.channel, info.asker, string(raw))
		} else {
			d.oracle.stranger(info.path+" (first response)", info.channel, string(raw))
		}
		return discordFinal{}, true, nil
	}
	f, ok, err := await(ctx, done, d.timeout)
	if !ok && err == nil {
		d.logger.Warn("leakcheck: discord interaction got no reply", slog.String("path", info.path),
			slog.Int("first_response_type", int(first.Type)), slog.String("first_response", string(raw)))
	}
	return f, ok, err
}

func (d *discordSide) memberJSON(p *person) map[string]any {
	d.org.mu.Lock()
	roles := d.org.rolesOfLocked(p)
	d.org.mu.Unlock()
	if roles == nil {
		roles = []string{}
	}
	return map[string]any{"user": map[string]any{"id": p.discordID, "username": fmt.Sprintf("p%d", p.n)}, "roles": roles}
}

func askData(question string, private bool) map[string]any {
	opts := []any{map[string]any{"name": "question", "type": 3, "value": question}}
	if private {
		opts = append(opts, map[string]any{"name": "private", "type": 5, "value": true})
	}
	return map[string]any{"id": "980000000000000001", "name": "ask", "type": 1, "options": opts}
}

// ask runs /ask in a guild channel as p, visible to the channel or private.
func (d *discordSide) ask(ctx context.Context, replica int, channel string, p *person, question string, private bool) (bool, error) {
	path := pathDiscordAsk
	if private {
		path = pathDiscordPrivate
	}
	d.oracle.ask(channel, question)
	f, ok, err := d.send(ctx, replica, &interactionInfo{path: path, asker: p, channel: channel, private: private}, map[string]any{
		"type": 2, "guild_id": d.org.guildID, "channel_id": channel, "member": d.memberJSON(p), "data": askData(question, private), "context": 0,
	})
	f.question = question
	if ok && !private && f.answerID != 0 {
		d.mu.Lock()
		d.answered[channel] = append(d.answered[channel], f)
		d.mu.Unlock()
	}
	return ok, err
}

// dm runs /ask in p's direct message with the bot.
func (d *discordSide) dm(ctx context.Context, replica int, p *person, question string) (bool, error) {
	conv := "dm:" + p.discordID
	d.oracle.ask(conv, question)
	_, ok, err := d.send(ctx, replica, &interactionInfo{path: pathDiscordDM, asker: p, channel: conv, private: true}, map[string]any{
		"type": 2, "channel_id": "dm" + p.discordID, "user": map[string]any{"id": p.discordID, "username": fmt.Sprintf("p%d", p.n)},
		"data": askData(question, false), "context": 1,
	})
	return ok, err
}

// otherGuild runs /ask in a guild cita does not serve: the refusal may name nothing.
func (d *discordSide) otherGuild(ctx context.Context, replica int, p *person, question string) (bool, error) {
	d.oracle.ask("other:"+p.discordID, question)
	_, ok, err := d.send(ctx, replica, &interactionInfo{path: pathDiscordOtherGuild, channel: "other:" + p.discordID}, map[string]any{
		"type": 2, "guild_id": otherGuild, "channel_id": "931111111111111111", "member": d.memberJSON(p), "data": askData(question, false), "context": 0,
	})
	return ok, err
}

// explain clicks "How I answered" on a visible answer in channel as p (who sees the channel).
func (d *discordSide) explain(ctx context.Context, replica int, channel string, f discordFinal, p *person) (bool, error) {
	d.oracle.ask(channel, f.question) // the view shows the question
	_, ok, err := d.send(ctx, replica, &interactionInfo{path: pathDiscordExplain, asker: p, channel: channel, private: true}, map[string]any{
		"type": 3, "guild_id": d.org.guildID, "channel_id": channel, "member": d.memberJSON(p), "context": 0,
		"data":    map[string]any{"custom_id": fmt.Sprintf("cita:how:%d", f.answerID), "component_type": 2},
		"message": map[string]any{"id": f.messageID, "channel_id": channel, "flags": 0, "content": "answer"},
	})
	return ok, err
}

// answer returns a random visible answer in channel.
func (d *discordSide) answer(rng *rand.Rand, channel string) (discordFinal, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	as := d.answered[channel]
	if len(as) == 0 {
		return discordFinal{}, false
	}
	return as[rng.IntN(len(as))], true
}

// announce records role changes as a gateway replica does when GUILD_MEMBER_UPDATE arrives:
// http mode hears no events, so the harness bumps the versions every replica checks.
func (d *discordSide) announce(ctx context.Context, store bot.Audiences, changes []change) error {
	for _, c := range changes {
		if c.kind == "grant" || c.kind == "revoke" {
			return store.BumpAudience(ctx, "discord", d.org.guildID, bot.SubjectRoles)
		}
	}
	return nil
}
