package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/citahq/cita/rag"
)

// TestGroupNamesAtLoad is part of the regression test of issue 12, finding 7: group names were
// never validated, so "a,b" in a configuration became one group whose key collided with the
// scope {a, b}. Every place the configuration names groups now refuses an invalid name, naming
// the field and the group.
func TestGroupNamesAtLoad(t *testing.T) {
	t.Parallel()
	bad := []string{"hr", "a,b"}
	slack := SlackConfig{BotToken: "xoxb-1", AppToken: "xapp-1"}
	discord := DiscordConfig{Token: "t", ApplicationID: "123"}
	cases := []struct {
		name  string
		check func() error
		want  string
	}{
		{"access default", func() error { return (&AccessRules{DefaultGroups: bad}).Compile() }, `default_groups: invalid access group name "a,b"`},
		{"access rule", func() error {
			return (&AccessRules{Rules: []AccessRule{{Match: "hr/**", Groups: []string{"h r"}}}}).Compile()
		}, `access rule 1 (hr/**): invalid access group name "h r"`},
		{"slack emails", func() error {
			s := slack
			s.Emails = map[string][]string{"cfo@example.com": {"finance;board"}}
			return s.Validate()
		}, `slack.emails["cfo@example.com"]: invalid access group name "finance;board"`},
		{"slack default", func() error { s := slack; s.DefaultGroups = bad; return s.Validate() }, `slack.default_groups: invalid access group name "a,b"`},
		{"discord roles", func() error {
			d := discord
			d.RoleGroups = map[string][]string{"Staff": {"staff", "ventas-españa"}}
			return d.Validate()
		}, `discord.role_groups["Staff"]: invalid access group name "ventas-españa"`},
		{"discord channels", func() error {
			d := discord
			d.ChannelGroups = map[string][]string{"42": {"a,b"}}
			return d.Validate()
		}, `discord.channel_groups["42"]: invalid access group name "a,b"`},
		{"gdrive alias", func() error {
			return ValidateSources([]SourceConfig{{Name: "d", Type: "gdrive", GDrive: GDriveSource{TokenFile: "t",
				GroupAliases: map[string]string{"eng@example.com": "eng team"}}}})
		}, `gdrive.group_aliases["eng@example.com"]: invalid access group name "eng team"`},
		{"gdrive anyone", func() error {
			return ValidateSources([]SourceConfig{{Name: "d", Type: "gdrive", GDrive: GDriveSource{TokenFile: "t", AnyoneGroup: "any one"}}})
		}, `gdrive.anyone_group: invalid access group name "any one"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// TestGroupRuleMatchesRag keeps config's copy of the group-name rule (config imports nothing of
// cita's) equal to rag.ValidateGroup, the rule scopes, documents and the database apply.
func TestGroupRuleMatchesRag(t *testing.T) {
	t.Parallel()
	names := []string{"everyone", "HR", " eng ", "alice@example.com", "domain:example.com", "o'brien@x.io", "a+b@c.d",
		"a,b", "a b", "ñ", "", " ", "a;b", "x\x00", `"q"`, "a/b", "a=b", "a#b", strings.Repeat("y", 256), strings.Repeat("y", 257)}
	for c := 0; c < 256; c++ {
		names = append(names, "g"+string(rune(c)))
	}
	for _, n := range names {
		ours, theirs := checkGroup(n), rag.ValidateGroup(n)
		if (ours == nil) != (theirs == nil) || (theirs != nil && !errors.Is(theirs, rag.ErrInvalidGroup)) {
			t.Errorf("%q: config says %v, rag says %v", n, ours, theirs)
		}
	}
}

func TestRetentionAndIdentityValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  Config
		want string // "" for valid
	}{
		{"defaults", Config{}, ""},
		{"retention too short", Config{Retention: RetentionConfig{Answers: time.Minute}}, "retention.answers: 1m0s is out of range"},
		{"retention negative", Config{Retention: RetentionConfig{Answers: -time.Hour}}, "retention.answers"},
		{"google groups without credentials", Config{Identity: IdentityConfig{GoogleGroups: GoogleGroupsConfig{Enabled: true}}}, "give exactly one of credentials_file"},
		{"service account without subject", Config{Identity: IdentityConfig{GoogleGroups: GoogleGroupsConfig{Enabled: true, CredentialsFile: "sa.json"}}}, "google_groups.subject: required"},
		{"refresh too often", Config{Identity: IdentityConfig{GoogleGroups: GoogleGroupsConfig{Enabled: true, TokenFile: "t.json", Refresh: time.Minute}}}, "google_groups.refresh: 1m0s is out of range"},
		{"max age below refresh", Config{Identity: IdentityConfig{GoogleGroups: GoogleGroupsConfig{Enabled: true, TokenFile: "t.json", Refresh: 12 * time.Hour, MaxAge: time.Hour}}}, "google_groups.max_age"},
		{"google groups valid", Config{Identity: IdentityConfig{EmailGroups: true, GoogleGroups: GoogleGroupsConfig{Enabled: true, CredentialsFile: "sa.json", Subject: "admin@example.com"}}}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg
			cfg.applyDefaults()
			err := cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("valid configuration refused: %v", err)
				}
				if cfg.Retention.Answers != DefaultAnswerRetention {
					t.Errorf("retention default %s", cfg.Retention.Answers)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}
