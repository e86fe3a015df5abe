// Package slack is cita's Slack adapter: Socket Mode (default) or the Events API over HTTP in,
// bot.Handler turns, and threaded replies out (a placeholder at once, the answer streamed into it
// within Slack's rate limits, sources, feedback buttons and a "how I answered" view).
package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"golang.org/x/sync/singleflight"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// platform is the ConversationKey.Platform of every Slack conversation.
const platform = "slack"

// Options configures an Adapter.
type Options struct {
	BotToken      string
	AppToken      string // Socket Mode
	SigningSecret string // HTTP mode
	// APIURL is the Web API base; it must end with "/". Empty means Slack's.
	APIURL string
	// HTTPClient, when set, makes the Web API calls (proxies, tests).
	HTTPClient *http.Client

	Handler *bot.Handler
	// Store dedupes events, records feedback and keeps the audience versions every replica
	// checks (bot.Audiences).
	Store  bot.Store
	Access *bot.AccessMap
	// ChannelGroups pins channels to groups: a reply there uses at most these groups, within
	// what every reader may read. Keys are channel ids (C…, G…) or names ("#people-ops"),
	// resolved once by New.
	ChannelGroups map[string][]string
	// ScopeTTL bounds how long the workspace's people and user groups are reused when no change
	// is recorded (a lost event); default 10 minutes. Channel members are never cached.
	ScopeTTL time.Duration
	// UpdateInterval spaces chat.update calls while an answer streams; default 1 s (Slack allows
	// about one update per second per channel).
	UpdateInterval time.Duration
	// JoinerListGrace is how long after a member_joined_channel a complete member list that
	// does not show the joiner is taken for Slack's list trailing its events rather than their
	// leaving (a lost member_left_channel); default bot.JoinerListGrace. It must exceed how long
	// Slack's list trails (seconds). The leak harness, whose rounds pass in under a second where
	// an organisation's pass in hours, shortens it as it shortens every wait.
	JoinerListGrace time.Duration
	// Placeholder is the text posted at once; default "Looking…".
	Placeholder string
	// Disclaimer, when set, is one line shown under every answer and hedged reply on every Slack
	// path (underAnswer), never under "I couldn't find this" or a reason. It is display only:
	// not part of the answer, its record or the answer cache.
	Disclaimer string
	// Gaps, when set, offers "Tell the document owners" under declined and hedged replies
	// asked where not everyone could see them, and records the shares (docs/gaps.md).
	Gaps bot.GapStore
	// Home, when set, publishes the App Home tab when someone opens it: their own recent
	// questions and, for a document owner, the gaps in their documents and their sources' sync
	// health (docs/gaps.md).
	Home bot.HomeStore
	// SuggestedPrompts are offered in every new assistant thread (at most four); empty means
	// the questions most asked in the workspace whose answers the user may read.
	SuggestedPrompts []string
	// Trace, when set, is told when each visible step happens, measured from the moment the event
	// reached cita: "placeholder" (the first visible response), in assistant threads "status"
	// (the first visible response there) and "first_words", and "final".
	Trace  func(stage string, sinceReceived time.Duration)
	Logger *slog.Logger
	// Now is the clock for signature windows; nil means time.Now.
	Now func() time.Time
}

// Adapter connects one Slack app to a bot.Handler. Construct it with New, run it with
// RunSocketMode or mount HTTPHandler, and call Shutdown to let answers in flight finish.
type Adapter struct {
	api       *slack.Client
	opts      Options
	logger    *slog.Logger
	botUserID string
	teamID    string

	// Who reads what, cached under the audience versions (see directory.go).
	people     *bot.VersionedCache[directory]
	strangers  *bot.VersionedCache[person]              // users.info of accounts not in the directory
	roles      *bot.VersionedCache[map[string][]string] // user id -> user group ids and handles
	fullScopes *bot.VersionedCache[[]rag.Scope]         // the readers of every public channel
	flight     singleflight.Group
	pins       map[string]rag.Scope // channel id -> pinned groups
	// pendingChecked spaces the retries of failed notices per channel (see settleChannel).
	pendingChecked *bot.TTLCache[struct{}]
	streamLimits   streamLimits
	// writes guards every write of an answer's text and its notice (see bot.AnswerWrites).
	writes *bot.AnswerWrites

	// work outlives the serving context so that answers in flight finish on shutdown.
	work       context.Context
	cancelWork context.CancelFunc
	inflight   sync.WaitGroup
}

