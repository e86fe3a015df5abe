package main

import (
	"flag"
	"io"
	"slices"
	"testing"
)

func TestParseFlagsAcceptsFlagsOnEitherSideOfArguments(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		args       []string
		groups     string
		json       bool
		positional []string
	}{
		{"flags first", []string{"--groups", "hr", "--json", "./docs"}, "hr", true, []string{"./docs"}},
		{"flags after", []string{"./docs", "--groups", "hr", "--json"}, "hr", true, []string{"./docs"}},
		{"flags between", []string{"how", "--groups=hr", "many", "-json", "days?"}, "hr", true, []string{"how", "many", "days?"}},
		{"terminator keeps dashes", []string{"--groups", "hr", "--", "-x", "--json"}, "hr", false, []string{"-x", "--json"}},
		{"no flags", []string{"a", "b"}, "", false, []string{"a", "b"}},
		{"no arguments", nil, "", false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			groups := fs.String("groups", "", "")
			asJSON := fs.Bool("json", false, "")
			if err := parseFlags(fs, c.args); err != nil {
				t.Fatalf("parseFlags(%q): %v", c.args, err)
			}
			if *groups != c.groups || *asJSON != c.json {
				t.Errorf("groups=%q json=%v, want %q %v", *groups, *asJSON, c.groups, c.json)
			}
			if got := fs.Args(); !slices.Equal(got, c.positional) && !(len(got) == 0 && len(c.positional) == 0) {
				t.Errorf("positional %q, want %q", got, c.positional)
			}
		})
	}
}

func TestParseFlagsRejectsUnknownFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("groups", "", "")
	if err := parseFlags(fs, []string{"./docs", "--grups", "hr"}); err == nil {
		t.Fatal("an unknown flag after the folder was accepted")
	}
}
