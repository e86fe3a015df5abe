package gdrive

import (
	"errors"
	"fmt"
	"slices"
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

// groups returns the groups of a file's permissions. When none maps to a group it returns an
// error saying why: the indexer then withholds the file (readable by nobody) rather than index
// it, or keep an earlier, wider list of groups. A permission of a kind it does not know gives no
// group.
func (m groupMapper) groups(perms []*drive.Permission) ([]string, error) {
	var out, unmapped []string
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
		default:
			// A kind of sharing this mapping does not know reads as nobody.
		}
		if g == "" {
			unmapped = append(unmapped, p.Type)
			continue
		}
		if alias, ok := m.aliases[g]; ok {
			g = alias
		}
		out = append(out, g)
	}
	if len(out) > 0 {
		return out, nil
	}
	if len(unmapped) == 0 {
		return nil, errors.New("no permission of the file is visible (the account may have lost its sharing rights on it)")
	}
	slices.Sort(unmapped)
	hint := ""
	if slices.Contains(unmapped, "anyone") && m.anyone == "" {
		hint = "; set gdrive.anyone_group to give link-shared files a group"
	}
	return nil, fmt.Errorf("no permission maps to an access group (permission types: %s)%s", strings.Join(slices.Compact(unmapped), ", "), hint)
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
