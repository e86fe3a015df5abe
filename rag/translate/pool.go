package translate

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultPipelines is how many pipelines of each kind (a translation direction, an analyser, a
// dictionary) Apertium keeps by default: questions asked at once take turns on one pipeline,
// each query a few milliseconds, and on a bilingual scope the translation is on every
// question's path. Two let two questions translate at once, as the machine's two cores can;
// each translation pipeline holds about 180 MB.
const DefaultPipelines = 2

// pipelinePool is n interchangeable pipelines of one kind, each taking one query at a time;
// a query takes a free one (first a running one, so an idle pool does not start them all), or
// waits for the first to come free.
type pipelinePool struct {
	name  string
	pipes []*pipeline
	free  chan *pipeline
}

// newPipelinePool returns a pool of n (at least 1) pipelines made by mk.
func newPipelinePool(name string, n int, mk func() *pipeline) *pipelinePool {
	n = max(n, 1)
	pp := &pipelinePool{name: name, free: make(chan *pipeline, n)}
	for range n {
		p := mk()
		pp.pipes = append(pp.pipes, p)
		pp.free <- p
	}
	return pp
}

// translate sends one line through a free pipeline (see pipeline.translate). It waits for one
// at most timeout, or until ctx ends, and returns an error wrapping context.DeadlineExceeded or
// ctx's error then.
func (pp *pipelinePool) translate(ctx context.Context, line string, timeout, startTimeout time.Duration) (string, error) {
	p, err := pp.acquire(ctx, timeout)
	if err != nil {
		return "", err
	}
	defer func() { pp.free <- p }()
	return p.translate(ctx, line, timeout, startTimeout)
}

// acquire takes a free pipeline: one that runs (not restarting) when any free one does, else
// any free one (it starts on its query); when none is free it waits for the first, at most wait.
func (pp *pipelinePool) acquire(ctx context.Context, wait time.Duration) (*pipeline, error) {
	var free []*pipeline
	for len(free) < len(pp.pipes) {
		select {
		case p := <-pp.free:
			free = append(free, p)
			continue
		default:
		}
		break
	}
	if len(free) > 0 {
		pick := 0
		for i, p := range free {
			if p.ready() {
				pick = i
				break
			}
		}
		for i, p := range free {
			if i != pick {
				pp.free <- p
			}
		}
		return free[pick], nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case p := <-pp.free:
		return p, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("apertium %s: waiting for the translator: %w", pp.name, ctx.Err())
	case <-timer.C:
		return nil, fmt.Errorf("apertium %s: waiting for the translator: %w", pp.name, context.DeadlineExceeded)
	}
}

// warm starts every pipeline of the pool with one query each, at once; it returns their errors.
func (pp *pipelinePool) warm(ctx context.Context, line string, timeout, startTimeout time.Duration) error {
	errs := make(chan error, len(pp.pipes))
	for _, p := range pp.pipes {
		go func() {
			_, err := p.translate(ctx, line, timeout, startTimeout)
			errs <- err
		}()
	}
	var all []error
	for range pp.pipes {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// close stops every pipeline of the pool for good.
func (pp *pipelinePool) close() {
	for _, p := range pp.pipes {
		p.close()
	}
}
