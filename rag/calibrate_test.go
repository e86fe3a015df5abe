package rag

import (
	"strings"
	"testing"
)

func TestBuildProbesAskWhatAPassageStatesAndNearMissesSwapAForeignWord(t *testing.T) {
	t.Parallel()
	passages := []Hit{
		{DocumentID: 1, Title: "Travel", Section: "Per diem", Content: "Domestic trips pay a daily allowance for meals, taxis and small expenses of 38 euros."},
		{DocumentID: 2, Title: "Laptops", Section: "Refresh", Content: "Engineers receive replacement notebooks every three years through the procurement portal."},
		{DocumentID: 3, Title: "Parking", Section: "Visitors", Content: "Visitors park underground beside the loading bay after registering at reception."},
	}
	probes := BuildProbes(passages, 1)
	var answerable, near int
	for _, p := range probes {
		var own Hit
		for _, h := range passages {
			if h.DocumentID == p.DocumentID {
				own = h
			}
		}
		text := strings.ToLower(own.Title + " " + own.Section + " " + own.Content)
		if p.NearMiss {
			near++
			if p.Swapped == "" || strings.Contains(text, p.Swapped) || !strings.Contains(p.Question, p.Swapped) {
				t.Errorf("near miss %q swapped %q, which must be foreign to document %d", p.Question, p.Swapped, p.DocumentID)
			}
			continue
		}
		answerable++
		for _, w := range strings.Fields(p.Question) {
			if !strings.Contains(text, w) {
				t.Errorf("answerable probe %q: %q is not in its passage", p.Question, w)
			}
		}
	}
	if answerable != 3 || near == 0 {
		t.Fatalf("%d answerable and %d near-miss probes from 3 passages: %+v", answerable, near, probes)
	}
}

func TestCalibrateSuggestsTheHighestThresholdWithinBudget(t *testing.T) {
	t.Parallel()
	var results []ProbeResult
	for i := range 10 {
		results = append(results, ProbeResult{Probe: Probe{}, Found: true, Evidence: 0.30 + float64(i)*0.05}) // 0.30 .. 0.75
		results = append(results, ProbeResult{Probe: Probe{NearMiss: true}, Evidence: 0.10 + float64(i)*0.02})
	}
	results = append(results, ProbeResult{Evidence: 0.01}) // a retrieval miss: not counted
	rows, suggested := Calibrate(results, 0.10)
	if suggested != 0.35 {
		t.Errorf("suggested %.2f, want 0.35 (one answerable probe of ten under it)", suggested)
	}
	for _, r := range rows {
		if r.Threshold == 0.35 && (r.FalseRefusals != 0.1 || r.Declined != 1) {
			t.Errorf("at 0.35: %+v", r)
		}
	}
	if _, s := Calibrate(results, 0); s != 0.30 {
		t.Errorf("budget 0: suggested %.2f, want 0.30", s)
	}
}
