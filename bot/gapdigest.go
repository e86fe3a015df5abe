package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// The gap digest (docs/gaps.md): on a schedule, the gap report is posted in a channel the
// document owners read. Its reader is the channel's audience, resolved by the platform when it
// posts: the documents it names are those everyone there may read, and the questions are those
// of the channel's own workspace (a Slack team's, a Discord guild's).

// DigestBuilder builds a digest's text for a channel's readers: reader is what everyone there
// may read, platform and workspace where the channel is. quote is false when someone there
// could not read every public channel of the workspace (a Slack guest, a channel shared with
// another organisation): the digest then names topics and counts, never a question's words.
type DigestBuilder func(ctx context.Context, reader rag.Scope, platform, workspace string, quote bool) (string, error)

// GapDigestPoster posts a digest in one of its platform's channels; the Slack and Discord
// adapters implement it. It resolves the channel's readers first and posts nothing when it
// cannot (fails closed).
type GapDigestPoster interface {
	PostGapDigest(ctx context.Context, channel string, build DigestBuilder) error
}

// GapDigestStore claims each scheduled digest once and keeps the report.
type GapDigestStore interface {
	ClaimGapDigest(ctx context.Context, platform, channel string, slot time.Time) (claimed bool, since time.Time, err error)
	GapDigestDone(ctx context.Context, platform, channel string, slot time.Time, postErr error) error
	GapReport(ctx context.Context, q GapQuery) ([]GapTopic, error)
}

// DigestTarget is one channel a digest goes to.
type DigestTarget struct {
	Platform, Channel string
}

// GapDigester posts the digest of one scheduled run to every target, once across replicas.
type GapDigester struct {
	Store   GapDigestStore
	Posters map[string]GapDigestPoster // by platform
	Targets []DigestTarget
	// Group groups the questions not grouped yet before a digest is built; nil skips it.
	Group  func(ctx context.Context) error
	Logger *slog.Logger
	// MaxBack bounds what a first digest covers (default 30 days).
	MaxBack time.Duration
}

// Post posts the digest of slot (the scheduled time) to each target that no replica claimed.
func (d *GapDigester) Post(ctx context.Context, slot time.Time) {
	logger := d.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if d.Group != nil {
		if err := d.Group(ctx); err != nil {
			logger.ErrorContext(ctx, "group gap questions before the digest", slog.String("error", err.Error()))
		}
	}
	maxBack := d.MaxBack
	if maxBack <= 0 {
		maxBack = 30 * 24 * time.Hour
	}
	for _, t := range d.Targets {
		poster := d.Posters[t.Platform]
		if poster == nil {
			continue
		}
		claimed, since, err := d.Store.ClaimGapDigest(ctx, t.Platform, t.Channel, slot)
		if err != nil || !claimed {
			if err != nil {
				logger.ErrorContext(ctx, "claim gap digest", slog.String("channel_id", t.Channel), slog.String("error", err.Error()))
			}
			continue
		}
		if since.IsZero() || slot.Sub(since) > maxBack {
			since = slot.Add(-maxBack)
		}
		build := func(ctx context.Context, reader rag.Scope, platform, workspace string, quote bool) (string, error) {
			rep, err := d.Store.GapReport(ctx, GapQuery{Since: since, Reader: reader, Platform: platform, Workspace: workspace, Limit: 15})
			if err != nil {
				return "", err
			}
			if !quote {
				for i := range rep {
					rep[i].Questions, rep[i].Concepts = nil, []string{fmt.Sprintf("topic %d", rep[i].Topic)}
				}
			}
			return GapDigestText(rep, since), nil
		}
		postErr := poster.PostGapDigest(ctx, t.Channel, build)
		if postErr != nil {
			logger.ErrorContext(ctx, "post gap digest", slog.String("platform", t.Platform), slog.String("channel_id", t.Channel), slog.String("error", postErr.Error()))
		}
		if err := d.Store.GapDigestDone(ctx, t.Platform, t.Channel, slot, postErr); err != nil {
			logger.ErrorContext(ctx, "record gap digest", slog.String("error", err.Error()))
		}
	}
}

// GapDigestText is the digest's text (plain, one line per fact; the platforms escape it): per
// topic, who owns it, how often it was asked and how much of it a document change answered.
func GapDigestText(rep []GapTopic, since time.Time) string {
	var b strings.Builder
	asked, open, resolved := 0, 0, 0
	for _, t := range rep {
		asked, open, resolved = asked+t.Asked, open+t.Open, resolved+t.Resolved
	}
	fmt.Fprintf(&b, "Knowledge gaps since %s: %d questions the documentation did not answer, %d still open, %d answered since by a document change.\n",
		since.Format(time.DateOnly), asked, open, resolved)
	if len(rep) == 0 {
		b.WriteString("Nothing asked in public channels or shared by its asker went unanswered.")
		return b.String()
	}
	for i, t := range rep {
		owner := t.Owner
		if owner == "" {
			owner = "no owner"
		}
		fmt.Fprintf(&b, "\n%d. %s (%s): asked %d×, %d open", i+1, strings.Join(t.Concepts, ", "), owner, t.Asked, t.Open)
		if t.Resolved > 0 {
			fmt.Fprintf(&b, ", %d resolved by a change", t.Resolved)
		}
		for j, q := range t.Questions {
			if j == 2 {
				break
			}
			fmt.Fprintf(&b, "\n   “%s”", q)
		}
		if len(t.Nearest) > 0 {
			fmt.Fprintf(&b, "\n   nearest: %s", t.Nearest[0].Title)
		}
	}
	b.WriteString("\n\nQuestions asked in DMs, private channels or privately are not here unless their askers shared them. `cita gaps` lists everything.")
	return b.String()
}
