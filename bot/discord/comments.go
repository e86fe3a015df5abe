package discord

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/citahq/cita/bot"
)

// Custom ids of the 👎 follow-up: the button under "your 👎 is recorded" and the form it opens.
const (
	idWhy  = "cita:why:"
	idNote = "cita:note:"
	// noteInput is the form's text field; maxNote bounds it (the store keeps up to 4000).
	noteInput = "cita:note"
	maxNote   = 1000
)

// commenter stores what a user said with their rating; *pgbot.Store implements it. A store
// without it (tests) gets no "Say what was wrong" button.
type commenter interface {
	CommentFeedback(ctx context.Context, fb bot.Feedback, comment string) error
}

// whyButton is the row under the thanks for a 👎: a button that opens the form.
func whyButton(answerID int64) []discordgo.MessageComponent {
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Say what was wrong", Style: discordgo.SecondaryButton, CustomID: idWhy + strconv.FormatInt(answerID, 10)},
	}}}
}

// noteForm is the modal asking what was wrong with answer id: what the admin reads beside the
// answer in `cita feedback export`.
func noteForm(answerID int64) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseModal, Data: &discordgo.InteractionResponseData{
		CustomID: idNote + strconv.FormatInt(answerID, 10),
		Title:    "What was wrong with this answer?",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.TextInput{CustomID: noteInput, Label: "What was wrong, or the right answer", Style: discordgo.TextInputParagraph,
				Placeholder: "It is 95 euros since December; see the travel policy.", Required: true, MaxLength: maxNote},
		}}},
	}}
}

// noteText returns the text typed in the form.
func noteText(data discordgo.ModalSubmitInteractionData) string {
	for _, row := range data.Components {
		r, ok := row.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, c := range r.Components {
			if in, ok := c.(*discordgo.TextInput); ok && in.CustomID == noteInput {
				return strings.TrimSpace(in.Value)
			}
		}
	}
	return ""
}

// onNote stores the form's text with the submitter's rating of the answer. Only someone who
// rated the answer can comment on it (the store checks), so the form needs no other check.
func (a *Adapter) onNote(ctx context.Context, i *discordgo.Interaction, answerID int64, note string) {
	store, ok := a.handler.Store().(commenter)
	if !ok || a.handler.Store() == nil {
		a.editReason(ctx, i, textStoreProblem)
		return
	}
	userID, _ := asker(i)
	fb := bot.Feedback{AnswerID: answerID, Conversation: bot.ConversationKey{Platform: platform}, UserID: userID}
	if err := store.CommentFeedback(ctx, fb, note); err != nil {
		if errors.Is(err, bot.ErrNotVisible) {
			a.editReason(ctx, i, "Rate the answer with 👎 first, then say what was wrong.")
			return
		}
		a.editReason(ctx, i, a.storeErrorText(ctx, answerID, err))
		return
	}
	a.logger.InfoContext(ctx, "discord feedback comment", slog.Int64("answer_id", answerID), slog.Int("chars", len(note)))
	a.editReason(ctx, i, "Thanks: whoever looks after these documents will read it with the answer.")
}
