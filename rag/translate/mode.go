package translate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DefaultModesDir is where Debian's apertium packages install their mode files.
const DefaultModesDir = "/usr/share/apertium/modes"

// stage is one program of an Apertium mode's pipeline with its arguments.
type stage struct {
	path string // resolved executable
	args []string
}

// readMode parses an Apertium mode file (a shell pipeline of the pair's programs, e.g.
// spa-eng.mode) into stages that flush after every NUL (-z), so the pipeline can be kept alive
// and fed one query at a time. The generator's "$1" becomes -g (generation keeping the marks of
// unknown words, which Translate drops) and the tagger's "$2" is dropped. It returns an error naming the file or the missing program.
func readMode(modesDir, mode string) ([]stage, error) {
	path := filepath.Join(modesDir, mode+".mode")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("apertium mode %s: %w", mode, err)
	}
	commands := splitPipeline(strings.TrimSpace(string(data)))
	if len(commands) == 0 {
		return nil, fmt.Errorf("apertium mode %s: %s holds no pipeline", mode, path)
	}
	stages := make([]stage, 0, len(commands))
	for _, words := range commands {
		if len(words) == 0 {
			return nil, fmt.Errorf("apertium mode %s: empty command in %s", mode, path)
		}
		exe, err := exec.LookPath(words[0])
		if err != nil {
			return nil, fmt.Errorf("apertium mode %s: program %s: %w", mode, words[0], err)
		}
		args := []string{"-z"}
		for _, w := range words[1:] {
			switch w {
			case "$1":
				args = append(args, "-g")
			case "$2":
			default:
				args = append(args, w)
			}
		}
		stages = append(stages, stage{path: exe, args: args})
	}
	return stages, nil
}

// splitPipeline splits a mode file's shell pipeline into commands and words. Mode files use
// only single quotes, spaces and "|"; that is all it understands.
func splitPipeline(s string) [][]string {
	var out [][]string
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	for _, r := range s {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			word.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '|':
			endWord()
			out = append(out, words)
			words = nil
		case r == ' ' || r == '\t' || r == '\n':
			endWord()
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	endWord()
	return append(out, words)
}
