package slack

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/citahq/cita/bot"
)

// publishHome publishes user's App Home tab: their own recent questions and what became of
// them; for the owner of documents they may read (by their verified e-mail address), the gaps
// in those documents and their sources' sync health. What it shows is theirs, or readable by
// their own groups.
func (a *Adapter) publishHome(ctx context.Context, team, user string) {
	blocks, err := a.homeBlocks(ctx, team, user)
	if err != nil {
		a.logger.ErrorContext(ctx, "build slack app home", slog.String("user_id", user), slog.Any("error", err))
		blocks = []slack.Block{slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType,
			"I couldn't load this page. Open it again in a minute.", false, false), nil, nil)}
	}
	err = withRetry(ctx, func() error {
		_, err := a.api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user,
			View: slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}}})
		return err
	})
	if err != nil {
		a.logger.ErrorContext(ctx, "publish slack app home", slog.String("user_id", user), slog.Any("error", err))
	}
}

// maxHomeItems bounds each list of the home tab (Slack allows 100 blocks in all).
const maxHomeItems = 10

func (a *Adapter) homeBlocks(ctx context.Context, team, user string) ([]slack.Block, error) {
	home := a.opts.Home
	own, err := home.OwnQuestions(ctx, platform, team, user, maxHomeItems)
	if err != nil {
		return nil, err
	}
	blocks := []slack.Block{slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "Your recent questions", false, false))}
	if len(own) == 0 {
		blocks = append(blocks, mrkdwnSection("You haven't asked me anything yet. Mention me in a channel or write to me here."))
	}
	for _, q := range own {
		blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType,
			truncate(fmt.Sprintf("%s · *%s* · %s", q.At.Format("2006-01-02"), ownOutcome(q), escape(q.Question)), maxSectionChars), false, false)))
	}
	v, err := a.audienceVersions(ctx, "")
	if err != nil {
		return nil, err
	}
	p, err := a.person(ctx, v, user)
	if err != nil {
		return nil, err
	}
	if !p.identity.EmailVerified || p.identity.Email == "" || !p.full() {
		// A guest could not read every public channel: the gaps' questions are not theirs to see.
		return blocks, nil
	}
	roles, err := a.userGroups(ctx, v) // askerScope without reading the versions and the person again
	if err != nil {
		return nil, err
	}
	scope := a.scopeOf(p, roles)
	sources, err := home.OwnedSources(ctx, p.identity.Email, scope)
	if err != nil || len(sources) == 0 {
		return blocks, err
	}
	rep, err := home.GapReport(ctx, bot.GapQuery{Since: time.Now().AddDate(0, 0, -30), Reader: scope, Platform: platform, Workspace: team, Limit: 50})
	if err != nil {
		return nil, err
	}
	blocks = append(blocks, slack.NewDividerBlock(),
		slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "Gaps in your documents (30 days)", false, false)))
	mine := 0
	for _, t := range rep {
		if !ownsNear(t, p.identity.Email) || mine == maxHomeItems {
			continue
		}
		mine++
		line := fmt.Sprintf("*%s*: asked %d×, %d open", escape(strings.Join(t.Concepts, ", ")), t.Asked, t.Open)
		if t.Resolved > 0 {
			line += fmt.Sprintf(", %d answered since by a change", t.Resolved)
		}
		for i, q := range t.Questions {
			if i == 2 {
				break
			}
			line += "\n> " + escape(q)
		}
		if len(t.Nearest) > 0 {
			line += "\nnearest: " + escape(t.Nearest[0].Title)
		}
		blocks = append(blocks, mrkdwnSection(truncate(line, maxSectionChars)))
	}
	if mine == 0 {
		blocks = append(blocks, mrkdwnSection("Nothing asked in public channels or shared with you went unanswered near your documents."))
	}
	blocks = append(blocks, slack.NewHeaderBlock(slack.NewTextBlockObject(slack.PlainTextType, "Your sources", false, false)))
	for _, s := range sources {
		state := "never synced"
		switch {
		case s.Known && s.Error != "":
			state = fmt.Sprintf(":warning: last sync %s failed: %s", s.LastRun.Format("2006-01-02 15:04"), s.Error)
		case s.Known && !s.Complete:
			state = fmt.Sprintf(":warning: last sync %s did not finish", s.LastRun.Format("2006-01-02 15:04"))
		case s.Known:
			state = "synced " + s.LastRun.Format("2006-01-02 15:04")
		}
		blocks = append(blocks, slack.NewContextBlock("", slack.NewTextBlockObject(slack.MarkdownType,
			truncate(fmt.Sprintf("*%s*: %d of your documents · %s", escape(s.Source), s.Documents, escape(state)), maxSectionChars), false, false)))
	}
	return blocks, nil
}

// ownOutcome says what became of one of the reader's questions.
func ownOutcome(q bot.OwnQuestion) string {
	switch {
	case q.Withdrawn:
		return "withdrawn"
	case q.Resolved:
		return "answered later, after a document change"
	case q.Outcome == bot.OutcomeAbstained && q.Shared:
		return "not found; shared with the document owners"
	case q.Outcome == bot.OutcomeAbstained:
		return "not found"
	case q.Outcome == bot.OutcomeHedged && q.Shared:
		return "unsure; shared with the document owners"
	case q.Outcome == bot.OutcomeHedged:
		return "unsure"
	default:
		return "answered"
	}
}

func mrkdwnSection(text string) slack.Block {
	return slack.NewSectionBlock(slack.NewTextBlockObject(slack.MarkdownType, text, false, false), nil, nil)
}

// ownsNear reports whether email owns the topic or one of the documents near it: the owner
// names the address whole ("Facilities <hr@example.com>", not "thr@example.com").
func ownsNear(t bot.GapTopic, email string) bool {
	if namesAddress(t.Owner, email) {
		return true
	}
	for _, d := range t.Nearest {
		if namesAddress(d.Owner, email) {
			return true
		}
	}
	return false
}

// namesAddress reports whether owner holds email as a whole address, case-insensitively.
func namesAddress(owner, email string) bool {
	owner, email = strings.ToLower(owner), strings.ToLower(email)
	addressRune := func(r byte) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.IndexByte("._%+-", r) >= 0
	}
	for i := 0; email != ""; {
		j := strings.Index(owner[i:], email)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(email)
		if (start == 0 || !addressRune(owner[start-1])) && (end == len(owner) || !addressRune(owner[end]) || owner[end] == '.' && end+1 == len(owner)) {
			return true
		}
		i = start + 1
	}
	return false
}
