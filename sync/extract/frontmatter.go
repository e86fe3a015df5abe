package extract

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/citahq/cita/rag"
)

// frontMatter is the metadata a Markdown file's YAML header may carry.
type frontMatter struct {
	Title    string
	Author   string
	Modified time.Time
	Validity rag.Validity // valid_from, valid_until, superseded_by, superseded_on, status
}

// splitFrontMatter separates a leading "---" YAML block from the body. Text that starts with
// "---" but is not a closed YAML mapping is left in the body untouched.
func splitFrontMatter(src string) (frontMatter, string) {
	first, rest, ok := strings.Cut(src, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return frontMatter{}, src
	}
	var yamlLines []string
	for {
		line, after, more := strings.Cut(rest, "\n")
		trimmed := strings.TrimRight(line, " \t\r")
		if trimmed == "---" || trimmed == "..." {
			var fields map[string]any
			if err := yaml.Unmarshal([]byte(strings.Join(yamlLines, "\n")), &fields); err != nil {
				return frontMatter{}, src
			}
			return frontMatterFrom(fields), after
		}
		if !more {
			return frontMatter{}, src
		}
		yamlLines = append(yamlLines, line)
		rest = after
	}
}

func frontMatterFrom(fields map[string]any) frontMatter {
	var fm frontMatter
	lookup := func(keys ...string) any {
		for _, k := range keys {
			for fk, v := range fields {
				if strings.EqualFold(fk, k) && v != nil {
					return v
				}
			}
		}
		return nil
	}
	fm.Title = cleanInline(yamlString(lookup("title")))
	fm.Author = cleanInline(yamlString(lookup("owner", "author", "authors", "creator")))
	fm.Modified = yamlTime(lookup("updated", "modified", "last_modified", "lastmod", "last_updated", "date"))
	fm.Validity = validityFrom(lookupIn(fields))
	return fm
}

// yamlString renders a scalar, a list ("Ana, Luis") or a mapping with a name ({name: Ana}).
func yamlString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case []any:
		var parts []string
		for _, item := range v {
			if s := yamlString(item); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		for _, k := range []string{"name", "email"} {
			if s := yamlString(v[k]); s != "" {
				return s
			}
		}
		return ""
	case time.Time:
		return v.Format(time.DateOnly)
	default:
		return fmt.Sprint(v)
	}
}

// dateLayouts are the date forms people write in front matter; day-first wins for slashes, as
// in Spanish usage.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 -07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	time.DateOnly,
	"2006/01/02",
	"02/01/2006",
	"2/1/2006",
	"02-01-2006",
	"02.01.2006",
	"2 January 2006",
	"2 Jan 2006",
	"January 2, 2006",
	"Jan 2, 2006",
	time.RFC1123Z,
	time.RFC1123,
}

func yamlTime(v any) time.Time {
	switch v := v.(type) {
	case time.Time:
		return v
	case string:
		return parseDate(v)
	}
	return time.Time{}
}

// parseDate tries dateLayouts in order and returns the zero time when none fits.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
