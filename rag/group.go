package rag

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrInvalidGroup is returned (wrapped, with the offending name) for an access group name outside
// the allowed alphabet. A document whose groups include one has no resolvable access.
var ErrInvalidGroup = errors.New("invalid access group name")

// MaxGroupLen is the longest access group name, in bytes: room for any e-mail address (254)
// and "domain:" with a long domain.
const MaxGroupLen = 256

// GroupAlphabet describes the names ValidateGroup accepts, for error messages and docs. The
// database checks the same rule (migration 0014, cita_valid_groups).
const GroupAlphabet = "1 to 256 characters of a-z, 0-9 and . _ - + ' @ : (lower-cased; e.g. hr, alice@example.com, domain:example.com)"

// ValidateGroup returns nil when name, lower-cased and trimmed as Scope does, is a valid access
// group name: 1 to MaxGroupLen bytes of ASCII letters, digits and . _ - + ' @ :. That admits
// plain names ("everyone", "hr-managers"), e-mail addresses of users and groups
// ("o'brien@example.com") and "domain:example.com", and refuses separators (",", ";",
// whitespace), quotes, control and non-ASCII characters (look-alike letters). Otherwise it
// returns an error wrapping ErrInvalidGroup that names the group.
func ValidateGroup(name string) error {
	g := normalizeGroup(name)
	if g == "" || len(g) > MaxGroupLen {
		return fmt.Errorf("%w %q: use %s", ErrInvalidGroup, name, GroupAlphabet)
	}
	for i := 0; i < len(g); i++ {
		if !groupByte(g[i]) {
			return fmt.Errorf("%w %q: use %s", ErrInvalidGroup, name, GroupAlphabet)
		}
	}
	return nil
}

func groupByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("._-+'@:", c) >= 0
}

// CleanGroups returns groups normalized (lower-cased, trimmed, sorted, deduplicated, blanks
// dropped) after checking every name with ValidateGroup. It returns an error wrapping
// ErrInvalidGroup for the first invalid name, or ErrNoScope when no group remains.
func CleanGroups(groups []string) ([]string, error) {
	for _, g := range groups {
		if strings.TrimSpace(g) == "" {
			continue
		}
		if err := ValidateGroup(g); err != nil {
			return nil, err
		}
	}
	out := normalizeGroups(groups)
	if len(out) == 0 {
		return nil, ErrNoScope
	}
	return out, nil
}

// EmailGroup returns the access group of an e-mail address, the name the Google Drive connector
// gives a user or group permission and identity groups give a verified address: the address
// lower-cased ("alice@example.com"). It returns an error wrapping ErrInvalidGroup when the
// address is not one local part, "@", and a domain, or falls outside the group alphabet.
func EmailGroup(email string) (string, error) {
	e := normalizeGroup(email)
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") {
		return "", fmt.Errorf("%w %q: not an e-mail address", ErrInvalidGroup, email)
	}
	if err := ValidateGroup(e); err != nil {
		return "", err
	}
	return e, nil
}

// DomainGroup returns the access group of an e-mail domain, "domain:<domain>" lower-cased: what
// a Drive permission for a whole domain becomes. It returns an error wrapping ErrInvalidGroup
// for an empty domain or one outside the group alphabet.
func DomainGroup(domain string) (string, error) {
	d := normalizeGroup(domain)
	if d == "" || strings.ContainsAny(d, "@:") {
		return "", fmt.Errorf("%w %q: not a domain", ErrInvalidGroup, domain)
	}
	g := "domain:" + d
	if err := ValidateGroup(g); err != nil {
		return "", err
	}
	return g, nil
}

// EmailDomainGroup returns DomainGroup of an e-mail address's domain, with EmailGroup's errors.
func EmailDomainGroup(email string) (string, error) {
	e, err := EmailGroup(email)
	if err != nil {
		return "", err
	}
	return DomainGroup(e[strings.LastIndexByte(e, '@')+1:])
}

// scopeKey is the text form of sorted groups used in keys: each name length-prefixed
// ("3:eng;8:everyone"), so no two different lists encode alike whatever the names hold.
func scopeKey(groups []string) string {
	var b strings.Builder
	for i, g := range groups {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%d:%s", len(g), g)
	}
	return b.String()
}

// ScopeKeyGroups returns the groups of a Scope.Key ("3:eng;8:everyone" is eng and everyone).
// It returns an error for text that is not such a key.
func ScopeKeyGroups(key string) ([]string, error) {
	var out []string
	for rest := key; rest != ""; {
		n, after, ok := strings.Cut(rest, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size < 0 || size > len(after) {
			return nil, fmt.Errorf("scope key %q: bad length prefix", key)
		}
		out = append(out, after[:size])
		rest = after[size:]
		if rest != "" {
			if rest[0] != ';' {
				return nil, fmt.Errorf("scope key %q: want ; between groups", key)
			}
			rest = rest[1:]
			if rest == "" {
				return nil, fmt.Errorf("scope key %q: ends with ;", key)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("scope key %q: no group", key)
	}
	return out, nil
}
