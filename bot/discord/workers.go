package discord

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/bwmarrin/discordgo"
	"github.com/citahq/cita/rag"
)

// goWork runs fn in the background with a bounded context derived from the adapter's. A panic
// in fn ends only that piece of work: it is logged with its stack, then fail (when set) tells
// the asker.
func (a *Adapter) goWork(fn, fail func(ctx context.Context)) {
	a.work.Add(1)
	go func() {
		defer a.work.Done()
		ctx, cancel := context.WithTimeout(a.baseCtx, workTimeout)
		defer cancel()
		defer func() {
			if v := recover(); v != nil {
				a.logPanic(ctx, "discord worker", v)
				if fail != nil {
					a.tellFailure(ctx, fail)
				}
			}
		}()
		fn(ctx)
	}()
}

// tellFailure runs fail, logging a panic in it instead of ending the process.
func (a *Adapter) tellFailure(ctx context.Context, fail func(ctx context.Context)) {
	defer func() {
		if v := recover(); v != nil {
			a.logPanic(ctx, "discord failure reply", v)
		}
	}()
	fail(ctx)
}

// logPanic logs a recovered panic with the stack of the goroutine that panicked.
func (a *Adapter) logPanic(ctx context.Context, where string, v any) {
	a.logger.ErrorContext(ctx, where+": panic recovered", slog.String("panic", fmt.Sprint(v)), slog.String("stack", string(debug.Stack())))
}

// routeSafely is route that answers a panic with a reason instead of ending the process.
func (a *Adapter) routeSafely(ctx context.Context, i *discordgo.Interaction) (resp *discordgo.InteractionResponse, next work) {
	defer func() {
		if v := recover(); v != nil {
			a.logPanic(ctx, "discord route interaction", v)
			resp, next = ephemeralMessage(textInternalError.in(interactionLang(i))), nil
		}
	}()
	return a.route(ctx, i)
}

// interactionFailure tells the asker that an interaction's work failed.
func (a *Adapter) interactionFailure(i *discordgo.Interaction) func(ctx context.Context) {
	return func(ctx context.Context) { a.editReason(ctx, i, textInternalError.in(interactionLang(i))) }
}

// messageFailure tells the author that answering m failed, where the bot would have answered
// (a DM, or a thread it knows it owns) and nowhere else.
func (a *Adapter) messageFailure(m *discordgo.Message) func(ctx context.Context) {
	return func(ctx context.Context) {
		if m.GuildID == "" || a.ownsKnownThread(m.ChannelID) {
			a.replyTo(ctx, m, rendered{Parts: []string{textInternalError.in(rag.AnswerLang(m.Content))}})
		}
	}
}
