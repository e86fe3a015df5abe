package bot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrWriteUnchecked is returned by AnswerWrites.Write when the store cannot say whether the
// answer was withdrawn, or cannot count the write: the caller shows ReasonNotRecorded instead.
var ErrWriteUnchecked = errors.New("answer's withdrawal could not be checked")

// ErrWriteWithdrawn is returned by AnswerWrites.WriteOrNotice when a write of an answer's text did
// not happen, or was covered again, because the answer was withdrawn: its message shows the notice.
var ErrWriteWithdrawn = errors.New("answer withdrawn: its notice shows instead")

// Refused reports whether a write of an answer failed because the platform refused it, not
// because the answer was withdrawn (ErrWriteWithdrawn) or its withdrawal could not be checked
// (ErrWriteUnchecked).
func Refused(err error) bool {
	return err != nil && !errors.Is(err, ErrWriteWithdrawn) && !errors.Is(err, ErrWriteUnchecked)
}

// AnswerWrites enforces, for one replica, the rule every write of an answer's text follows
// (first post, streamed text, updates, retries after a 429, edits): the write happens only
// when the store says the answer was not withdrawn, it is counted right after, and a
// withdrawal that landed meanwhile is shown again. One replica's writes to one answer's message
// (its text and its notice) are serialised, so a notice cannot be overwritten by a write of the
// same replica that started before it; a write of another replica is caught by AnswerWritten.
// The zero value is not usable: use NewAnswerWrites. A nil store lets every write through.
type AnswerWrites struct {
	store Audiences

	mu   sync.Mutex
	held map[int64]*answerLock
	// uncounted are the answers a text write of this replica may have reached the platform for
	// without the store counting it (AnswerWritten failed): until this replica shows their notice
	// again, the store's "notice shown" does not hold for their message (see Notice).
	uncounted map[int64]bool
}

type answerLock struct {
	mu   sync.Mutex
	refs int
}

// NewAnswerWrites returns the write guard of one replica over store.
func NewAnswerWrites(store Audiences) *AnswerWrites {
	return &AnswerWrites{store: store, held: map[int64]*answerLock{}, uncounted: map[int64]bool{}}
}

// lock takes answer id's lock and returns its release.
func (w *AnswerWrites) lock(id int64) func() {
	w.mu.Lock()
	l := w.held[id]
	if l == nil {
		l = &answerLock{}
		w.held[id] = l
	}
	l.refs++
	w.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		w.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(w.held, id)
		}
		w.mu.Unlock()
	}
}

// MaxWriteHold bounds how long a write of an answer's text waits while its channel's readers
// are in doubt (WriteHeld): past it, the answer is withdrawn rather than written. The replica
// resolving the doubt gives up sooner (it withdraws the channel's answers when it cannot read
// who sees it), so this only matters when that replica died.
const MaxWriteHold = 15 * time.Second

// Write runs write, one write of answer id's text to its message, under the answer's lock,
// after checking that the answer was not withdrawn and that its channel's recorded readers may
// read it (Audiences.CheckWrite), and records it after. While the channel's readers are in
// doubt the write waits, for at most MaxWriteHold, then the answer is withdrawn. When the
// answer was withdrawn, before (write not called) or during the write, it returns the notice
// and withdrawn true: the caller must show it (Notice) instead. It returns write's error, or
// ErrWriteUnchecked when the store cannot check (write not called: an answer whose withdrawal
// cannot be checked is not shown) or cannot count the write. An id of 0 (no recorded answer)
// is written without checks.
func (w *AnswerWrites) Write(ctx context.Context, id int64, write func() error) (red Redaction, withdrawn bool, err error) {
	if id == 0 || w.store == nil {
		return Redaction{}, false, write()
	}
	unlock := w.lock(id)
	defer unlock()
	red, withdrawn, err = w.check(ctx, id)
	if err != nil {
		return Redaction{}, false, fmt.Errorf("%w: before writing answer %d: %w", ErrWriteUnchecked, id, err)
	}
	if withdrawn {
		return red, true, nil
	}
	werr := write()
	red, withdrawn, err = w.store.AnswerWritten(context.WithoutCancel(ctx), id)
	if err != nil {
		w.setUncounted(id, true)
		return Redaction{}, false, fmt.Errorf("%w: after writing answer %d: %w", ErrWriteUnchecked, id, err)
	}
	if werr == nil {
		w.setUncounted(id, false) // this write, counted, replaced whatever an uncounted one showed
	}
	if withdrawn {
		return red, true, nil
	}
	return Redaction{}, false, werr
}

