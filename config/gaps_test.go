package config

import "testing"

func TestGapsConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, yaml     string
		follow, digest bool
		err            string
	}{
		{"unset", "", true, false, ""},
		{"follow-through off", "gaps:\n  follow_through: false\n", false, false, ""},
		{"threshold", "gaps:\n  topic_threshold: 0.4\n", true, false, ""},
		{"threshold out of range", "gaps:\n  topic_threshold: 1.5\n", true, false, "gaps.topic_threshold"},
		{"digest", "gaps:\n  digest:\n    schedule: \"0 9 * * MON\"\n    slack_channel: C1\n", true, true, ""},
		{"digest without a channel", "gaps:\n  digest:\n    schedule: \"0 9 * * MON\"\n", true, true, "slack_channel or discord_channel"},
		{"digest with a bad schedule", "gaps:\n  digest:\n    schedule: \"every monday\"\n    discord_channel: \"1\"\n", true, true, "gaps.digest.schedule"},
		{"channel without a schedule", "gaps:\n  digest:\n    slack_channel: C1\n", true, false, "no schedule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(writeTemp(t, c.yaml))
			checkErr(t, err, nonEmpty(c.err)...)
			if err != nil {
				return
			}
			if cfg.Gaps.FollowThroughOn() != c.follow || cfg.Gaps.DigestOn() != c.digest {
				t.Errorf("follow-through %v, digest %v; want %v, %v", cfg.Gaps.FollowThroughOn(), cfg.Gaps.DigestOn(), c.follow, c.digest)
			}
		})
	}
}
