package config

import (
	"strings"
	"testing"
)

// TestDisclaimers loads slack.disclaimer and discord.disclaimer: one line of at most 300
// characters, or nothing.
func TestDisclaimers(t *testing.T) {
	t.Parallel()
	const slack = "slack:\n  bot_token: xoxb-1\n  app_token: xapp-1\n  disclaimer: %s\n"
	const discord = "discord:\n  token: t\n  application_id: \"123\"\n  guild_ids: [\"5\"]\n  disclaimer: %s\n"
	long := strings.Repeat("é", MaxDisclaimerChars+1)
	for _, tc := range []struct {
		name, yaml, want string
		err              []string
	}{
		{name: "slack", yaml: strings.Replace(slack, "%s", `"Generated from our handbook: check the source."`, 1), want: "Generated from our handbook: check the source."},
		{name: "discord", yaml: strings.Replace(discord, "%s", `"Generado a partir del manual."`, 1), want: "Generado a partir del manual."},
		{name: "at the limit", yaml: strings.Replace(slack, "%s", strings.Repeat("é", MaxDisclaimerChars), 1), want: strings.Repeat("é", MaxDisclaimerChars)},
		{name: "too long", yaml: strings.Replace(slack, "%s", long, 1), err: []string{"slack.disclaimer", "301 characters", "at most 300"}},
		{name: "two lines", yaml: strings.Replace(discord, "%s", `"one\ntwo"`, 1), err: []string{"discord.disclaimer", "one line"}},
		{name: "blank", yaml: strings.Replace(slack, "%s", `"   "`, 1), err: []string{"slack.disclaimer", "blank"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(writeTemp(t, tc.yaml))
			checkErr(t, err, tc.err...)
			if err != nil {
				return
			}
			if got := cfg.Slack.Disclaimer + cfg.Discord.Disclaimer; got != tc.want {
				t.Errorf("disclaimer %q, want %q", got, tc.want)
			}
		})
	}
}
