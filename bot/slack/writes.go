package slack

import (
	"context"
	"errors"

	"github.com/citahq/cita/bot"
)

// errWithdrawn says a write of an answer's text did not happen, or was covered again, because
// the answer was withdrawn: its message shows the notice.
var errWithdrawn = errors.New("answer withdrawn: its notice shows instead")

// writeAnswer makes one write of answer id's text with write, waiting out Slack's 429s, and
// re-checking before every attempt that the answer was not withdrawn (bot.AnswerWrites). When
// it was, before or during the write, the message is edited into the notice and errWithdrawn
// returned. It returns bot.ErrWriteUnchecked when the store could not check, and write's last
// error otherwise. An id of 0 (a reason, not an answer) is written without checks.
func (a *Adapter) writeAnswer(ctx context.Context, id int64, write func() error) error {
	var red bot.Redaction
	var withdrawn bool
	err := withRetry(ctx, func() (err error) {
		red, withdrawn, err = a.writes.Write(ctx, id, write)
		return err
	})
	if withdrawn {
		a.showRedaction(context.WithoutCancel(ctx), red)
		return errWithdrawn
	}
	return err
}

// notRecorded is the reply shown instead of out when out could not be checked or recorded.
func notRecorded(out bot.Outgoing) bot.Outgoing {
	return bot.Outgoing{Text: bot.ReasonText(out.Lang, bot.ReasonNotRecorded), Lang: out.Lang, Reason: bot.ReasonNotRecorded}
}