// New returns an adapter after checking the bot token with auth.test (which also tells the
// bot's own user id). It returns an error naming the token or URL at fault.
func New(ctx context.Context, opts Options) (*Adapter, error) {
	if opts.Handler == nil || opts.Store == nil || opts.Access == nil {
		return nil, errors.New("slack adapter: Handler, Store and Access are required")
	}
	if opts.ScopeTTL <= 0 {
		opts.ScopeTTL = 10 * time.Minute
	}
	if opts.UpdateInterval <= 0 {
		opts.UpdateInterval = time.Second
	}
	if opts.JoinerListGrace <= 0 {
		opts.JoinerListGrace = bot.JoinerListGrace
	}
	if opts.Placeholder == "" {
		opts.Placeholder = "Looking…"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	clientOpts := []slack.Option{}
	if opts.APIURL != "" {
		clientOpts = append(clientOpts, slack.OptionAPIURL(opts.APIURL))
	}
	if opts.AppToken != "" {
		clientOpts = append(clientOpts, slack.OptionAppLevelToken(opts.AppToken))
	}
	if opts.HTTPClient != nil {
		clientOpts = append(clientOpts, slack.OptionHTTPClient(opts.HTTPClient))
	}
	api := slack.New(opts.BotToken, clientOpts...)
	auth, err := api.AuthTestContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("slack auth.test (check slack.bot_token and slack.api_url): %w", err)
	}
	pins, err := resolvePins(ctx, api, opts.ChannelGroups)
	if err != nil {
		return nil, err
	}
	work, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &Adapter{
		api: api, opts: opts, logger: opts.Logger, botUserID: auth.UserID, teamID: auth.TeamID,
		people:     bot.NewVersionedCache[directory](opts.ScopeTTL, nil),
		strangers:  bot.NewVersionedCache[person](opts.ScopeTTL, nil),
		roles:      bot.NewVersionedCache[map[string][]string](opts.ScopeTTL, nil),
		fullScopes: bot.NewVersionedCache[[]rag.Scope](opts.ScopeTTL, nil),
		pins:       pins, pendingChecked: bot.NewTTLCache[struct{}](pendingCheckEvery, nil), streamLimits: newStreamLimits(),
		writes: bot.NewAnswerWrites(opts.Store),
		work:   work, cancelWork: cancel,
	}, nil
}

// BotUserID returns the bot's Slack user id (from auth.test).
func (a *Adapter) BotUserID() string { return a.botUserID }

// goWork runs fn in the background under the adapter's work context, counted for Shutdown. A
// panic in fn is logged with its stack instead of ending the server (the answer, slash and
// button paths also recover on their own, to reply with a reason).
func (a *Adapter) goWork(fn func(ctx context.Context)) {
	a.inflight.Add(1)
	go func() {
		defer a.inflight.Done()
		defer func() {
			if p := recover(); p != nil {
				bot.LogPanic(a.work, a.logger, "panic in a slack worker", p)
			}
		}()
		fn(a.work)
	}()
}

// Shutdown waits for the answers in flight to finish, or cancels them when ctx ends first. It
// returns ctx's error in that case.
func (a *Adapter) Shutdown(ctx context.Context) error {
	done := make(chan struct{})
	go func() { a.inflight.Wait(); close(done) }()
	select {
	case <-done:
		a.cancelWork()
		return nil
	case <-ctx.Done():
		a.cancelWork()
		<-done
		return fmt.Errorf("slack: answers still in flight at shutdown: %w", ctx.Err())
	}
}

func (a *Adapter) trace(stage string, received time.Time) {
	d := time.Since(received)
	if a.opts.Trace != nil {
		a.opts.Trace(stage, d)
	}
	a.logger.Debug("slack reply step", slog.String("stage", stage), slog.Float64("since_event_ms", float64(d.Microseconds())/1000))
}
