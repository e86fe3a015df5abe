package leakcheck

import (
	"context"
	"fmt"
	"time"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Source-change notices (issue 29, third edition): now and then a sync pass changes a document
// and cita posts, in every thread whose shown answer cited an older version, a notice naming
// it. A notice is a new message, never withdrawn: it may name a document only if everyone who
// reads the thread now may read it (an answer withdrawn since must not have its sources named
// again). The oracle checks it against every reader at once (oracle.postNotice).
const (
	pathSlackNotice   = "slack source-change notice"
	pathDiscordNotice = "discord source-change notice"
	// sourceChangeOneIn: a churn round that changes a document, once in n.
	sourceChangeOneIn = 3
	// sourceNoticeMark is in every English source-change notice (bot.SourceNoticeText).
	sourceNoticeMark = "ask again for the current answer"
)

// sourceChange, after a round's membership changes were announced and its group changes heard,
// now and then (every round under the notice break) writes a new revision of one document of the
// corpus (every document under the break) as a sync pass would, records the change, and has
// one replica post the notices owed on both platforms.
func (r *run) sourceChange(ctx context.Context) error {
	docs := r.corpus.docs
	if !r.cfg.faults.noticesNameAll {
		if !r.dice.oneIn("source change", sourceChangeOneIn) {
			return nil
		}
		docs = []*doc{r.corpus.docs[r.dice.intN("changed document", len(r.corpus.docs))]}
	}
	i := r.dice.intN("notifier", len(r.reps))
	rep := r.reps[i]
	runID := r.sourceRuns.Add(1)
	for _, d := range docs {
		d.rev++
		version, err := r.corpus.write(ctx, rep.index, rep.emb, d)
		if err != nil {
			return fmt.Errorf("leakcheck: source change: %w", err)
		}
		// What syncrun records with its pass's history (source_changes).
		if _, err := rep.pool.Exec(ctx, `INSERT INTO source_changes (run_id, document_id, kind, doc_version, changed_at)
			VALUES ($1, $2, 'updated', $3, $4)`, runID, d.id, version, d.updatedAt()); err != nil {
			return fmt.Errorf("leakcheck: record source change: %w", err)
		}
	}
	var store bot.NoticeStore = rep.store
	if r.cfg.faults.noticesNameAll {
		store = namingNotices{NoticeStore: store, corpus: r.corpus, wide: r.org.wideScope()}
	}
	n := bot.NewNotifier(store, map[string]bot.NoticePoster{"slack": r.slack.adapters[i], "discord": r.discord.adapters[i]}, r.cfg.Logger)
	posted, err := n.Notify(ctx)
	if err != nil {
		return fmt.Errorf("leakcheck: post source-change notices: %w", err)
	}
	r.report.SourceChanges += len(docs)
	r.report.Notices += posted
	return nil
}

// namingNotices is the notice break: every changed document is given its title, and every
// group as the groups that may read it, so that neither the store's rule (the answer stands,
// its scope overlaps the document) nor the poster's (everyone who may read the notice holds
// one of them) keeps its title out.
type namingNotices struct {
	bot.NoticeStore
	corpus *corpus
	wide   rag.Scope
}

func (s namingNotices) ClaimSourceNotices(ctx context.Context, platforms []string) ([]bot.SourceNotice, error) {
	ns, err := s.NoticeStore.ClaimSourceNotices(ctx, platforms)
	for i := range ns {
		for j, c := range ns[i].Changes {
			for _, d := range s.corpus.docs {
				if d.id == c.DocumentID {
					ns[i].Changes[j].Title, ns[i].Changes[j].Groups = d.title, s.wide.Groups()
				}
			}
		}
	}
	return ns, err
}

// postNotice checks a source-change notice posted in conversation against everyone who reads it
// now: it names what it names at the moment it is posted, to everyone there, and is never
// withdrawn, so nobody is owed a withdrawal of it: a code a reader may not read is a leak.
func (or *oracle) postNotice(path, conversation, key, text string, readers func() []*person) {
	now := time.Now()
	or.postAsked(path, conversation, key, text, now, now, readers)
}
