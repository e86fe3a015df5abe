package leakcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/internal/fakeopenai"
	"github.com/citahq/cita/mcpserver"
	"github.com/citahq/cita/mcpserver/pgtokens"
	"github.com/citahq/cita/rag"
)

// The MCP paths.
const (
	pathMCPSearch   = "mcp search"
	pathMCPDocument = "mcp get_document"
	pathMCPAsk      = "mcp ask"
	pathMCPAgent    = "agent steps via mcp ask"
	pathAgentCLI    = "agent steps via cli ask"
)

// directory is the organisation's directory as cita's identity groups see it: the restricted
// groups a person's address belongs to now (bot.Directory).
type directory struct{ org *org }

func (d directory) GroupsOf(_ context.Context, email string) ([]string, error) {
	d.org.mu.Lock()
	defer d.org.mu.Unlock()
	for _, p := range d.org.people {
		if p.email == email {
			return sortedKeys(p.groups), nil
		}
	}
	return nil, nil
}

// mcpSide is an MCP endpoint per replica (the first answers ask in one shot, the second in agent
// mode with the prying model), personal tokens in the database, and an MCP client session per
// person and replica, as an assistant keeps one.
type mcpSide struct {
	org     *org
	oracle  *oracle
	tokens  *pgtokens.Store
	servers []*httptest.Server
	model   *fakeopenai.Server

	mu       sync.Mutex
	token    map[*person]string
	tokenID  map[*person]int64
	revoked  map[*person]string // a revoked token the person still holds
	sessions map[string]*mcp.ClientSession
}

func newMCPSide(ctx context.Context, o *org, or *oracle, c *corpus, reps []*replica, f faults, print func(io.Writer, *rag.Answer), logger *slog.Logger) (*mcpSide, CLIFunc, error) {
	m := &mcpSide{org: o, oracle: or, tokens: pgtokens.New(reps[0].pool), token: map[*person]string{}, tokenID: map[*person]int64{},
		revoked: map[*person]string{}, sessions: map[string]*mcp.ClientSession{}}
	model := &pryingModel{org: o, corpus: c, oracle: or}
	m.model = fakeopenai.Start(fakeopenai.WithReplyFunc(model.reply))
	access := &bot.AccessMap{Default: []string{everyone}, Directory: directory{org: o}, EmailGroups: true}
	var agentCLI CLIFunc
	for i, rep := range reps {
		var docs rag.DocumentReader = rep.index
		if f.documentsIgnoreScope {
			docs = anyDocument{rep.index, append([]string{everyone}, o.groups...)}
		}
		var answerer mcpserver.Answerer = rep.pipeline
		if i == 1 {
			p, err := agentPipeline(rep, docs, m.model, logger)
			if err != nil {
				m.close()
				return nil, nil, err
			}
			answerer = p
			agentCLI = pipelineCLI(p, print)
		}
		srv := mcpserver.New(mcpserver.Options{
			Searcher: rep.search, Documents: docs, Answerer: answerer, Tokens: pgtokens.New(rep.pool), Access: access, Logger: logger,
		})
		m.servers = append(m.servers, httptest.NewServer(srv.Handler()))
	}
	return m, agentCLI, nil
}

func (m *mcpSide) close() {
	m.mu.Lock()
	for _, s := range m.sessions {
		_ = s.Close()
	}
	m.mu.Unlock()
	for _, s := range m.servers {
		s.Close()
	}
	m.model.Close()
}

// anyDocument is a broken DocumentReader that reads every document whatever the scope.
type anyDocument struct {
	docs rag.DocumentReader
	all  []string
}

func (a anyDocument) DocumentSections(ctx context.Context, id int64, _ rag.Scope) ([]rag.Hit, error) {
	return a.docs.DocumentSections(ctx, id, rag.MustScope(a.all...))
}

// session returns p's session with a replica's endpoint, issuing a token when p has none.
func (m *mcpSide) session(ctx context.Context, p *person, replica int) (*mcp.ClientSession, error) {
	m.mu.Lock()
	key := fmt.Sprintf("%s/%d", p.slackID, replica)
	s, ok := m.sessions[key]
	tok := m.token[p]
	m.mu.Unlock()
	if ok {
		return s, nil
	}
	if tok == "" {
		t, rec, err := m.tokens.Create(ctx, p.email, nil, "leakcheck", time.Now().Add(24*time.Hour))
		if err != nil {
			return nil, err
		}
		tok = t
		m.mu.Lock()
		m.token[p], m.tokenID[p] = t, rec.ID
		m.mu.Unlock()
	}
	s, err := mcpserver.Dial(ctx, m.servers[replica].URL, tok)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.sessions[key] = s
	m.mu.Unlock()
	return s, nil
}

// revoke revokes a random person's token, as `cita tokens revoke` does: their next call must be
// refused, in words that name no document.
func (m *mcpSide) revoke(ctx context.Context, rng *rand.Rand) error {
	m.mu.Lock()
	var holders []*person
	for _, p := range m.org.people {
		if m.token[p] != "" {
			holders = append(holders, p)
		}
	}
	m.mu.Unlock()
	if len(holders) == 0 {
		return nil
	}
	p := holders[rng.IntN(len(holders))]
	m.mu.Lock()
	id, tok := m.tokenID[p], m.token[p]
	m.mu.Unlock()
	if _, err := m.tokens.Revoke(ctx, id); err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	m.mu.Lock()
	m.revoked[p] = tok
	delete(m.token, p)
	for r := range m.servers {
		key := fmt.Sprintf("%s/%d", p.slackID, r)
		if s := m.sessions[key]; s != nil {
			_ = s.Close()
			delete(m.sessions, key)
		}
	}
	m.mu.Unlock()
	return nil
}

// call runs one tool as p on a replica and checks everything p gets back, the error included.
// A person whose token was revoked first calls with the old token, which must be refused.
func (m *mcpSide) call(ctx context.Context, path string, replica int, p *person, tool string, args map[string]any) error {
	conversation := "mcp:" + p.slackID
	q, _ := args["question"].(string)
	if query, ok := args["query"].(string); ok {
		q = query
	}
	m.oracle.ask(conversation, q)
	m.mu.Lock()
	old, wasRevoked := m.revoked[p]
	delete(m.revoked, p)
	m.mu.Unlock()
	if wasRevoked {
		s, err := mcpserver.Dial(ctx, m.servers[replica].URL, old)
		if err == nil {
			res, cerr := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			_ = s.Close()
			if cerr == nil && !res.IsError {
				m.oracle.fail([]Leak{{Path: path + " (revoked token)", Where: conversation, Reader: p.describe(),
					Excerpt: "a call with a revoked token was answered"}})
			}
		} else {
			m.oracle.stranger(path+" (revoked token refusal)", conversation, err.Error())
		}
	}
	s, err := m.session(ctx, p, replica)
	if err != nil {
		m.oracle.private(path+" (error)", conversation, p, err.Error())
		return nil
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		m.oracle.private(path+" (error)", conversation, p, err.Error())
		return nil
	}
	body, _ := json.Marshal(res)
	m.oracle.private(path, conversation, p, string(body))
	return nil
}
