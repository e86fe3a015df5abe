package config

import (
	"testing"
)

func TestSlackConfigValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     SlackConfig
		wantErr []string // substrings; none means valid
	}{
		{"off", SlackConfig{}, nil},
		{"socket", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1"}, nil},
		{"http", SlackConfig{BotToken: "xoxb-1", Mode: "http", SigningSecret: "s", APIURL: "http://127.0.0.1:9/api/"}, nil},
		{"socket without app token", SlackConfig{BotToken: "xoxb-1"}, []string{"slack.app_token"}},
		{"http without secret", SlackConfig{BotToken: "xoxb-1", Mode: "http"}, []string{"slack.signing_secret"}},
		{"user token", SlackConfig{BotToken: "xoxp-1", AppToken: "xapp-1"}, []string{"slack.bot_token"}},
		{"api url without slash", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", APIURL: "https://slack-gov.com/api"}, []string{`must end with "/"`}},
		{"bad mode and path", SlackConfig{BotToken: "xoxb-1", Mode: "webhook", Path: "slack"}, []string{"slack.mode", "slack.path"}},
		{"empty mapping", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", Domains: map[string][]string{"example.com": nil}}, []string{`slack.domains["example.com"]`}},
		{"pinned channels", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", ChannelGroups: map[string][]string{"C0PEOPLE": {"hr"}, "#people-ops": {"hr"}, "G0LEGACY1": {"eng"}}}, nil},
		{"pinned channel without groups", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", ChannelGroups: map[string][]string{"#people-ops": {}}}, []string{`slack.channel_groups["#people-ops"]: list at least one group`}},
		{"pinned channel with a blank group", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", ChannelGroups: map[string][]string{"C0PEOPLE": {" "}}}, []string{`slack.channel_groups["C0PEOPLE"]`}},
		{"pinned channel by a bare name", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", ChannelGroups: map[string][]string{"people-ops": {"hr"}}}, []string{`slack.channel_groups["people-ops"]: use a channel id`}},
		{"pinned DM", SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1", ChannelGroups: map[string][]string{"D0123": {"hr"}, "#": {"hr"}}}, []string{`slack.channel_groups["D0123"]`, `slack.channel_groups["#"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkErr(t, tt.cfg.Validate(), tt.wantErr...)
		})
	}
}

func TestSlackConfigEnvAndDefaults(t *testing.T) {
	t.Setenv("SLACK_BOT_TOKEN", "xoxb-env")
	t.Setenv("SLACK_APP_TOKEN", "xapp-env")
	s := SlackConfig{AppToken: "xapp-file"}
	s.ApplyEnv()
	if s.BotToken != "xoxb-env" || s.AppToken != "xapp-file" {
		t.Fatalf("ApplyEnv: %+v (the file's value must win)", s)
	}
	d := s.WithDefaults()
	if d.Mode != "socket" || d.APIURL != "https://slack.com/api/" || d.Path != "/slack" || len(d.DefaultGroups) != 1 {
		t.Fatalf("defaults: %+v", d)
	}
}
