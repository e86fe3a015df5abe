package discord

import (
	"context"
	"log/slog"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/bot"
)

// writeAnswer makes one write of answer id's text with write (discordgo waits out 429s inside
// it), checked against the answer's withdrawal before and after (bot.AnswerWrites). When the
// answer was withdrawn, before or during the write, its message is edited into the notice and
// bot.ErrWriteWithdrawn returned. It returns bot.ErrWriteUnchecked when the store could not check,
// and write's error otherwise. An id of 0 (a reason, not an answer) is written without checks.
func (a *Adapter) writeAnswer(ctx context.Context, id int64, write func() error) error {
	return a.writes.WriteOrNotice(ctx, id, write, func(ctx context.Context, red bot.Redaction) { a.showRedaction(ctx, red) })
}

// notRecordedText is the short error shown instead of an answer that could not be checked or
// recorded.
func notRecordedText(lang string) string { return bot.ReasonText(lang, bot.ReasonNotRecorded) }

// finalEdit makes edit, the final edit of an interaction's response (an answer or a reason).
// When Discord refuses it, it tries once more; when that is refused too, the asker gets a short
// error as an ephemeral follow-up, with no document text, instead of "thinking…" alone. It
// returns edit's last error.
func (a *Adapter) finalEdit(ctx context.Context, i *discordgo.Interaction, lang string, edit func() error) error {
	err := edit()
	if bot.Refused(err) {
		a.logger.WarnContext(ctx, "discord edit reply; trying once more", slog.String("interaction_id", i.ID), slog.Any("error", err))
		err = edit()
	}
	if bot.Refused(err) {
		a.logger.ErrorContext(ctx, "discord edit reply; posting a short error instead", slog.String("interaction_id", i.ID), slog.Any("error", err))
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second) // even when the work ran out of time
		defer cancel()
		a.sendFollowUps(ctx, i, []string{bot.ReasonText(lang, bot.ReasonInternalError)}, true)
	}
	return err
}
