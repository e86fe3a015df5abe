package leakcheck

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/citahq/cita/bot"
	"github.com/citahq/cita/bot/pgbot"
	"github.com/citahq/cita/rag"
)

// errInjected is the database fault the harness injects.
var errInjected = errors.New("leakcheck: injected database fault")

// How often each kind of database call fails, once in n (0: never). Faults are drawn from the
// run's dice, per conversation, so a seed replays them.
type dbFaults struct {
	record, redact, readers, shown int
}

// defaultDBFaults are the rates of a normal run: rare enough that most answers go through, common
// enough that a 2,000-question run meets each kind dozens of times.
var defaultDBFaults = dbFaults{record: 30, redact: 12, readers: 20, shown: 12}

// faultStore is the bot store of one replica with database faults injected on the writes that
// decide who sees an answer: recording the answer (SaveAnswer), recording a channel's readers
// (RecordReaders), withdrawing answers (RedactUnreadable) and recording that a notice is shown
// (RedactionShown). Every other method, and every optional interface of *pgbot.Store
// (suggested prompts, notices, comments), goes through unchanged.
type faultStore struct {
	*pgbot.Store
	dice  *dice
	rates dbFaults
	// recordFailed, when set, is told which conversation's answer could not be recorded: the
	// harness then makes someone join there while the reply is written, to see whether an
	// unrecorded answer is shown (and so can never be withdrawn).
	recordFailed func(conv bot.ConversationKey)
	injected     atomic.Int64
	breaks       storeBreaks
}

func (s *faultStore) fail(kind, conversation string, oneIn int) bool {
	if s.dice.oneIn("db "+kind+"/"+conversation, oneIn) {
		s.injected.Add(1)
		return true
	}
	return false
}

// SaveAnswer fails now and then, before anything is written.
func (s *faultStore) SaveAnswer(ctx context.Context, rec *bot.AnswerRecord) (int64, error) {
	if s.fail("record", rec.Conversation.Channel, s.rates.record) {
		if s.recordFailed != nil {
			s.recordFailed(rec.Conversation)
		}
		return 0, errInjected
	}
	if s.breaks.recordDropped && rec.Conversation.Platform == "slack" && strings.HasPrefix(rec.Conversation.Channel, "C") {
		if s.recordFailed != nil {
			s.recordFailed(rec.Conversation)
		}
		return 1 << 40, nil // an id that names no record
	}
	return s.Store.SaveAnswer(ctx, rec)
}

// RecordReaders fails now and then, before anything is written.
func (s *faultStore) RecordReaders(ctx context.Context, platform, workspace, channel string, readers []byte) (bool, int64, error) {
	if s.fail("readers", channel, s.rates.readers) {
		return false, 0, errInjected
	}
	return s.Store.RecordReaders(ctx, platform, workspace, channel, readers)
}

// RedactUnreadable fails now and then when it has something to withdraw (readers given),
// before anything is written.
func (s *faultStore) RedactUnreadable(ctx context.Context, platform, workspace, channel string, readers []rag.Scope) ([]bot.Redaction, error) {
	if len(readers) > 0 && s.fail("redact", channel, s.rates.redact) {
		return nil, errInjected
	}
	return s.Store.RedactUnreadable(ctx, platform, workspace, channel, readers)
}

// RedactionShown fails now and then, before anything is written.
func (s *faultStore) RedactionShown(ctx context.Context, answerID int64) error {
	if s.fail("shown", "", s.rates.shown) {
		return errInjected
	}
	return s.Store.RedactionShown(ctx, answerID)
}
