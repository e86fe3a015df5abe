package config

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDisclaimerChars bounds slack.disclaimer and discord.disclaimer: one short line.
const MaxDisclaimerChars = 300

// checkDisclaimer validates a platform's disclaimer (field names it): empty (none), or one line
// of at most MaxDisclaimerChars characters with no control characters. A disclaimer only
// changes how a reply is shown, so cmd/cita hands it to the chat adapter, never to the pipeline
// or the answer cache (see docs/configuration.md).
func checkDisclaimer(field, s string) error {
	switch {
	case s == "":
		return nil
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%s: is blank; write the line to show under every answer, or remove it", field)
	case !utf8.ValidString(s):
		return fmt.Errorf("%s: is not valid UTF-8", field)
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return fmt.Errorf("%s: must be one line (no line breaks or control characters)", field)
	case utf8.RuneCountInString(s) > MaxDisclaimerChars:
		return fmt.Errorf("%s: %d characters; keep it to one line of at most %d", field, utf8.RuneCountInString(s), MaxDisclaimerChars)
	}
	return nil
}
