package validityset_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/internal/validityset"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/sync/indexer"
	"github.com/citahq/cita/sync/source"
	"github.com/citahq/cita/sync/syncrun"
	"github.com/citahq/cita/sync/syncrun/synctest"
)

// TestValiditySet indexes testdata/validity with its metadata (front matter, a validity sidecar,
// the rule "archive/**" is superseded) and asks every question: no answer may cite a document
// that is no longer current as if it were. The same corpus indexed without validity metadata
// shows what the metadata prevents; the test logs both figures.
func TestValiditySet(t *testing.T) {
	t.Parallel()
	questions, err := validityset.Questions()
	if err != nil {
		t.Fatal(err)
	}
	with := indexCorpus(t, false)
	notCurrent := notCurrentDocs(t, with)
	if len(notCurrent) != 5 {
		t.Fatalf("documents not current: %v, want the 2023 and 2024 travel policies, the 2022 telework policy, the OpenVPN page and the 2024 price list", notCurrent)
	}
	without := indexCorpus(t, true)

	count := func(ix *synctest.Index, label string) (asCurrent, unexpected, abstained int) {
		p := rag.NewPipeline(ix.Search, rag.Extractive{}, nil, rag.PipelineOptions{Logger: slog.New(slog.DiscardHandler)})
		for _, q := range questions {
			ans, err := p.Answer(context.Background(), rag.Question{Text: q.Question, Scope: rag.MustScope("everyone")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			v := validityset.Check(q, ans, notCurrent)
			if testing.Verbose() && label == "with validity" {
				t.Logf("%s: %q:\n%s", label, q.Question, ans.Text)
			}
			if len(v.CitedAsCurrent) > 0 {
				asCurrent++
				t.Logf("%s: %q cites %v as current:\n%s", label, q.Question, v.CitedAsCurrent, ans.Text)
			}
			if len(v.Unexpected) > 0 {
				unexpected++
			}
			if v.Abstained {
				abstained++
			}
		}
		return asCurrent, unexpected, abstained
	}
	bad, unexpected, abstained := count(with, "with validity")
	badWithout, _, _ := count(without, "without validity")
	t.Logf("validity set: %d questions; with validity metadata %d answers cite a no-longer-current document as current (%d cite a document outside the expected ones, %d abstain); without it, %d do",
		len(questions), bad, unexpected, abstained, badWithout)
	if bad != 0 {
		t.Errorf("%d answers cite a document that is no longer current as current; want 0", bad)
	}
	if badWithout == 0 {
		t.Error("without validity metadata no answer cites a superseded document: the set no longer tests anything")
	}
	if abstained > 2 {
		t.Errorf("%d of %d answers abstain: the set's questions should be answerable", abstained, len(questions))
	}
}

// indexCorpus indexes the corpus in a fresh index, with its validity metadata or ignoring it.
func indexCorpus(t *testing.T, ignoreValidity bool) *synctest.Index {
	t.Helper()
	ix := synctest.New(t)
	logger := slog.New(slog.DiscardHandler)
	f, err := source.NewFolder(config.SourceConfig{Name: "validity", Type: "folder",
		Validity: config.ValidityRules{Rules: []config.ValidityRule{{Match: "archive/**", Superseded: true}}},
		Folder:   config.FolderSource{Path: validityset.Corpus(), Sidecars: true}}, logger)
	if err != nil {
		t.Fatal(err)
	}
	runner := syncrun.New(ix.Store.Pool(), ix.Store, ix.Embedder, indexer.Options{IgnoreValidity: ignoreValidity}, logger)
	res, err := runner.Run(context.Background(), syncrun.Source{Name: "validity", Connector: f}, syncrun.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Failed > 0 || res.Run.Added != 10 {
		t.Fatalf("indexing the validity corpus: %+v %v", res.Run, res.Failures)
	}
	return ix
}

// notCurrentDocs returns the documents the index holds as not current now.
func notCurrentDocs(t *testing.T, ix *synctest.Index) map[string]bool {
	t.Helper()
	rows, err := ix.Store.Pool().Query(context.Background(), `SELECT external_id FROM documents
		WHERE NOT cita_validity_window(valid_from, valid_until, superseded_on) @> now()`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out[p] = true
	}
	return out
}