// check asks the store whether answer id may be written now, waiting while its channel's
// readers are in doubt, and withdrawing it when the doubt outlasts MaxWriteHold.
func (w *AnswerWrites) check(ctx context.Context, id int64) (Redaction, bool, error) {
	deadline := time.Now().Add(MaxWriteHold)
	wait := 25 * time.Millisecond
	for {
		red, check, err := w.store.CheckWrite(ctx, id)
		if err != nil || check != WriteHeld {
			return red, check == WriteWithdrawn, err
		}
		if !time.Now().Before(deadline) {
			red, ok, err := w.store.WithdrawAnswer(context.WithoutCancel(ctx), id)
			if err == nil && !ok {
				err = fmt.Errorf("answer %d held past %s could not be withdrawn", id, MaxWriteHold)
			}
			return red, ok, err
		}
		select {
		case <-ctx.Done():
			return Redaction{}, false, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

// WriteOrNotice is Write for an adapter's writes of an answer: when the answer was withdrawn,
// before or during write, notice edits its message into the notice (with a context that
// outlives ctx) and ErrWriteWithdrawn is returned; otherwise Write's error.
func (w *AnswerWrites) WriteOrNotice(ctx context.Context, id int64, write func() error, notice func(context.Context, Redaction)) error {
	red, withdrawn, err := w.Write(ctx, id, write)
	if withdrawn {
		notice(context.WithoutCancel(ctx), red)
		return ErrWriteWithdrawn
	}
	return err
}

// Notice runs show, the edit of red's message into its notice, under the answer's lock, and
// records the notice shown when show succeeds (unless the answer's text was written again
// since). Under the lock it first asks the store whether the notice is still to show: two paths
// that loaded the same withdrawal (a sweep, and a write that found the answer withdrawn) edit
// the message once, not twice, and the notice is recorded against the writes counted when it
// was shown rather than when red was loaded. The store's answer is trusted only when every
// text write of this replica was counted: after a write the store failed to count (it may have
// landed over the notice), the notice is shown again whatever the store says. When the store
// cannot say, the notice is shown too: hiding the text matters more than saving a write. It
// returns show's or the store's error; the notice then stays pending. A nil store shows every
// notice.
func (w *AnswerWrites) Notice(ctx context.Context, red Redaction, show func() error) error {
	unlock := w.lock(red.AnswerID)
	defer unlock()
	if w.store == nil {
		return show()
	}
	current, pending, err := w.store.PendingRedaction(ctx, red.AnswerID)
	switch {
	case err != nil:
		current = red
	case !pending && !w.isUncounted(red.AnswerID):
		return nil // shown since red was loaded, over every write of its text
	case !pending:
		current = red // shown by the store's count, but a write of ours was not counted
	}
	if err := show(); err != nil {
		return err
	}
	w.setUncounted(red.AnswerID, false)
	return w.store.RedactionShown(ctx, current)
}

// setUncounted marks (or clears) answer id as having a text write the store did not count.
func (w *AnswerWrites) setUncounted(id int64, uncounted bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if uncounted {
		w.uncounted[id] = true
	} else {
		delete(w.uncounted, id)
	}
}

// isUncounted reports whether answer id has a text write the store did not count.
func (w *AnswerWrites) isUncounted(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.uncounted[id]
}
