package bot

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Default sizes of the answer queue (see NewQueue).
const (
	DefaultWorkers   = 8
	DefaultQueueSize = 64
)

// ErrQueueFull is wrapped by Queue.Acquire when every worker is busy and the line is full.
var ErrQueueFull = errors.New("answer queue is full")

// QueueFullError says how many answers run and how many questions wait when a new one is
// turned away. It wraps ErrQueueFull.
type QueueFullError struct{ Running, Waiting int }

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("%v: %d answering, %d waiting", ErrQueueFull, e.Running, e.Waiting)
}

// Unwrap returns ErrQueueFull.
func (e *QueueFullError) Unwrap() error { return ErrQueueFull }

// QueueStat is a snapshot of a Queue: answers running and questions waiting for a worker.
type QueueStat struct {
	Workers, Size    int
	Running, Waiting int
}

// Queue bounds the answers in progress: at most Workers run at once and at most Size more wait
// in line, first come first served; beyond that a question is turned away at once (the
// caller replies "busy" instead of letting it pile up). It starts no goroutines of its own:
// the caller's goroutine waits in line, so nothing outlives a question.
type Queue struct {
	slots chan struct{} // a token per running answer

	mu      sync.Mutex
	size    int
	waiting int
}

// NewQueue returns a queue of workers concurrent answers and size waiting questions; a
// non-positive workers means DefaultWorkers, a negative size means no line (busy as soon as every
// worker is taken) and zero means DefaultQueueSize.
func NewQueue(workers, size int) *Queue {
	if workers <= 0 {
		workers = DefaultWorkers
	}
	switch {
	case size == 0:
		size = DefaultQueueSize
	case size < 0:
		size = 0
	}
	return &Queue{slots: make(chan struct{}, workers), size: size}
}

// Stat returns the queue's current state.
func (q *Queue) Stat() QueueStat {
	q.mu.Lock()
	defer q.mu.Unlock()
	return QueueStat{Workers: cap(q.slots), Size: q.size, Running: len(q.slots), Waiting: q.waiting}
}

// Acquire takes a worker for one answer, waiting in line when all are busy. queued, when
// non-nil, is called once with the question's place in line (1 = next) if it has to wait. It
// returns the release function to call when the answer is done, a *QueueFullError (wrapping
// ErrQueueFull) when the line is full, or ctx's error when ctx ends while waiting.
func (q *Queue) Acquire(ctx context.Context, queued func(position int)) (release func(), err error) {
	release = func() { <-q.slots }
	select {
	case q.slots <- struct{}{}:
		return release, nil
	default:
	}
	q.mu.Lock()
	if q.waiting >= q.size {
		full := &QueueFullError{Running: len(q.slots), Waiting: q.waiting}
		q.mu.Unlock()
		return nil, full
	}
	q.waiting++
	position := q.waiting
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		q.waiting--
		q.mu.Unlock()
	}()
	if queued != nil {
		queued(position)
	}
	// Blocked senders on a channel are served in arrival order: the line is first come, first
	// served.
	select {
	case q.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for an answer worker: %w", ctx.Err())
	}
}
