// Package discord connects cita to Discord: the /ask slash command (gateway or HTTP
// interactions endpoint), deferred answers edited in place with a sources embed and buttons,
// follow-ups in the threads the bot opens, and access scopes from the members' roles. What it
// reads about who sees what is reused only under audience versions kept in the database, which
// the gateway's role, channel and member events bump for every replica; when a channel's viewers
// change, earlier answers they may not read are edited into a notice. It turns Discord events
// into bot.Incoming turns and bot.Outgoing replies into Discord messages; answering, memory,
// feedback and answer records belong to bot.Handler and its store.
package discord

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// workTimeout bounds answering one interaction; Discord keeps an interaction token for 15 min.
const workTimeout = 2 * time.Minute

// Adapter is the Discord side of cita. Create it with New, then either Open the gateway or mount
// HTTPHandler; Close waits for answers in progress.
type Adapter struct {
	opts     Options
	session  *discordgo.Session
	handler  Handler
	audience *audience
	logger   *slog.Logger
	now      func() time.Time

	baseCtx context.Context
	cancel  context.CancelFunc
	work    sync.WaitGroup

	threads        *boundedCache[struct{}] // threads this process opened (the bot owns them)
	removeHandlers []func()

	pendingChecked *bot.TTLCache[struct{}] // channels whose pending notices this replica checked lately
	writes         *bot.AnswerWrites       // guards every write of an answer's text and its notice

	connectedMu sync.Mutex
	connected   map[string]bool // guilds a GUILD_CREATE arrived for in this process

	settleMu    sync.Mutex
	settling    map[string]bool // guilds whose channels are being checked after a change
	settleAgain map[string]bool // guilds that changed again during that check
}

// New returns an adapter configured by opts (defaults applied). It returns an error naming
// the wrong option, or when the session cannot be created; it does not contact Discord.
func New(opts Options) (*Adapter, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	adoptLibraryLogger(opts.Logger)
	s, err := newSession(opts.Token, opts.APIBaseURL, gatewayIntents(opts.MessageContent, opts.MemberEvents), opts.Transport)
	if err != nil {
		return nil, err
	}
	a := &Adapter{
		opts: opts, session: s, handler: opts.Handler, logger: opts.Logger, now: opts.Now,
		threads:        newBoundedCache[struct{}](maxThreads, threadMemory, opts.Now),
		pendingChecked: bot.NewTTLCache[struct{}](pendingCheckEvery, opts.Now),
		connected:      map[string]bool{}, settling: map[string]bool{}, settleAgain: map[string]bool{},
	}
	var store bot.Audiences
	if st := opts.Handler.Store(); st != nil {
		store = st
	}
	a.writes = bot.NewAnswerWrites(store)
	a.audience = newAudience(s, store, newAccessMap(opts), opts.GuildIDs, opts.Mode == ModeHTTP, opts.Logger, opts.Now)
	a.baseCtx, a.cancel = context.WithCancel(context.Background())
	return a, nil
}

// Session returns the discordgo session (for tests and for adding handlers).
func (a *Adapter) Session() *discordgo.Session { return a.session }

// Open connects to the gateway and starts handling interactions and thread messages. It returns
// the gateway's error (bad token, disallowed intents: enable MESSAGE_CONTENT or turn
// discord.message_content off).
func (a *Adapter) Open(ctx context.Context) error {
	a.removeHandlers = append(a.removeHandlers,
		a.session.AddHandler(func(_ *discordgo.Session, ic *discordgo.InteractionCreate) { a.onGatewayInteraction(ic.Interaction) }),
		a.session.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { a.onMessage(m.Message) }),
		a.session.AddHandler(func(_ *discordgo.Session, g *discordgo.GuildCreate) {
			a.onGuildCreate(ctx, g.Guild)
			a.goWork(func(ctx context.Context) { a.guildConnected(ctx, g.Guild) }, nil)
		}),
		a.session.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
			a.logger.InfoContext(ctx, "discord gateway ready", slog.String("bot_user_id", r.User.ID), slog.Int("guilds", len(r.Guilds)))
		}),
	)
	for _, h := range a.audienceHandlers() {
		a.removeHandlers = append(a.removeHandlers, a.session.AddHandler(h))
	}
	if err := a.session.Open(); err != nil {
		return fmt.Errorf("open discord gateway: %w", err)
	}
	return nil
}

// Close stops the gateway (when open), waits up to ctx for answers in progress and then cancels
// them. It returns the gateway's close error.
func (a *Adapter) Close(ctx context.Context) error {
	for _, remove := range a.removeHandlers {
		remove()
	}
	err := a.session.Close()
	done := make(chan struct{})
	go func() { a.work.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	a.cancel()
	a.work.Wait()
	return err
}

// trace tells Options.Trace that a visible step of a reply happened, measured from received.
func (a *Adapter) trace(step string, received time.Time) {
	d := a.now().Sub(received)
	if a.opts.Trace != nil {
		a.opts.Trace(step, d)
	}
	a.logger.Debug("discord reply step", slog.String("step", step), slog.Float64("since_received_ms", float64(d.Microseconds())/1000))
}

func (a *Adapter) markThread(id string) { a.threads.Add(id, struct{}{}) }

// ownsKnownThread reports whether the bot owns channel id as far as it knows without asking
// Discord: it opened the thread, or the gateway's state says the bot owns it.
func (a *Adapter) ownsKnownThread(id string) bool {
	ch, err := a.session.State.Channel(id)
	if err != nil {
		ch = &discordgo.Channel{ID: id}
	}
	return a.ownsThread(ch)
}

// ownsThread reports whether the bot owns thread ch: it opened it, or Discord says so.
func (a *Adapter) ownsThread(ch *discordgo.Channel) bool {
	if _, mine := a.threads.Get(ch.ID); mine {
		return true
	}
	return ch.IsThread() && a.session.State.User != nil && ch.OwnerID == a.session.State.User.ID
}
