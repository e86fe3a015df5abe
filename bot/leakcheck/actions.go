package leakcheck

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/citahq/cita/rag"
)

// The paths a question or click takes.
const (
	pathSlackMention  = "slack mention"
	pathSlackFollowUp = "slack follow-up"
	pathSlackDM       = "slack direct message"
	pathSlackSlash    = "slack /cita"
	pathSlackExplain  = "slack how I answered"
	// pathSlackStaleExplain clicks "How I answered" on an answer already withdrawn, whose
	// message shows the notice without the button: a click from a client that has not
	// redrawn the message yet, or a forged one. Only a refusal is right, so it has no floor.
	pathSlackStaleExplain = "slack stale how I answered"
	pathCLI               = "cli ask"
)

// action is one question or click, planned ahead so that a seed replays the same plan.
type action struct {
	path    string
	replica int
	channel string
	p       *person
	text    string
	th      slackThread
	docID   int64
	dfinal  discordFinal
	lost    dmAnswer // pathSlackLostGroup: the answer whose group its asker lost
}

// weighted paths: how often each is planned.
var weights = []struct {
	path   string
	weight int
}{
	{pathSlackMention, 30}, {pathSlackFollowUp, 12}, {pathSlackDM, 10}, {pathSlackSlash, 8}, {pathSlackExplain, 8}, {pathSlackStaleExplain, 1},
	{pathDiscordAsk, 12}, {pathDiscordPrivate, 5}, {pathDiscordDM, 5}, {pathDiscordExplain, 5}, {pathDiscordOtherGuild, 1},
	{pathCLI, 5}, {pathAgentCLI, 3}, {pathMCPSearch, 5}, {pathMCPDocument, 4}, {pathMCPAsk, 4}, {pathMCPAgent, 3},
}

// plan returns up to n actions in distinct conversations, so each reply can be told apart.
func (r *run) plan(n int) []action {
	total := 0
	for _, w := range weights {
		total += w.weight
	}
	busy := map[string]bool{}
	var out []action
	// A path not tried yet goes first, so that a short run tries every path (a rare one, such
	// as the other guild's, could otherwise miss a 150-question run and leave it unproven).
	r.mu.Lock()
	var untried []string
	for _, w := range weights {
		if r.report.Paths[w.path] == 0 {
			untried = append(untried, w.path)
		}
	}
	r.mu.Unlock()
	for _, path := range untried {
		if a, ok := r.planOne(path); ok && len(out) < n && !busy[a.channel] {
			busy[a.channel] = true
			out = append(out, a)
		}
	}
	for tries := 0; len(out) < n && tries < n*20; tries++ {
		pick := r.rng.IntN(total)
		path := weights[0].path
		for _, w := range weights {
			if pick < w.weight {
				path = w.path
				break
			}
			pick -= w.weight
		}
		a, ok := r.planOne(path)
		if !ok || busy[a.channel] {
			continue
		}
		busy[a.channel] = true
		out = append(out, a)
	}
	return out
}

