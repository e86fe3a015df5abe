package slack

import (
	"context"

	"github.com/citahq/cita/bot"
)

// writeAnswer makes one write of answer id's text with write, waiting out Slack's 429s, and
// re-checking before every attempt that the answer was not withdrawn (bot.AnswerWrites). When
// it was, before or during the write, the message is edited into the notice and
// bot.ErrWriteWithdrawn returned. It returns bot.ErrWriteUnchecked when the store could not check,
// and write's last error otherwise. An id of 0 (a reason, not an answer) is written without
// checks.
func (a *Adapter) writeAnswer(ctx context.Context, id int64, write func() error) error {
	return withRetry(ctx, func() error { return a.writes.WriteOrNotice(ctx, id, write, a.showRedaction) })
}

// notRecorded is the reply shown instead of out when out could not be checked or recorded.
func notRecorded(out bot.Outgoing) bot.Outgoing {
	return bot.Outgoing{Text: bot.ReasonText(out.Lang, bot.ReasonNotRecorded), Lang: out.Lang, Reason: bot.ReasonNotRecorded}
}
