package gdrive

import (
	"strings"

	"google.golang.org/api/drive/v3"
)

// groupMapper turns Drive permissions into access groups: user and group emails become groups
// as they are (lower-cased), a domain permission becomes "domain:<domain>", and "anyone with the
// link" becomes the configured group or nothing. Aliases rename any of these.
type groupMapper struct {
	anyone  string
	aliases map[string]string
}

// groups returns the groups of a file's permissions; nil when none maps to a group (the
// indexer then refuses the file rather than index it without access control).
func (m groupMapper) groups(perms []*drive.Permission) []string {
	var out []string
	for _, p := range perms {
		if p == nil {
			continue
		}
		var g string
		switch p.Type {
		case "user", "group":
			g = strings.ToLower(strings.TrimSpace(p.EmailAddress))
		case "domain":
			if p.Domain != "" {
				g = "domain:" + strings.ToLower(p.Domain)
			}
		case "anyone":
			g = m.anyone
		}
		if g == "" {
			continue
		}
		if alias, ok := m.aliases[g]; ok {
			g = alias
		}
		out = append(out, g)
	}
	return out
}
