package rag

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// AssembleSources numbers hits strongest first, skipping a chunk whose document and section are
// already a source, until maxSources or the token budget is reached. It returns the sources and
// the chunk ids the budget dropped.
func AssembleSources(hits []Hit, maxSources, budgetTokens int) (sources []Source, dropped []int64) {
	seen := map[string]bool{}
	used := 0
	for _, h := range hits {
		key := fmt.Sprintf("%d/%s", h.DocumentID, h.Section)
		if seen[key] {
			continue
		}
		cost := approxTokens(h.Text())
		if len(sources) >= maxSources || (len(sources) > 0 && used+cost > budgetTokens) {
			dropped = append(dropped, h.ChunkID)
			continue
		}
		seen[key] = true
		used += cost
		sources = append(sources, Source{N: len(sources) + 1, Hit: h})
	}
	return sources, dropped
}

func approxTokens(s string) int { return len(strings.Fields(s))*4/3 + 1 }

var citationRef = regexp.MustCompile(`\[(\d{1,3})\]`)

// VerifyCitations removes [n] markers that point to no source, renumbers the cited sources 1..k
// in the order the text first cites them (the direct answer's source is [1]), and returns the new
// text, the cited sources and the invalid numbers it removed.
func VerifyCitations(text string, sources []Source) (string, []Source, []int) {
	byN := map[int]Source{}
	for _, s := range sources {
		byN[s.N] = s
	}
	var citedNs, invalid []int
	for _, m := range citationRef.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		if _, ok := byN[n]; ok {
			if !slices.Contains(citedNs, n) {
				citedNs = append(citedNs, n)
			}
		} else if !slices.Contains(invalid, n) {
			invalid = append(invalid, n)
		}
	}
	renumber := map[int]int{}
	cited := make([]Source, 0, len(citedNs))
	for i, n := range citedNs {
		renumber[n] = i + 1
		s := byN[n]
		s.N = i + 1
		cited = append(cited, s)
	}
	out := citationRef.ReplaceAllStringFunc(text, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		if nn, ok := renumber[n]; ok {
			return "[" + strconv.Itoa(nn) + "]"
		}
		return ""
	})
	out = strings.ReplaceAll(out, " .", ".")
	return strings.TrimSpace(out), cited, invalid
}
