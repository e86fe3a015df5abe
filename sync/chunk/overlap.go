package chunk

import "strings"

// overlapTail returns the tail of a finished piece's content (total tokens) to repeat at the start of
// the next piece of the same section: between ratio*5/6 and ratio*5/4 of total (10-15% for the
// default 0.12). It prefers the longest such tail that starts a sentence or a line, else the tail
// starting at the word boundary closest to ratio. It never reaches before floor (the end of the last
// table or code block in the piece) and returns "" when no tail fits the window.
//
// It walks backwards from the end and stops past the window, so it reads only the tail.
func overlapTail(content string, floor, total int, ratio float64) string {
	if ratio <= 0 || total <= 0 {
		return ""
	}
	low, high, want := ratio*5/6*float64(total), ratio*5/4*float64(total), ratio*float64(total)
	sentenceStart, wordStart := -1, -1
	bestDiff := 0.0
	suffix, counted := 0, len(content) // CountTokens(content[counted:]) == suffix
	for i := len(content) - 1; i >= max(floor, 1); i-- {
		if isASCIISpace(content[i]) || !isASCIISpace(content[i-1]) {
			continue
		}
		// i starts a word after whitespace, so counts add up across it.
		suffix += CountTokens(content[i:counted])
		counted = i
		s := float64(suffix)
		if s > high {
			break
		}
		if suffix < 1 || s < low {
			continue
		}
		spaceStart := strings.LastIndexFunc(content[:i], func(r rune) bool { return r >= 0x80 || !isASCIISpace(byte(r)) }) + 1
		if strings.IndexByte(content[spaceStart:i], '\n') >= 0 || endsSentence(content[:spaceStart]) {
			sentenceStart = i // the last found walking back is the longest
		}
		if diff := abs(s - want); wordStart < 0 || diff < bestDiff {
			wordStart, bestDiff = i, diff
		}
	}
	switch {
	case sentenceStart >= 0:
		return content[sentenceStart:]
	case wordStart >= 0:
		return content[wordStart:]
	}
	return ""
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
