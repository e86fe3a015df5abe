package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag"
	"github.com/citahq/cita/rag/eval"
)

func init() {
	register("feedback", &command{
		summary: "export 👎-rated answers as an evaluation set",
		usage: `Usage: cita feedback export [--out DIR] [--since 720h|2026-11-01]

Writes every answer rated 👎 in Slack or Discord (since --since: a duration back from now, or a
date; default: all) as a handbook evaluation set, the layout ` + "`cita eval --answers`" + ` reads:

  DIR/questions.jsonl   one question per rated answer: id (fb-<answer id>), question, lang,
                        answerable (true), gold_files and gold_answer (empty: yours to fill),
                        and what was answered: standalone_query, answer, cited_sources,
                        cited_files (their paths in DIR/corpus), comments, down_votes, up_votes
  DIR/corpus/           the cited documents as they are indexed now, as Markdown, read with the
                        access of the audience the answer was given to

Then, for each question, write the right answer in gold_answer (and the files that state it in
gold_files, adding documents to DIR/corpus when the answer is elsewhere), or set answerable to
false when the documents do not answer it, and run ` + "`cita eval --answers DIR`" + `. The set
holds questions, answers and document text: keep it where those documents may be read. Answers
redacted since (their document deleted or no longer readable) are skipped and counted. DIR must
not hold a questions.jsonl yet (default: ./feedback-eval).

Flags:
`,
		run: runFeedback,
	})
}

func runFeedback(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "export" {
		return errUsage
	}
	fs := newFlags("feedback", e, commands["feedback"].usage)
	out := fs.String("out", "feedback-eval", "the folder to write questions.jsonl and corpus/ into")
	sinceFlag := fs.String("since", "", "only ratings since then: a duration back from now (720h) or a date (2026-11-01)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	since, err := parseSince(*sinceFlag, time.Now())
	if err != nil {
		return err
	}
	qpath := filepath.Join(*out, "questions.jsonl")
	if _, err := os.Stat(qpath); err == nil {
		return fmt.Errorf("%s exists: choose another --out, or move it away first (it may hold gold answers already written)", qpath)
	}
	a, err := openApp(ctx, e, "")
	if err != nil {
		return err
	}
	defer a.Close()
	rated, redacted, err := pgbot.New(a.pool).RatedDown(ctx, since)
	if err != nil {
		return err
	}
	set, err := exportFeedback(ctx, a.store, rated)
	if err != nil {
		return err
	}
	if err := set.write(*out); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d 👎-rated answers written to %s (%d documents in %s)", len(set.questions), qpath, len(set.files), filepath.Join(*out, "corpus"))
	if redacted > 0 {
		fmt.Fprintf(e.stdout, "; %d redacted answers skipped", redacted)
	}
	if set.unreadable > 0 {
		fmt.Fprintf(e.stdout, "; %d cited documents no longer indexed or readable", set.unreadable)
	}
	fmt.Fprintf(e.stdout, "\nNext: fill gold_answer (or set answerable to false) for each question, then run `cita eval --answers %s`.\n", *out)
	return nil
}

// parseSince reads --since: empty (everything), a duration back from now, or a date.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give a duration (720h) or a date (2026-11-01)", s)
}

// feedbackQuestion is one line of the exported questions.jsonl: the fields rag/eval reads, then
// what the rated answer was.
type feedbackQuestion struct {
	eval.AnswerQuestion

	StandaloneQuery string           `json:"standalone_query,omitempty"`
	Answer          string           `json:"answer"`
	Abstained       bool             `json:"abstained,omitempty"`
	CitedSources    []feedbackSource `json:"cited_sources"`
	CitedFiles      []string         `json:"cited_files"`
	Comments        []string         `json:"comments"`
	DownVotes       int              `json:"down_votes"`
	UpVotes         int              `json:"up_votes"`
	Platform        string           `json:"platform"`
	AskedAt         time.Time        `json:"asked_at"`
	RatedAt         time.Time        `json:"rated_at"`
}

// feedbackSource is a cited source as the rated answer showed it.
type feedbackSource struct {
	N       int    `json:"n"`
	Title   string `json:"title"`
	Section string `json:"section,omitempty"`
	Path    string `json:"path"`
	URL     string `json:"url,omitempty"`
	// File is the document's path under corpus/ ("" when it is no longer indexed or readable).
	File string `json:"file,omitempty"`
}

