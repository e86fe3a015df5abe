package discord

import (
	"context"
	"log/slog"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// work is what remains of an interaction after its first response: it edits that response.
type work func(ctx context.Context)

// route answers an interaction: the first response (sent within Discord's 3 seconds, by the
// HTTP reply or a REST callback) and, for anything that takes time, the work that completes it.
// Every interaction gets a response; unknown ones get a reason, and those from a guild that is
// not configured (or a private channel that is not the bot's DM) a refusal.
func (a *Adapter) route(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, work) {
	if i.AppID == "" {
		i.AppID = a.opts.ApplicationID
	}
	switch i.Type {
	case discordgo.InteractionPing:
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}, nil
	case discordgo.InteractionApplicationCommandAutocomplete:
		return noChoices(), nil // cita offers no suggestions, wherever it is asked
	}
	if refused := a.refusal(ctx, i); refused != nil {
		return refused, nil
	}
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		data := i.ApplicationCommandData()
		if data.Name != askCommand {
			a.logger.WarnContext(ctx, "discord unknown command", slog.String("command", data.Name), slog.String("interaction_id", i.ID))
			return ephemeralMessage("I only know `/" + askCommand + "`. Try `/" + askCommand + " question:…`."), nil
		}
		question, private := askOptions(data)
		if question == "" {
			return ephemeralMessage("Give me a question: `/" + askCommand + " question:…`."), nil
		}
		received := a.now()
		return deferred(private), func(ctx context.Context) { a.answerAsk(ctx, i, question, private, received) }
	case discordgo.InteractionMessageComponent:
		action, ok := parseCustomID(i.MessageComponentData().CustomID)
		if !ok || action.Kind == "note" {
			return ephemeralMessage("This button is no longer supported; ask again with `/" + askCommand + "`."), nil
		}
		if action.Kind == "why" {
			return noteForm(action.AnswerID), nil // a form must be the first response
		}
		return deferred(true), func(ctx context.Context) { a.onButton(ctx, i, action) }
	case discordgo.InteractionModalSubmit:
		data := i.ModalSubmitData()
		action, ok := parseCustomID(data.CustomID)
		note := noteText(data)
		if !ok || action.Kind != "note" || note == "" {
			return ephemeralMessage("I couldn't read this form; rate the answer again."), nil
		}
		return deferred(true), func(ctx context.Context) { a.onNote(ctx, i, action.AnswerID, note) }
	default:
		return ephemeralMessage("I can't handle this kind of interaction; use `/" + askCommand + "`."), nil
	}
}

// noChoices answers an autocomplete request with no suggestion.
func noChoices() *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}}}
}

// askOptions reads /ask's options.
func askOptions(data discordgo.ApplicationCommandInteractionData) (question string, private bool) {
	for _, o := range data.Options {
		switch o.Name {
		case optQuestion:
			if s, ok := o.Value.(string); ok {
				question = strings.TrimSpace(s)
			}
		case optPrivate:
			if b, ok := o.Value.(bool); ok {
				private = b
			}
		}
	}
	return question, private
}

// deferred is "the bot is thinking": Discord shows it until the original response is edited.
func deferred(ephemeral bool) *discordgo.InteractionResponse {
	r := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}
	if ephemeral {
		r.Data = &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral}
	}
	return r
}

func ephemeralMessage(text string) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions}}
}

// onGatewayInteraction answers an interaction received on the gateway: the first response by a
// REST callback, then the work in the background.
func (a *Adapter) onGatewayInteraction(i *discordgo.Interaction) {
	ctx := a.baseCtx
	received := a.now()
	resp, next := a.routeSafely(ctx, i)
	if resp.Type == discordgo.InteractionResponsePong {
		return // pings arrive only on the HTTP endpoint
	}
	if err := a.session.InteractionRespond(i, resp, discordgo.WithContext(ctx)); err != nil {
		a.logger.ErrorContext(ctx, "discord interaction callback", slog.String("interaction_id", i.ID), slog.Any("error", err))
		return
	}
	if resp.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource && i.Type == discordgo.InteractionApplicationCommand {
		a.trace("deferred", received)
	}
	if next != nil {
		a.goWork(next, a.interactionFailure(i))
	}
}

// asker returns who triggered the interaction and their role ids (none in DMs).
func asker(i *discordgo.Interaction) (userID string, roles []string) {
	if i.Member != nil && i.Member.User != nil {
		return i.Member.User.ID, i.Member.Roles
	}
	if i.User != nil {
		return i.User.ID, nil
	}
	return "", nil
}
