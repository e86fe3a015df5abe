package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/robfig/cron/v3"
)

// GapsConfig tunes the gap record (docs/gaps.md): questions cita declined, hedged or that were
// rated 👎, grouped by topic for the document owners.
//
//	gaps:
//	  topic_threshold: 0.25   # how alike two questions must be to be one topic (0.05-0.95)
//	  follow_through: true     # after a sync, re-ask open gaps and answer their threads (default)
//	  digest:                  # off unless a schedule is set
//	    schedule: "0 9 * * MON"
//	    slack_channel: C0123456789      # post the digest here (a channel the owners read)
//	    discord_channel: "112233445566" # and/or here
type GapsConfig struct {
	TopicThreshold float64    `yaml:"topic_threshold"`
	FollowThrough  *bool      `yaml:"follow_through"`
	Digest         GapsDigest `yaml:"digest"`
}

// GapsDigest posts the gap report on a schedule; off unless Schedule is set.
type GapsDigest struct {
	Schedule string `yaml:"schedule"`
	// The channels it goes to. Its reader is each channel's audience, resolved when it is
	// posted: only documents everyone there may read are named, and only that workspace's
	// questions are listed.
	SlackChannel   string `yaml:"slack_channel"`
	DiscordChannel string `yaml:"discord_channel"`
}

// FollowThroughOn reports whether gaps are re-asked after syncs (default on).
func (c GapsConfig) FollowThroughOn() bool { return c.FollowThrough == nil || *c.FollowThrough }

// DigestOn reports whether a digest is scheduled.
func (c GapsConfig) DigestOn() bool { return strings.TrimSpace(c.Digest.Schedule) != "" }

func (c GapsConfig) validate() []error {
	var errs []error
	if t := c.TopicThreshold; t != 0 && (t < 0.05 || t > 0.95) {
		errs = append(errs, fmt.Errorf("gaps.topic_threshold: %g is out of range; use 0.05-0.95 (default 0.25)", t))
	}
	if !c.DigestOn() {
		if c.Digest.SlackChannel != "" || c.Digest.DiscordChannel != "" {
			errs = append(errs, errors.New("gaps.digest: a channel is set but no schedule; add gaps.digest.schedule (e.g. \"0 9 * * MON\")"))
		}
		return errs
	}
	if _, err := cron.ParseStandard(c.Digest.Schedule); err != nil {
		errs = append(errs, fmt.Errorf("gaps.digest.schedule: %q: %w (five fields, e.g. \"0 9 * * MON\")", c.Digest.Schedule, err))
	}
	if c.Digest.SlackChannel == "" && c.Digest.DiscordChannel == "" {
		errs = append(errs, errors.New("gaps.digest: set slack_channel or discord_channel to post the digest to"))
	}
	return errs
}
