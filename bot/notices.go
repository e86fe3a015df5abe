package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/citahq/cita/rag"
)

// Kinds of SourceChange.
const (
	SourceUpdated = "updated"
	SourceDeleted = "deleted"
)

// SourceChange is one document, cited by an answer in a thread, that a sync pass changed or
// deleted.
type SourceChange struct {
	DocumentID int64
	Kind       string    // SourceUpdated or SourceDeleted
	At         time.Time // the source's modification time, or when the document was deleted
	// Title is the title the thread was shown when the answer cited the document; "" when the
	// notice must not name it: the thread's audience may no longer read the document (its
	// groups no longer overlap the answer's scope), or the answer was redacted meanwhile.
	Title string
	// Groups may read the document now (a deleted one: when it was cited). The poster names it
	// only when everyone who reads the thread now holds one of them (NamedFor): the answer's
	// scope says who could read it then, not who reads the thread now.
	Groups []string
}

// SourceNotice is the notice owed to one thread for one sync pass.
type SourceNotice struct {
	RunID        int64
	Conversation ConversationKey
	Lang         string // the language of the thread's latest citing answer
	// Asker asked the thread's latest citing answer: a direct message's reader.
	Asker   string
	Changes []SourceChange
}

// NamedFor returns n with a change's title kept only when every one of readers, the scopes of
// whoever reads the thread now, may read its document (holds one of its Groups). With no
// readers (they could not be resolved), nothing is named: a notice is never withdrawn, so it
// names a document only to an audience known now.
func (n SourceNotice) NamedFor(readers []rag.Scope) SourceNotice {
	n.Changes = slices.Clone(n.Changes)
	for i, c := range n.Changes {
		if c.Title != "" && (len(readers) == 0 || !allMayRead(readers, c.Groups)) {
			n.Changes[i].Title = ""
		}
	}
	return n
}

// allMayRead reports whether every one of readers holds one of groups.
func allMayRead(readers []rag.Scope, groups []string) bool {
	for _, r := range readers {
		if !slices.ContainsFunc(groups, r.Contains) {
			return false
		}
	}
	return true
}

// NoticeStore finds and claims the notices owed after sync passes; bot/pgbot implements it.
type NoticeStore interface {
	// ClaimSourceNotices takes every change the sync passes recorded and no notifier took yet,
	// and returns the notices owed for them on the given platforms: one per thread and pass, for
	// threads where an answer shown to everyone (not ephemeral, not withdrawn, not an abstention)
	// cited an older version of a changed document, or a deleted one, and no notice reported that
	// document since. Each notice returned is claimed: no other call returns it again.
	ClaimSourceNotices(ctx context.Context, platforms []string) ([]SourceNotice, error)
	// SourceNoticeDone records the outcome of posting a claimed notice (err nil: posted).
	SourceNoticeDone(ctx context.Context, n SourceNotice, postErr error) error
}

// NoticePoster posts a notice in a conversation of one platform: in its thread, or in the
// channel when the conversation has no thread, with the text of SourceNoticeText and the
// platform's own quoting of titles. Implemented by the Slack and Discord adapters.
type NoticePoster interface {
	PostNotice(ctx context.Context, conv ConversationKey, notice SourceNotice) error
}

// Notifier posts the notices owed after sync passes through each platform's poster. Construct
// it with NewNotifier.
type Notifier struct {
	store   NoticeStore
	posters map[string]NoticePoster
	logger  *slog.Logger
}

// NewNotifier returns a notifier posting with posters, keyed by platform ("slack", "discord");
// a platform without a poster (its adapter off, or its notices turned off) gets no notice.
func NewNotifier(store NoticeStore, posters map[string]NoticePoster, logger *slog.Logger) *Notifier {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Notifier{store: store, posters: posters, logger: logger}
}

