package translate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// restartBackoff is how long a pipeline that died stays down before the next query may start it
// again: a pair whose data is broken must not be restarted on every question.
const restartBackoff = 5 * time.Second

// DefaultRestartWait is how long a query waits, at most, for a pipeline being restarted after a
// crash or a timeout (the programs load their data again, which takes a few hundred
// milliseconds, more on a busy machine). The restart goes on in the background; a query that
// gives up is searched in its own language only.
const DefaultRestartWait = 250 * time.Millisecond

// pipeline is one translation direction's kept-alive chain of Apertium programs, each a child
// process, connected by pipes and flushing on NUL. Queries go through it one at a time (sem).
// It starts on the first query, and after a crash, a timeout or a protocol error it is stopped
// (every process killed and reaped) and started again by a later query.
type pipeline struct {
	mode   string
	stages []stage
	logger *slog.Logger

	sem     chan struct{} // one query at a time; a channel so waiting honours ctx
	backoff time.Duration // restartBackoff; tests shorten it
	// restartWait caps a query's wait for a restart (DefaultRestartWait); restarting is set
	// while one runs in the background, holding sem.
	restartWait time.Duration
	restarting  atomic.Bool
	running     atomic.Bool // its processes run (set by start, cleared by stop)
	// Below: guarded by sem.
	cmds    []*exec.Cmd
	stdin   io.WriteCloser
	out     *os.File // the last stage's output
	stdout  *bufio.Reader
	stderr  *tailBuffer
	downAt  time.Time // when it last died; zero when it never did
	downErr error
	closed  bool
	started int // how many times it was started, for tests

	pidMu   sync.Mutex
	allPIDs []int // every stage process ever started, for tests
}

func newPipeline(mode string, stages []stage, logger *slog.Logger) *pipeline {
	return &pipeline{mode: mode, stages: stages, logger: logger, sem: make(chan struct{}, 1), backoff: restartBackoff,
		restartWait: DefaultRestartWait}
}

// translate sends one line through the pipeline and returns its output. It returns an error when
// ctx ends first (the pipeline is then restarted by the next query, since a late reply would
// answer the wrong question), when the pipeline cannot start or died, and after Close.
//
// timeout bounds the wait for the queries ahead and the exchange itself. The first start is
// made by the query that needs it, whose exchange gets startTimeout instead (the programs load
// their data first; serve starts them before any question, see Apertium.Warm). A restart after
// a crash or a timeout runs in the background: the query that starts it, and any query arriving
// meanwhile, waits at most restartWait for it and otherwise fails, so no question waits for
// the programs to load again.
func (p *pipeline) translate(ctx context.Context, line string, timeout, startTimeout time.Duration) (string, error) {
	wait := timeout
	if p.restarting.Load() {
		wait = min(wait, p.restartWait)
	}
	if err := p.acquire(ctx, wait); err != nil {
		return "", err
	}
	held := true
	defer func() {
		if held {
			<-p.sem
		}
	}()
	if p.closed {
		return "", fmt.Errorf("apertium %s: %w", p.mode, errClosed)
	}
	if p.cmds == nil {
		if !p.downAt.IsZero() && time.Since(p.downAt) < p.backoff {
			return "", fmt.Errorf("apertium %s: down since %s: %w", p.mode, p.downAt.Format(time.TimeOnly), p.downErr)
		}
		if p.started == 0 {
			if err := p.start(); err != nil {
				p.markDown(err)
				return "", err
			}
			return p.exchange(ctx, line, startTimeout)
		}
		held = false // the restart holds sem now, and releases it when the programs answer
		p.restarting.Store(true)
		go p.restart(startTimeout)
		if err := p.acquire(ctx, p.restartWait); err != nil {
			return "", fmt.Errorf("apertium %s: restarting: %w", p.mode, err)
		}
		held = true
		if p.cmds == nil {
			return "", fmt.Errorf("apertium %s: restart failed: %w", p.mode, p.downErr)
		}
	}
	return p.exchange(ctx, line, timeout)
}

// acquire takes sem, waiting at most wait. It returns an error wrapping ctx's, or
// context.DeadlineExceeded when wait passed first.
func (p *pipeline) acquire(ctx context.Context, wait time.Duration) error {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case p.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("apertium %s: waiting for the translator: %w", p.mode, ctx.Err())
	case <-timer.C:
		return fmt.Errorf("apertium %s: waiting for the translator: %w", p.mode, context.DeadlineExceeded)
	}
}

// restart starts the stopped pipeline again and sends it a first query, within startTimeout,
// so it is ready for the next question; it is called holding sem and releases it. A failure
// marks the pipeline down (the next query after the backoff tries again).
func (p *pipeline) restart(startTimeout time.Duration) {
	defer func() {
		p.restarting.Store(false)
		<-p.sem
	}()
	if err := p.start(); err != nil {
		p.markDown(err)
		return
	}
	_, _ = p.exchange(context.Background(), "hola", startTimeout) // a failure is marked down by exchange
}

