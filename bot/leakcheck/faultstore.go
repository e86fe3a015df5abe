package leakcheck

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"time"

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
	// preparing, when set, is told of every answer about to be recorded, and may hold it (a
	// join while it is prepared); readerAdded and withdrewFor of every reader cita records and
	// every withdrawal it makes (the harness waits for them).
	preparing   func(ctx context.Context, rec *bot.AnswerRecord)
	readerAdded func(channel, user string)
	withdrewFor func(channel string, readers []rag.Scope)
	injected    atomic.Int64
	dropped     atomic.Int64 // records dropped by the break, for their ids
	breaks      storeBreaks
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
	if rec.ID >= droppedID || (rec.ID == 0 && s.dropsRecord(rec.Conversation)) {
		if rec.ID == 0 && s.recordFailed != nil {
			s.recordFailed(rec.Conversation)
		}
		if rec.ID == 0 {
			rec.ID = droppedID + s.dropped.Add(1)
		}
		return rec.ID, nil // an id that names no record
	}
	return s.Store.SaveAnswer(ctx, rec)
}

// RecordReaders fails now and then, before anything is written.
func (s *faultStore) RecordReaders(ctx context.Context, platform, workspace, channel string, readers []rag.Scope, expected int64) (bool, int64, error) {
	if s.fail("readers", channel, s.rates.readers) {
		return false, 0, errInjected
	}
	return s.Store.RecordReaders(ctx, platform, workspace, channel, readers, expected)
}

// RedactUnreadable fails now and then when it has something to withdraw (readers given),
// before anything is written.
func (s *faultStore) RedactUnreadable(ctx context.Context, platform, workspace, channel string, readers []rag.Scope) ([]bot.Redaction, error) {
	if len(readers) > 0 && s.fail("redact", channel, s.rates.redact) {
		return nil, errInjected
	}
	reds, err := s.Store.RedactUnreadable(ctx, platform, workspace, channel, readers)
	if err == nil && s.withdrewFor != nil && platform == "slack" {
		s.withdrewFor(channel, readers)
	}
	return reds, err
}

// AddReader fails now and then, like RecordReaders. The joiners break records nothing, and
// reports success.
func (s *faultStore) AddReader(ctx context.Context, platform, workspace, channel, userID string, scope rag.Scope) (int64, error) {
	if s.fail("readers", channel, s.rates.readers) {
		return 0, errInjected
	}
	if s.breaks.joinersIgnored {
		return 0, nil
	}
	v, err := s.Store.AddReader(ctx, platform, workspace, channel, userID, scope)
	if err == nil && s.readerAdded != nil && platform == "slack" {
		s.readerAdded(channel, userID)
	}
	return v, err
}

// ChannelJoiners is empty under the joiners break: only the member list counts.
func (s *faultStore) ChannelJoiners(ctx context.Context, platform, workspace, channel string, ttl time.Duration) ([]bot.Joiner, error) {
	if s.breaks.joinersIgnored {
		return nil, nil
	}
	return s.Store.ChannelJoiners(ctx, platform, workspace, channel, ttl)
}

// PublicChannels lists nothing under the team_join break: a new member of the workspace checks
// no channel.
func (s *faultStore) PublicChannels(ctx context.Context, platform, workspace string) ([]string, error) {
	if s.breaks.teamJoinIgnored {
		return nil, nil
	}
	return s.Store.PublicChannels(ctx, platform, workspace)
}

// RedactionShown fails now and then, before anything is written.
func (s *faultStore) RedactionShown(ctx context.Context, red bot.Redaction) error {
	if s.fail("shown", "", s.rates.shown) {
		return errInjected
	}
	return s.Store.RedactionShown(ctx, red)
}

// droppedID is the first id a dropped record reports: no answer has it.
const droppedID = int64(1) << 40

// ReserveAnswer fails now and then, like SaveAnswer: the record before anything is shown. With
// the record-dropping break it reports success without writing anything.
func (s *faultStore) ReserveAnswer(ctx context.Context, rec *bot.AnswerRecord) (int64, error) {
	if s.preparing != nil {
		s.preparing(ctx, rec)
	}
	if s.fail("record", rec.Conversation.Channel, s.rates.record) {
		if s.recordFailed != nil {
			s.recordFailed(rec.Conversation)
		}
		return 0, errInjected
	}
	if s.dropsRecord(rec.Conversation) {
		if s.recordFailed != nil {
			s.recordFailed(rec.Conversation)
		}
		rec.ID = droppedID + s.dropped.Add(1)
		return rec.ID, nil
	}
	return s.Store.ReserveAnswer(ctx, rec)
}

// AddConsulted adds nothing to a dropped record.
func (s *faultStore) AddConsulted(ctx context.Context, answerID int64, refs []bot.SourceRef) error {
	if answerID >= droppedID {
		return nil
	}
	return s.Store.AddConsulted(ctx, answerID, refs)
}

// CheckWrite is the check before every write of an answer's text. The write-check break says
// "write it" whatever the database says; a dropped record is never withdrawn.
func (s *faultStore) CheckWrite(ctx context.Context, answerID int64) (bot.Redaction, bot.WriteCheck, error) {
	if s.breaks.skipWriteCheck || answerID >= droppedID {
		return bot.Redaction{}, bot.WriteAllowed, nil
	}
	if s.breaks.writeIgnoresReaders {
		// Only an answer already withdrawn is stopped, as before issue 29.
		rec, err := s.Store.LoadAnswer(ctx, answerID)
		if err != nil {
			return bot.Redaction{}, bot.WriteAllowed, err
		}
		if rec.Redaction != bot.RedactionAudience {
			return bot.Redaction{}, bot.WriteAllowed, nil
		}
		return bot.Redaction{AnswerID: answerID, Conversation: rec.Conversation, ReplyRef: rec.ReplyRef, Lang: rec.Lang}, bot.WriteWithdrawn, nil
	}
	return s.Store.CheckWrite(ctx, answerID)
}

// AnswerWritten is the statement after every write. The write-check break never reports a
// withdrawal that landed during the write; a dropped record has none.
func (s *faultStore) AnswerWritten(ctx context.Context, answerID int64) (bot.Redaction, bool, error) {
	if s.breaks.skipWriteCheck || answerID >= droppedID {
		return bot.Redaction{}, false, nil
	}
	return s.Store.AnswerWritten(ctx, answerID)
}

func (s *faultStore) dropsRecord(conv bot.ConversationKey) bool {
	return s.breaks.recordDropped && conv.Platform == "slack" && strings.HasPrefix(conv.Channel, "C")
}