// feedbackSet is the export before it is written.
type feedbackSet struct {
	questions  []feedbackQuestion
	files      map[string]string // corpus path -> Markdown
	unreadable int
}

// documentReader reads a document's chunks within a scope; *pgstore.Store satisfies it.
type documentReader interface {
	DocumentSections(ctx context.Context, id int64, scope rag.Scope) ([]rag.Hit, error)
}

// exportFeedback builds the set: a question per rated answer, and each cited document read with
// the answer's scope (so nothing the answer's audience could not read is written).
func exportFeedback(ctx context.Context, docs documentReader, rated []pgbot.RatedDown) (*feedbackSet, error) {
	set := &feedbackSet{files: map[string]string{}}
	fileOf := map[int64]string{} // document id -> corpus path, for documents read already
	for _, r := range rated {
		q := feedbackQuestion{
			AnswerQuestion: eval.AnswerQuestion{
				ID: fmt.Sprintf("fb-%d", r.AnswerID), Question: r.Question, Lang: firstOf(r.Lang, rag.AnswerLang(r.Question)), Answerable: true,
				GoldFiles: []string{}, AltAnswers: []string{},
			},
			StandaloneQuery: r.StandaloneQuery, Answer: r.Answer, Abstained: r.Abstained,
			CitedSources: []feedbackSource{}, CitedFiles: []string{}, Comments: r.Comments, DownVotes: r.Down, UpVotes: r.Up,
			Platform: r.Platform, AskedAt: r.AskedAt, RatedAt: r.RatedAt,
		}
		if q.Comments == nil {
			q.Comments = []string{}
		}
		scope, scopeErr := rag.NewScope(r.ScopeGroups...)
		for _, s := range r.Sources {
			src := feedbackSource{N: s.N, Title: s.Title, Section: s.Section, Path: s.Path, URL: s.URL}
			file, read := fileOf[s.DocumentID]
			if !read && scopeErr == nil {
				hits, err := docs.DocumentSections(ctx, s.DocumentID, scope)
				switch {
				case errors.Is(err, rag.ErrDocumentNotFound):
					set.unreadable++
				case err != nil:
					return nil, err
				default:
					file = set.addFile(s.Path, s.DocumentID, hits)
				}
				fileOf[s.DocumentID] = file
			}
			src.File = file
			q.CitedSources = append(q.CitedSources, src)
			if file != "" && !contains(q.CitedFiles, file) {
				q.CitedFiles = append(q.CitedFiles, file)
			}
		}
		set.questions = append(set.questions, q)
	}
	return set, nil
}

// addFile adds a document to the corpus as Markdown under a path that `cita eval --answers`
// cites it by: its external id when that is a local path ending in .md or .txt, with ".md"
// appended otherwise (the text is extracted text, not the original format); another local name
// when the id is not a safe relative path or is taken.
func (s *feedbackSet) addFile(externalID string, id int64, hits []rag.Hit) string {
	path := filepath.ToSlash(filepath.Clean(externalID))
	if !filepath.IsLocal(path) || strings.HasPrefix(path, ".") {
		path = fmt.Sprintf("document-%d", id)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".md" && ext != ".txt" && ext != ".markdown" {
		path += ".md"
	}
	if _, taken := s.files[path]; taken {
		path = strings.TrimSuffix(path, filepath.Ext(path)) + fmt.Sprintf("-%d.md", id)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", hits[0].Title)
	section := ""
	for _, h := range hits {
		if h.Section != "" && h.Section != section {
			section = h.Section
			fmt.Fprintf(&b, "\n## %s\n", section)
		}
		b.WriteString("\n" + strings.TrimSpace(h.Content) + "\n")
	}
	s.files[path] = b.String()
	return path
}

// write writes DIR/questions.jsonl and DIR/corpus/.
func (s *feedbackSet) write(dir string) error {
	for path, text := range s.files {
		p := filepath.Join(dir, "corpus", filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			return fmt.Errorf("write the corpus: %w", err)
		}
		if err := os.WriteFile(p, []byte(text), 0o640); err != nil {
			return fmt.Errorf("write the corpus: %w", err)
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, q := range s.questions {
		if err := enc.Encode(q); err != nil {
			return fmt.Errorf("encode %s: %w", q.ID, err)
		}
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("write questions: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "questions.jsonl"), []byte(b.String()), 0o640); err != nil {
		return fmt.Errorf("write questions: %w", err)
	}
	return nil
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