// exchange sends one line through the running pipeline, holding sem, and returns its output.
// A crash, a protocol error or a timeout stops the pipeline and marks it down; ctx ending first
// stops it too (a late reply would answer the wrong question) without marking it down.
func (p *pipeline) exchange(ctx context.Context, line string, timeout time.Duration) (string, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		// The write is in the goroutine too: a stuck pipeline can block it once pipe buffers fill.
		// The newline before the NUL matters: lt-proc's bilingual lookup (-b) flushes on a NUL
		// only after a blank, and would otherwise hold the query until the next one.
		if _, err := io.WriteString(p.stdin, line+"\n\x00"); err != nil {
			done <- result{err: fmt.Errorf("write: %w", err)}
			return
		}
		out, err := p.stdout.ReadString(0)
		done <- result{text: strings.TrimSpace(strings.TrimSuffix(out, "\x00")), err: err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			err := fmt.Errorf("apertium %s: %w%s", p.mode, r.err, p.stderr.suffix())
			p.stop()
			p.markDown(err)
			return "", err
		}
		return r.text, nil
	case <-ctx.Done():
		p.stop() // unblocks the goroutine: its pipes close
		<-done
		err := fmt.Errorf("apertium %s: no answer within %s: %w", p.mode, timeout, ctx.Err())
		if parent.Err() != nil {
			return "", fmt.Errorf("apertium %s: %w", p.mode, parent.Err()) // the caller gave up: not the pipeline's fault
		}
		p.markDown(err) // a stuck pipeline must not hold every question for its timeout
		return "", err
	}
}

func (p *pipeline) markDown(err error) {
	p.downAt, p.downErr = time.Now(), err
	p.logger.Warn("apertium translator unavailable; searching monolingually",
		slog.String("mode", p.mode), slog.String("error", err.Error()))
}

// start runs every stage, each reading the previous one's output. On error it stops what it
// started.
func (p *pipeline) start() error {
	p.stderr = &tailBuffer{max: 2048}
	var prev *os.File // read end of the previous stage's output
	for i, st := range p.stages {
		cmd := exec.Command(st.path, st.args...)
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
		cmd.Stderr = p.stderr
		if i == 0 {
			w, err := cmd.StdinPipe()
			if err != nil {
				p.stop()
				return fmt.Errorf("apertium %s: %w", p.mode, err)
			}
			p.stdin = w
		} else {
			cmd.Stdin = prev
		}
		r, w, err := os.Pipe()
		if err != nil {
			closeFile(prev)
			p.stop()
			return fmt.Errorf("apertium %s: %w", p.mode, err)
		}
		cmd.Stdout = w
		err = cmd.Start()
		// The children hold their own copies; the parent keeps only the last read end.
		closeFile(prev)
		closeFile(w)
		if err != nil {
			closeFile(r)
			p.stop()
			return fmt.Errorf("apertium %s: start %s: %w", p.mode, st.path, err)
		}
		p.cmds = append(p.cmds, cmd)
		p.pidMu.Lock()
		p.allPIDs = append(p.allPIDs, cmd.Process.Pid)
		p.pidMu.Unlock()
		prev = r
	}
	p.out, p.stdout = prev, bufio.NewReader(prev)
	p.started++
	p.running.Store(true)
	return nil
}

// ready reports whether the pipeline runs and is not being restarted: a query it takes is
// answered without waiting for programs to load.
func (p *pipeline) ready() bool { return p.running.Load() && !p.restarting.Load() }

// stop kills every stage and waits for each, so none is left a zombie, and closes the pipes.
func (p *pipeline) stop() {
	p.running.Store(false)
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
	for _, c := range p.cmds {
		_ = c.Process.Kill()
	}
	for _, c := range p.cmds {
		_ = c.Wait()
	}
	closeFile(p.out)
	p.cmds, p.stdin, p.out, p.stdout = nil, nil, nil, nil
}

// close stops the pipeline for good, after the query in flight (if any) ends.
func (p *pipeline) close() {
	p.sem <- struct{}{}
	defer func() { <-p.sem }()
	p.closed = true
	p.stop()
}

// pids returns the process ids of the running stages (nil when stopped), for tests.
func (p *pipeline) pids() []int {
	p.sem <- struct{}{}
	defer func() { <-p.sem }()
	var out []int
	for _, c := range p.cmds {
		out = append(out, c.Process.Pid)
	}
	return out
}

func closeFile(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}

// tailBuffer keeps the last max bytes written to it: the stages' stderr, quoted in errors.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

// suffix is ": <last stderr line>" or "" when the stages wrote nothing.
func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	if last := bytes.TrimSpace(lines[len(lines)-1]); len(last) > 0 {
		return " (stderr: " + string(last) + ")"
	}
	return ""
}
