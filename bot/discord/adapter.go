// Package discord connects cita to Discord: the /ask slash command (gateway or HTTP
// interactions endpoint), deferred answers edited in place with a sources embed and buttons,
// follow-ups in the threads the bot opens, and access scopes from the members' roles. It turns
// Discord events into bot.Incoming turns and bot.Outgoing replies into Discord messages;
// answering, memory, feedback and answer records belong to bot.Handler and its store.
package discord

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/config"
)

// workTimeout bounds answering one interaction; Discord keeps an interaction token for 15 min.
const workTimeout = 2 * time.Minute

// Adapter is the Discord side of cita. Create it with New, then either Open the gateway or mount
// HTTPHandler; Close waits for answers in progress.
type Adapter struct {
	cfg       config.DiscordConfig
	session   *discordgo.Session
	handler   Handler
	audience  *audience
	publicKey ed25519.PublicKey
	logger    *slog.Logger
	now       func() time.Time

	baseCtx context.Context
	cancel  context.CancelFunc
	work    sync.WaitGroup

	mu             sync.Mutex
	threads        map[string]bool // threads this process opened (the bot owns them)
	removeHandlers []func()
}

// New returns an adapter for cfg (defaults are applied) answering through handler (a
// *bot.Handler). It returns an error when cfg is invalid or the session cannot be created; it
// does not contact Discord.
func New(cfg config.DiscordConfig, handler Handler, logger *slog.Logger) (*Adapter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("discord configuration: %w", err)
	}
	if handler == nil {
		return nil, errors.New("discord adapter: handler is nil")
	}
	cfg = cfg.WithDefaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s, err := newSession(cfg.Token, cfg.APIBaseURL, cfg.MessageContent)
	if err != nil {
		return nil, err
	}
	a := &Adapter{
		cfg: cfg, session: s, handler: handler, logger: logger, now: time.Now,
		threads: map[string]bool{},
	}
	a.audience = newAudience(s, newAccessMap(cfg), cfg.GuildIDs, logger)
	if cfg.PublicKey != "" {
		key, err := hex.DecodeString(cfg.PublicKey)
		if err != nil || len(key) != ed25519.PublicKeySize {
			return nil, errors.New("discord.public_key: not 64 hex characters")
		}
		a.publicKey = ed25519.PublicKey(key)
	}
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
		a.session.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
			a.logger.InfoContext(ctx, "discord gateway ready", slog.String("bot_user_id", r.User.ID), slog.Int("guilds", len(r.Guilds)))
		}),
	)
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

// goWork runs fn in the background with a bounded context derived from the adapter's.
func (a *Adapter) goWork(fn func(ctx context.Context)) {
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		ctx, cancel := context.WithTimeout(a.baseCtx, workTimeout)
		defer cancel()
		fn(ctx)
	}()
}

func (a *Adapter) markThread(id string) {
	a.mu.Lock()
	a.threads[id] = true
	a.mu.Unlock()
}

// ownsThread reports whether the bot owns thread ch: it opened it, or Discord says so.
func (a *Adapter) ownsThread(ch *discordgo.Channel) bool {
	a.mu.Lock()
	mine := a.threads[ch.ID]
	a.mu.Unlock()
	if mine {
		return true
	}
	return ch.IsThread() && a.session.State.User != nil && ch.OwnerID == a.session.State.User.ID
}
