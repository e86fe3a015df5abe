package bot

import (
	"context"
	"sync"

	"github.com/citahq/cita/rag"
)

// answerRecorder records one answer before any of it is shown: a reservation (Store.ReserveAnswer)
// when the first passages reach it or its first words are about to stream, and every later
// passage as it reaches it (Store.AddConsulted). A failure is kept: nothing more of the answer
// is shown, and the asker gets ReasonNotRecorded.
type answerRecorder struct {
	store Store
	in    Incoming
	lang  string

	mu        sync.Mutex
	id        int64
	consulted []SourceRef
	err       error
}

// consult is rag.Question.Consulted: hits are recorded before they reach the answer.
func (r *answerRecorder) consult(ctx context.Context, hits []rag.Hit) error {
	refs := make([]SourceRef, len(hits))
	for i, h := range hits {
		refs[i] = sourceRef(0, h)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.consulted = append(r.consulted, refs...)
	return r.record(ctx, refs)
}

// record reserves the answer, or adds refs to its reservation. r.mu is held.
func (r *answerRecorder) record(ctx context.Context, refs []SourceRef) error {
	if r.err != nil {
		return r.err
	}
	if r.id != 0 {
		if len(refs) > 0 {
			r.err = r.store.AddConsulted(ctx, r.id, refs)
		}
		return r.err
	}
	rec := &AnswerRecord{Conversation: r.in.Conversation, AskerID: r.in.UserID, Question: r.in.Text,
		ScopeGroups: r.in.Scope.Groups(), Lang: r.lang, ReplyRef: r.in.ReplyRef, Consulted: r.consulted,
		Public: r.in.Public && !r.in.Ephemeral}
	if r.in.Ephemeral || r.in.Audience == AudiencePrivate {
		rec.VisibleTo = r.in.UserID
	}
	rec.Ephemeral = r.in.Ephemeral
	r.id, r.err = r.store.ReserveAnswer(ctx, rec)
	if r.err == nil && r.in.Recorded != nil {
		r.in.Recorded(r.id)
	}
	return r.err
}

// deltas wraps onDelta so that no text streams before the answer is recorded; nil stays nil.
func (r *answerRecorder) deltas(ctx context.Context, onDelta func(string)) func(string) {
	if onDelta == nil {
		return nil
	}
	return func(d string) {
		r.mu.Lock()
		err := r.record(ctx, nil)
		r.mu.Unlock()
		if err == nil {
			onDelta(d)
		}
	}
}

// result returns the reservation's id (0 when none) and what reached the answer, or the error
// that stopped recording it.
func (r *answerRecorder) result() (int64, []SourceRef, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.id, r.consulted, r.err
}
