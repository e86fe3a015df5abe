package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/citahq/cita/internal/syncbuf"
)

// TestCalibrateMeasuresTheGuardOnTheIndexedDocuments: probes are built from the documents the
// groups may read (never from others), answered with the guard off, and the report has a row
// per threshold and a suggestion within the budget.
func TestCalibrateMeasuresTheGuardOnTheIndexedDocuments(t *testing.T) {
	clearEnv(t)
	cs := indexedSchema(t,
		testDoc{"travel.md", "Travel policy", "en", []string{"everyone"}, "Domestic trips pay a daily allowance for meals, taxis and small expenses of 38 euros. International trips pay 60 euros."},
		testDoc{"laptops.md", "Laptops", "en", []string{"everyone"}, "Engineers receive replacement notebooks every three years through the procurement portal, with a docking station."},
		testDoc{"parking.md", "Parking", "en", []string{"everyone"}, "Visitors park underground beside the loading bay after registering their plate at reception."},
		testDoc{"salaries.md", "Salary bands", "en", []string{"hr"}, "Band seven carries a confidential retention premium negotiated by the compensation committee annually."})
	cfg := writeConfig(t, fmt.Sprintf("database_url: %q\n", cs))
	var stdout, stderr syncbuf.Buffer
	if code := run(context.Background(), []string{"--config", cfg, "calibrate", "--passages", "10", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("calibrate exited %d: %s", code, stderr.String())
	}
	var rep calibrationReport
	if err := json.Unmarshal([]byte(stdout.String()), &rep); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, stdout.String())
	}
	if rep.Passages != 3 || rep.Answerable != 3 || rep.Found == 0 || len(rep.Rows) != 79 || rep.InEffect != 0.20 {
		t.Fatalf("report %+v: want 3 passages (the hr one is not the groups'), 3 answerable probes, 79 rows", rep)
	}
	if rep.Suggested < 0.02 || rep.Suggested > 0.80 || rep.SuggestedRow == nil || rep.SuggestedRow.FalseRefusals > rep.Budget {
		t.Errorf("suggested %.2f (%+v) is not a threshold within the budget", rep.Suggested, rep.SuggestedRow)
	}
	if strings.Contains(stdout.String(), "retention premium") || strings.Contains(stdout.String(), "compensation") {
		t.Error("the report names words of a document the groups may not read")
	}
	var out2, err2 syncbuf.Buffer
	if code := run(context.Background(), []string{"--config", cfg, "calibrate", "--budget", "1.5"}, &out2, &err2); code == 0 || !strings.Contains(err2.String(), "--budget") {
		t.Errorf("a budget of 1.5 exited %d: %s", code, err2.String())
	}
}
