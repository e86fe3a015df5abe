package gdrive

import (
	"strings"

	"google.golang.org/api/drive/v3"

	"github.com/citahq/cita/rag"
)

// groupMapper turns Drive permissions into access groups: user and group emails become groups
// as they are (lower-cased, rag.EmailGroup), a domain permission becomes "domain:<domain>"
// (rag.DomainGroup): the names identity groups give chat users. "Anyone with the link" becomes
// the configured group or nothing. Aliases rename any of these.
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
			if strings.TrimSpace(p.EmailAddress) != "" {
				g = identityGroup(rag.EmailGroup, p.EmailAddress)
			}
		case "domain":
			if p.Domain != "" {
				g = identityGroup(rag.DomainGroup, p.Domain)
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

// identityGroup returns the group name canon gives raw, or raw itself when it is not a valid
// name: the indexer then refuses the file with rag.ErrInvalidGroup naming it (its access cannot
// be resolved), instead of the permission being dropped silently.
func identityGroup(canon func(string) (string, error), raw string) string {
	if g, err := canon(raw); err == nil {
		return g
	}
	return raw
}
