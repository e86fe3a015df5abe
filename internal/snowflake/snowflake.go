// Package snowflake checks Discord ids. It imports nothing, so that both the configuration and
// the Discord adapter (which may not import config) check an id the same way.
package snowflake

// Valid reports whether s is a Discord id: 1-20 decimal digits.
func Valid(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