// planOne fills in an action of path: who, where and what. ok is false when the organisation
// has nowhere to take it now (a channel with no member, no answered thread yet).
func (r *run) planOne(path string) (action, bool) {
	a := action{path: path, replica: r.rng.IntN(len(r.reps)), text: r.corpus.question(r.rng)}
	switch path {
	case pathSlackMention, pathSlackSlash, pathSlackFollowUp, pathSlackExplain, pathSlackStaleExplain:
		c := r.org.channels[r.rng.IntN(len(r.org.channels))]
		a.channel = c.id
		var ok bool
		if path == pathSlackExplain || path == pathSlackStaleExplain {
			a.p, ok = r.slackReader(c.id)
		} else {
			a.p, ok = r.slackMember(c)
		}
		if !ok {
			return action{}, false
		}
		switch path {
		case pathSlackFollowUp:
			a.th, ok = r.slack.thread(r.rng, c.id)
		case pathSlackExplain, pathSlackStaleExplain:
			a.th, ok = r.slack.buttonThread(r.rng, c.id, path == pathSlackExplain)
		}
		if !ok {
			return action{}, false
		}
		if path != pathSlackMention && path != pathSlackSlash {
			a.text = r.corpus.followUp(r.rng)
		}
	case pathDiscordAsk, pathDiscordPrivate, pathDiscordExplain:
		c := r.org.dchans[r.rng.IntN(len(r.org.dchans))]
		a.channel = c.id
		var ok bool
		if a.p, ok = r.discordReader(c.id); !ok {
			return action{}, false
		}
		if path == pathDiscordExplain {
			if a.dfinal, ok = r.discord.answer(r.rng, c.id); !ok {
				return action{}, false
			}
		}
	case pathDiscordDM, pathDiscordOtherGuild:
		a.p = r.org.people[r.rng.IntN(len(r.org.people))]
		a.channel = "dm:" + a.p.discordID
	case pathSlackDM:
		a.p = r.org.people[r.rng.IntN(len(r.org.people))]
		a.channel = "D" + a.p.slackID[1:]
	case pathCLI, pathAgentCLI:
		a.p = r.org.people[r.rng.IntN(len(r.org.people))]
		a.channel = "cli:" + a.p.slackID
	case pathMCPSearch, pathMCPDocument, pathMCPAsk, pathMCPAgent:
		a.p = r.org.people[r.rng.IntN(len(r.org.people))]
		if a.p.guest {
			return action{}, false // MCP callers are members: a token's e-mail gets the default groups
		}
		a.channel = "mcp:" + a.p.slackID
		a.replica = 0
		if path == pathMCPAgent {
			a.replica = 1
		}
		if path == pathMCPDocument {
			a.docID = r.corpus.docs[r.rng.IntN(len(r.corpus.docs))].id
		}
	}
	return a, true
}

// slackMember returns a random member of channel c (who can write there).
func (r *run) slackMember(c *slackChannel) (*person, bool) {
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	var members []*person
	for _, p := range r.org.people {
		if c.members[p.slackID] {
			members = append(members, p)
		}
	}
	if len(members) == 0 {
		return nil, false
	}
	return members[r.rng.IntN(len(members))], true
}

// slackReader returns a random reader of channel now (who sees its buttons).
func (r *run) slackReader(channel string) (*person, bool) {
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	readers := r.org.slackReadersLocked(channel)
	if len(readers) == 0 {
		return nil, false
	}
	return readers[r.rng.IntN(len(readers))], true
}

// discordReader returns a random member who sees Discord channel now.
func (r *run) discordReader(channel string) (*person, bool) {
	r.org.mu.Lock()
	defer r.org.mu.Unlock()
	readers := r.org.discordReadersLocked(channel)
	if len(readers) == 0 {
		return nil, false
	}
	return readers[r.rng.IntN(len(readers))], true
}

