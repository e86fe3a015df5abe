package bot

import (
	"time"

	"github.com/citahq/cita/rag"
)

// maxTopHits bounds the hits kept for the "how I answered" view.
const maxTopHits = 8

// newAnswerRecord builds the record of an answer given to in.
func newAnswerRecord(in Incoming, ans *rag.Answer, reason Reason, text, lang string, total time.Duration) *AnswerRecord {
	rec := &AnswerRecord{
		Conversation:      in.Conversation,
		AskerID:           in.UserID,
		Question:          in.Text,
		StandaloneQuery:   ans.StandaloneQuery,
		Text:              text,
		ScopeGroups:       in.Scope.Groups(),
		Abstained:         ans.Abstained,
		AbstainReason:     ans.AbstainReason,
		Hedged:            ans.Hedged,
		HedgeReason:       ans.HedgeReason,
		MinEvidence:       ans.Threshold,
		ConfidentEvidence: ans.ConfidentThreshold,
		Reason:            reason,
		Evidence:          ans.Evidence,
		Timings:           ans.Timings,
		Total:             total,
		Model:             ans.Usage.Model,
		PromptTokens:      ans.Usage.PromptTokens,
		CompletionTokens:  ans.Usage.CompletionTokens,
		Dropped:           ans.Dropped,
		Cached:            ans.Cached,
		Steps:             ans.Steps,
		Lang:              lang,
		ReplyRef:          in.ReplyRef,
	}
	if in.Ephemeral || in.Audience == AudiencePrivate {
		rec.VisibleTo = in.UserID
	}
	rec.Ephemeral = in.Ephemeral
	rec.Public = in.Public && !in.Ephemeral
	for _, s := range ans.Sources {
		rec.Sources = append(rec.Sources, sourceRef(s.N, s.Hit))
	}
	rec.Consulted = rec.Sources
	if ans.Search != nil {
		// The search arms' own timings sit beside the pipeline's stages: "search.fts", ...
		if len(ans.Search.Trace.Timings) > 0 {
			timings := make(map[string]time.Duration, len(ans.Timings)+len(ans.Search.Trace.Timings))
			for k, v := range ans.Timings {
				timings[k] = v
			}
			for k, v := range ans.Search.Trace.Timings {
				timings["search."+k] = v
			}
			rec.Timings = timings
		}
		cited := map[int64]bool{}
		for _, s := range ans.Sources {
			cited[s.ChunkID] = true
		}
		for i, h := range ans.Search.Hits {
			if i == maxTopHits {
				break
			}
			ref := HitRef{Score: h.Score, FTSRank: h.ArmRank[rag.ArmFTS], VectorRank: h.ArmRank[rag.ArmVector]}
			if cited[h.ChunkID] {
				// Only a cited passage is named: whoever may see the answer may read it.
				ref.Cited, ref.ChunkID, ref.DocumentID, ref.Title, ref.Heading, ref.Path = true, h.ChunkID, h.DocumentID, h.Title, h.Heading, h.Path
			}
			rec.TopHits = append(rec.TopHits, ref)
		}
		// An abstention may name the top hit's owner: that document reached the reply too.
		if len(rec.Sources) == 0 && len(ans.Search.Hits) > 0 {
			rec.Consulted = []SourceRef{sourceRef(0, ans.Search.Hits[0])}
		}
	} else if ans.Cached {
		// No search ran: the cached answer's cited sources keep their ranks and scores from the
		// search that first answered it, which is what "how I answered" can show.
		for _, s := range ans.Sources {
			rec.TopHits = append(rec.TopHits, HitRef{Cited: true, ChunkID: s.ChunkID, DocumentID: s.DocumentID, Title: s.Title,
				Heading: s.Heading, Path: s.Path, Score: s.Score, FTSRank: s.ArmRank[rag.ArmFTS], VectorRank: s.ArmRank[rag.ArmVector]})
		}
	}
	return rec
}

func sourceRef(n int, h rag.Hit) SourceRef {
	return SourceRef{
		N: n, ChunkID: h.ChunkID, DocumentID: h.DocumentID, DocVersion: h.DocVersion,
		Title: h.Title, Section: h.Section, Locator: h.Locator, URL: h.URL, Path: h.Path, UpdatedAt: h.UpdatedAt,
	}
}