// Notify claims the notices owed and posts each one; it returns how many were posted, and an
// error when they could not be claimed. A notice that fails to post is logged and recorded with
// its error, and not retried: a notice is posted at most once.
func (n *Notifier) Notify(ctx context.Context) (int, error) {
	if len(n.posters) == 0 {
		return 0, nil
	}
	platforms := make([]string, 0, len(n.posters))
	for p := range n.posters {
		platforms = append(platforms, p)
	}
	slices.Sort(platforms)
	notices, err := n.store.ClaimSourceNotices(ctx, platforms)
	if err != nil {
		return 0, fmt.Errorf("claim source notices: %w", err)
	}
	posted := 0
	for _, notice := range notices {
		attrs := []any{slog.String("platform", notice.Conversation.Platform), slog.String("channel_id", notice.Conversation.Channel),
			slog.String("thread", notice.Conversation.Thread), slog.Int64("run_id", notice.RunID), slog.Int("documents", len(notice.Changes))}
		poster, ok := n.posters[notice.Conversation.Platform]
		var postErr error
		if !ok {
			postErr = errors.New("no poster for the platform")
		} else {
			postErr = poster.PostNotice(ctx, notice.Conversation, notice)
		}
		if postErr != nil {
			n.logger.ErrorContext(ctx, "post source-change notice", append(attrs, slog.Any("error", postErr))...)
		} else {
			posted++
			n.logger.InfoContext(ctx, "posted source-change notice", attrs...)
		}
		if err := n.store.SourceNoticeDone(ctx, notice, postErr); err != nil {
			n.logger.ErrorContext(ctx, "record source-change notice", append(attrs, slog.Any("error", err))...)
		}
	}
	return posted, nil
}

// noticeWords are the sentences of a notice, per language.
var noticeWords = map[string]struct {
	oneNamed, oneUnnamed, many, manyUnnamed, item, others, ask string
	kinds                                                      map[string]string
	date                                                       func(time.Time) string
}{
	"en": {
		oneNamed:    "The document I cited, %s, was %s on %s; ask again for the current answer.",
		oneUnnamed:  "A document I cited in this thread was %s on %s; ask again for the current answer.",
		many:        "Documents I cited in this thread changed: %s. Ask again for the current answer.",
		manyUnnamed: "%d documents I cited in this thread changed; ask again for the current answer.",
		item:        "%s (%s on %s)",
		others:      "%d more",
		kinds:       map[string]string{SourceUpdated: "updated", SourceDeleted: "deleted"},
		date:        func(t time.Time) string { return t.UTC().Format("2 January 2006") },
	},
	"es": {
		oneNamed:    "El documento que cité, %s, se %s el %s; vuelve a preguntar para tener la respuesta actual.",
		oneUnnamed:  "Un documento que cité en este hilo se %s el %s; vuelve a preguntar para tener la respuesta actual.",
		many:        "Cambiaron documentos que cité en este hilo: %s. Vuelve a preguntar para tener la respuesta actual.",
		manyUnnamed: "Cambiaron %d documentos que cité en este hilo; vuelve a preguntar para tener la respuesta actual.",
		item:        "%s (se %s el %s)",
		others:      "%d más",
		kinds:       map[string]string{SourceUpdated: "actualizó", SourceDeleted: "eliminó"},
		date:        spanishDate,
	},
}

var spanishMonths = []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"}

func spanishDate(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%d de %s de %d", t.Day(), spanishMonths[t.Month()-1], t.Year())
}

// SourceNoticeText returns the notice's text in its language ("en" when unknown): which cited
// documents changed, how and when, and to ask again. Only documents with a Title are named,
// each cut to 200 (in the platform's measure) by cut, then escaped by the platform's escape,
// between quotes; the others are counted.
func SourceNoticeText(n SourceNotice, escape func(string) string, cut func(s string, n int) string) string {
	quote := func(title string) string { return "“" + escape(cut(title, 200)) + "”" }
	w, ok := noticeWords[n.Lang]
	if !ok {
		w = noticeWords["en"]
	}
	if len(n.Changes) == 1 {
		c := n.Changes[0]
		if c.Title == "" {
			return fmt.Sprintf(w.oneUnnamed, w.kinds[c.Kind], w.date(c.At))
		}
		return fmt.Sprintf(w.oneNamed, quote(c.Title), w.kinds[c.Kind], w.date(c.At))
	}
	var items []string
	unnamed := 0
	for _, c := range n.Changes {
		if c.Title == "" {
			unnamed++
			continue
		}
		items = append(items, fmt.Sprintf(w.item, quote(c.Title), w.kinds[c.Kind], w.date(c.At)))
	}
	if len(items) == 0 {
		return fmt.Sprintf(w.manyUnnamed, unnamed)
	}
	if unnamed > 0 {
		items = append(items, fmt.Sprintf(w.others, unnamed))
	}
	return fmt.Sprintf(w.many, strings.Join(items, "; "))
}
