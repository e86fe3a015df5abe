package leakcheck

import (
	"fmt"
	"slices"
)

// allowedFloor is, per path, the least share of its tries that must show someone a code they
// and everyone else who saw it may read. A run whose answers were all refusals, or that never
// reached anyone, shows none and proves nothing: it fails. The floors sit well under the rates
// of the runs measured (seeds 3 and 12, 300 and 2,000 questions), so that luck does not fail a run. A path
// missing from the map has no floor: the other guild's refusal must show nothing.
var allowedFloor = map[string]float64{
	// Slack channels host guests who join while replies are written: fewer answers there carry
	// codes every reader may read.
	pathSlackMention: 0.15, pathSlackFollowUp: 0.15, pathSlackDM: 0.3, pathSlackSlash: 0.3, pathSlackExplain: 0.15,
	pathDiscordAsk: 0.3, pathDiscordPrivate: 0.3, pathDiscordDM: 0.3, pathDiscordExplain: 0.3,
	pathCLI: 0.3, pathAgentCLI: 0.3, pathMCPSearch: 0.3, pathMCPDocument: 0.2, pathMCPAsk: 0.3, pathMCPAgent: 0.3,
}

// needsMaterial are the paths a run can try only once it made what they act on (a stale click
// needs a withdrawn answer, a click on "How I answered" an answer that still shows the button):
// a run shorter than materialBy questions may leave them untried.
var needsMaterial = map[string]bool{pathSlackStaleExplain: true, pathSlackExplain: true}

// materialBy is how many questions a run asks before every path must have been tried: a few
// hundred withdrawals happen in every thousand questions.
const materialBy = 1000

// floorTries is the least number of tries a path's own floor is judged on. A short run tries
// some paths a handful of times: mcp get_document reads a random document, about 45% of them
// readable by the caller, so 0 of 5 happens once in 20 runs by luck alone (cmd/cita's
// TestEvalLeaks, 150 questions, failed so). Under floorTries a path counts only in the pooled
// floor below, which a run of refusals still fails (it shows no allowed code anywhere).
const floorTries = 20

// floorExpected is the least number of allowed codes a path's floor must ask of its tries for
// the floor to be judged on its own: fewer, and luck decides. Slack mentions on seed 7 showed
// an allowed code on 8 of 45 tries in 150 questions, then on 4 of 51 once a path added to the
// plan moved which channels were asked (a 15% floor asks 7 of 51; most of that seed's
// channels hold a guest, whose readers share no group).
const floorExpected = 10

// Unproven returns why the run proves nothing, one reason a line: a path never tried, a path
// whose tries showed too few allowed codes (allowedFloor; judged per path from floorTries tries
// that its floor asks floorExpected allowed codes of, and over every floored path together
// always), or a question or click that got no reply.
// Empty means the run's "0 leaks" means something.
func (r *Report) Unproven() []string {
	var out []string
	var owed float64 // allowed tries the floors ask for, over every floored path
	pooled := 0
	for _, w := range weights {
		tries := r.Paths[w.path]
		if tries == 0 && (!needsMaterial[w.path] || r.Questions >= materialBy) {
			out = append(out, fmt.Sprintf("%s: never tried", w.path))
			continue
		}
		if tries == 0 {
			continue
		}
		floor, ok := allowedFloor[w.path]
		if !ok {
			continue
		}
		owed += floor * float64(tries)
		pooled += r.Allowed[w.path]
		if tries < floorTries || floor*float64(tries) < floorExpected {
			continue
		}
		if rate := float64(r.Allowed[w.path]) / float64(tries); rate < floor {
			out = append(out, fmt.Sprintf("%s: %d of %d tries (%.0f%%) showed an allowed code, want at least %.0f%%",
				w.path, r.Allowed[w.path], tries, 100*rate, 100*floor))
		}
	}
	if float64(pooled) < owed {
		out = append(out, fmt.Sprintf("all paths: %d tries showed an allowed code, the floors want at least %.0f", pooled, owed))
	}
	if r.Questions >= materialBy && r.ShownBy[pathSlackNotice] == 0 {
		out = append(out, fmt.Sprintf("%s: %d notices posted, none named a document to someone who may read it", pathSlackNotice, r.Notices))
	}
	for _, p := range sortedPaths(r.UnansweredBy) {
		out = append(out, fmt.Sprintf("%s: %d replies did not come (cita must never be silent)", p, r.UnansweredBy[p]))
	}
	return out
}

func sortedPaths(m map[string]int) []string {
	var out []string
	for k, n := range m {
		if n > 0 {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