// do takes one action and counts it.
func (r *run) do(ctx context.Context, a action) error {
	var answered bool
	var err error
	question := true
	s := r.slack
	switch a.path {
	case pathSlackMention:
		answered, err = s.mention(ctx, a.replica, a.channel, a.p, a.text)
	case pathSlackFollowUp:
		answered, err = s.followUp(ctx, a.replica, a.channel, a.th, a.p, a.text)
	case pathSlackDM:
		answered, err = s.dm(ctx, a.replica, a.p, a.text)
	case pathSlackSlash:
		answered, err = s.slash(ctx, a.replica, a.channel, a.p, a.text)
	case pathSlackExplain, pathSlackStaleExplain:
		question = false
		answered, err = s.explain(ctx, a.replica, a.channel, a.th, a.p, a.path)
	case pathSlackLostGroup:
		question = false // outside the planned questions, so that a seed plans as without it
		answered, err = s.lostGroup(ctx, a.replica, a.lost, a.text)
	case pathDiscordAsk, pathDiscordPrivate:
		answered, err = r.discord.ask(ctx, a.replica, a.channel, a.p, a.text, a.path == pathDiscordPrivate)
	case pathDiscordDM:
		answered, err = r.discord.dm(ctx, a.replica, a.p, a.text)
	case pathDiscordOtherGuild:
		answered, err = r.discord.otherGuild(ctx, a.replica, a.p, a.text)
	case pathDiscordExplain:
		question = false
		answered, err = r.discord.explain(ctx, a.replica, a.channel, a.dfinal, a.p)
	case pathCLI:
		answered, err = r.cli(ctx, a, r.cli1, a.text)
	case pathAgentCLI:
		r.oracle.ask("agent:"+a.p.slackID, a.text)
		answered, err = r.cli(ctx, a, r.agentCLI, agentQuestion(a.p, a.text))
	case pathMCPSearch:
		answered, err = true, r.mcp.call(ctx, a.path, a.replica, a.p, "search", map[string]any{"query": a.text, "k": 10})
	case pathMCPDocument:
		question = false
		answered, err = true, r.mcp.call(ctx, a.path, a.replica, a.p, "get_document", map[string]any{"document_id": a.docID})
	case pathMCPAsk:
		answered, err = true, r.mcp.call(ctx, a.path, a.replica, a.p, "ask", map[string]any{"question": a.text})
	case pathMCPAgent:
		r.oracle.ask("agent:"+a.p.slackID, a.text)
		answered, err = true, r.mcp.call(ctx, a.path, a.replica, a.p, "ask", map[string]any{"question": agentQuestion(a.p, a.text)})
	default:
		return fmt.Errorf("leakcheck: unknown path %q", a.path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", a.path, err)
	}
	conversation := a.channel
	if a.path == pathDiscordOtherGuild {
		conversation = "other:" + a.p.discordID
	}
	path := a.path
	if p := r.slack.fake.pathIn(conversation); p == a.path+joinedWhileAnswering {
		path = p // someone joined while its answer was prepared (slackarrivals.go)
	}
	r.count(path, question, answered, r.oracle.took(conversation))
	return nil
}

// cli asks as `cita ask --groups <the asker's groups>` would; what it prints is the asker's.
func (r *run) cli(ctx context.Context, a action, ask CLIFunc, question string) (bool, error) {
	r.org.mu.Lock()
	groups := sortedKeys(r.org.groupsOfLocked(a.p, true))
	r.org.mu.Unlock()
	if len(groups) == 0 {
		return true, nil // `cita ask` refuses no groups before it asks
	}
	r.oracle.ask(a.channel, a.text)
	out, err := ask(ctx, groups, question)
	if err != nil {
		out = "error: " + err.Error()
	}
	r.oracle.private(a.path, a.channel, a.p, out)
	return true, nil
}

// pipelineCLI asks p as `cita ask --groups` does and returns what print prints of the answer.
func pipelineCLI(p interface {
	Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error)
}, print func(w io.Writer, ans *rag.Answer)) CLIFunc {
	return func(ctx context.Context, groups []string, question string) (string, error) {
		scope, err := rag.NewScope(groups...)
		if err != nil {
			return "", err
		}
		ans, err := p.Answer(ctx, rag.Question{Text: question, Scope: scope}, nil)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		print(&b, ans)
		return b.String(), nil
	}
}

// printAnswer prints the answer, its sources with their paths, the standalone query and the
// passages searched, as `cita ask --explain` shows them.
func printAnswer(w io.Writer, ans *rag.Answer) {
	fmt.Fprintln(w, ans.Text)
	for _, s := range ans.Sources {
		fmt.Fprintf(w, "[%d] %s — %s %s\n", s.N, s.Label(), s.Path, s.URL)
	}
	fmt.Fprintf(w, "standalone query: %s\n", ans.StandaloneQuery)
	if ans.Search != nil {
		for _, h := range ans.Search.Hits {
			fmt.Fprintf(w, "  %s — %s\n", h.Heading, h.Path)
		}
		fmt.Fprintln(w, strings.Join(ans.Search.Trace.Terms, " "))
	}
}
