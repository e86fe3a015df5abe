package bottest

import (
	"context"
	"sync"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/rag"
)

// Recorder wraps an answerer and keeps the questions it was asked; it is safe for the
// adapters' goroutines.
type Recorder struct {
	Inner bot.Answerer

	mu    sync.Mutex
	asked []rag.Question
}

// Answer records q and answers it with Inner.
func (r *Recorder) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	r.mu.Lock()
	r.asked = append(r.asked, q)
	r.mu.Unlock()
	return r.Inner.Answer(ctx, q, onDelta)
}

// Questions returns a copy of the questions asked so far, oldest first.
func (r *Recorder) Questions() []rag.Question {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]rag.Question(nil), r.asked...)
}

// Gated holds every answer until Open is closed: it sends on Started when an answer begins,
// then waits, then answers with Inner. It lets a test change the world while an answer is in
// flight.
type Gated struct {
	Inner   bot.Answerer
	Started chan struct{}
	Open    chan struct{}
}

// NewGated returns a closed gate in front of inner; Started holds one signal without a reader.
func NewGated(inner bot.Answerer) *Gated {
	return &Gated{Inner: inner, Started: make(chan struct{}, 1), Open: make(chan struct{})}
}

// Answer signals Started, waits for Open, and answers with Inner.
func (g *Gated) Answer(ctx context.Context, q rag.Question, onDelta func(string)) (*rag.Answer, error) {
	g.Started <- struct{}{}
	<-g.Open
	return g.Inner.Answer(ctx, q, onDelta)
}
