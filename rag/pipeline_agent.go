package rag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// answerAgent answers ans.StandaloneQuery with the agent, filling in ans. It reports false (and
// no error) when the agent fell back, so the caller answers with a single search; the reason is
// kept in ans.AgentFallback.
func (p *Pipeline) answerAgent(ctx context.Context, scope Scope, ans *Answer, onDelta func(string)) (bool, error) {
	start := time.Now()
	actx, cancel, timedOut := p.boundedModelContext(ctx, p.opts.AgentSteps+1)
	res, err := p.opts.Agent.Run(actx, AgentRequest{Question: ans.StandaloneQuery, Lang: ans.Lang, Scope: scope})
	cancel()
	ans.Timings["agent"] = time.Since(start)
	var fb *AgentFallbackError
	switch {
	case err != nil && timedOut():
		// The model stopped answering: one search, composed offline, labelled.
		ans.ModelTimedOut = true
		p.logger.WarnContext(ctx, "chat model timed out in agent mode; answering from one search offline", slog.Duration("timeout", p.opts.ModelTimeout))
		return false, nil
	case errors.As(err, &fb):
		ans.AgentFallback = fb.Reason
		p.logger.InfoContext(ctx, "agent fell back to a single search", slog.String("reason", fb.Reason))
		return false, nil
	case err != nil:
		return true, fmt.Errorf("agent: %w", err)
	}
	ans.Steps, ans.Usage = res.Steps, res.Usage
	hits := make([]Hit, len(res.Sources))
	for i, s := range res.Sources {
		hits[i] = s.Hit
	}
	ans.Search = &SearchResult{Hits: hits}
	// Every tool result reached the model, cited or not.
	if err := ans.consult(ctx, hits); err != nil {
		return true, err
	}
	if len(res.Sources) == 0 {
		abstain(ans, "no_results", "", onDelta)
		return true, nil
	}
	// The same guard as one search with a model: the lexical score over everything the tools
	// showed skips the hopeless cases, and the model's own "the sources do not say" abstains.
	owner := res.Sources[0].Owner
	read := Support(ComposeRequest{Question: ans.StandaloneQuery, Lang: ans.Lang, Sources: res.Sources})
	ans.Threshold = min(p.opts.MinEvidence, PreFilterEvidence)
	if read.Score < ans.Threshold {
		ans.Evidence, ans.Missing, ans.MissingShare = read.Score, read.Missing, read.MissingShare
		abstain(ans, "weak_evidence", owner, onDelta)
		return true, nil
	}
	if onDelta != nil {
		onDelta(res.Text)
	}
	if ModelAbstained(res.Text) {
		abstain(ans, "model_abstained", owner, nil)
		return true, nil
	}
	text, cited, invalid := VerifyCitations(res.Text, res.Sources)
	if len(invalid) > 0 {
		ans.AbstainReason = fmt.Sprintf("removed citations to unknown sources %v", invalid)
	}
	if len(cited) == 0 {
		// A reply that cites nothing real: one search answers instead, with its own guard.
		ans.AgentFallback = "the agent's reply cited no source it read"
		p.logger.InfoContext(ctx, "agent reply cited no real source; answering with a single search")
		return false, nil
	}
	support := Support(ComposeRequest{Question: ans.StandaloneQuery, Lang: ans.Lang, Sources: cited})
	ans.Evidence, ans.Missing, ans.MissingShare = support.Score, support.Missing, support.MissingShare
	ans.Text, ans.Sources = text, cited
	return true, nil
}
