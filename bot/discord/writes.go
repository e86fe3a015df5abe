package discord

import (
	"context"
	"errors"

	"github.com/citahq/cita/bot"
)

// errWithdrawn says a write of an answer's text did not happen, or was covered again, because
// the answer was withdrawn: its message shows the notice.
var errWithdrawn = errors.New("answer withdrawn: its notice shows instead")

// writeAnswer makes one write of answer id's text with write (discordgo waits out 429s inside
// it), checked against the answer's withdrawal before and after (bot.AnswerWrites). When the
// answer was withdrawn, before or during the write, its message is edited into the notice and
// errWithdrawn returned. It returns bot.ErrWriteUnchecked when the store could not check, and
// write's error otherwise. An id of 0 (a reason, not an answer) is written without checks.
func (a *Adapter) writeAnswer(ctx context.Context, id int64, write func() error) error {
	red, withdrawn, err := a.writes.Write(ctx, id, write)
	if withdrawn {
		a.showRedaction(context.WithoutCancel(ctx), red)
		return errWithdrawn
	}
	return err
}

// notRecordedText is the short error shown instead of an answer that could not be checked or
// recorded.
func notRecordedText(lang string) string { return bot.ReasonText(lang, bot.ReasonNotRecorded) }
