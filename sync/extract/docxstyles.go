package extract

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// docxStyle is what a paragraph style contributes: its name, parent, outline level and numbering.
type docxStyle struct {
	name    string
	basedOn string
	outline int // 0-8 for heading levels 1-9; -1 when unset
	numID   string
	ilvl    int
}

var headingStyleName = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

// readDocxStyles maps style ids to styles from word/styles.xml.
func readDocxStyles(data []byte) (map[string]docxStyle, error) {
	styles := map[string]docxStyle{}
	var id string
	var cur docxStyle
	err := xmlTokens("word/styles.xml", data, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id, cur = xmlAttr(t, "styleId"), docxStyle{outline: -1}
			case "name":
				cur.name = xmlAttr(t, "val")
			case "basedOn":
				cur.basedOn = xmlAttr(t, "val")
			case "outlineLvl":
				cur.outline = xmlIntAttr(t, "val", -1)
			case "numId":
				cur.numID = xmlAttr(t, "val")
			case "ilvl":
				cur.ilvl = xmlIntAttr(t, "val", 0)
			}
		case xml.EndElement:
			if t.Name.Local == "style" && id != "" {
				styles[id] = cur
				id = ""
			}
		}
		return nil
	})
	return styles, err
}

// docxHeadingLevel returns 1-9 for a heading style, 0 for body text and -1 for the Title style,
// following basedOn links.
func docxHeadingLevel(styles map[string]docxStyle, styleID string) int {
	for depth := 0; styleID != "" && depth < 10; depth++ {
		style, ok := styles[styleID]
		name := style.name
		if !ok {
			name = styleID // no styles.xml: ids like "Heading1" still tell
		}
		if m := headingStyleName.FindStringSubmatch(strings.ReplaceAll(name, " ", "")); m != nil {
			return int(m[1][0] - '0')
		}
		if strings.EqualFold(name, "title") {
			return -1
		}
		if style.outline >= 0 && style.outline < 9 {
			return style.outline + 1
		}
		styleID = style.basedOn
	}
	return 0
}

// docxStyleNumbering returns the numbering a paragraph style applies, following basedOn links.
func docxStyleNumbering(styles map[string]docxStyle, styleID string) (numID string, ilvl int) {
	for depth := 0; styleID != "" && depth < 10; depth++ {
		style := styles[styleID]
		if style.numID != "" {
			return style.numID, style.ilvl
		}
		styleID = style.basedOn
	}
	return "", 0
}

// docxNumbering renders list labels ("1.", "1.2.", "a)") the way Word counts them.
type docxNumbering struct {
	numToAbstract map[string]string
	levels        map[string]map[int]numberingLevel // abstractNumId -> ilvl -> level
	counters      map[string][]int                  // numId -> counter per level
}

type numberingLevel struct {
	format string // decimal, bullet, lowerLetter, upperRoman, ...
	text   string // "%1.%2."
	start  int
}

func readDocxNumbering(data []byte) (*docxNumbering, error) {
	n := &docxNumbering{numToAbstract: map[string]string{}, levels: map[string]map[int]numberingLevel{}, counters: map[string][]int{}}
	var abstractID, numID string
	ilvl := -1
	var level numberingLevel
	err := xmlTokens("word/numbering.xml", data, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "abstractNum":
				abstractID, numID = xmlAttr(t, "abstractNumId"), ""
				n.levels[abstractID] = map[int]numberingLevel{}
			case "num":
				numID = xmlAttr(t, "numId")
			case "abstractNumId":
				if numID != "" {
					n.numToAbstract[numID] = xmlAttr(t, "val")
				}
			case "lvl":
				ilvl, level = xmlIntAttr(t, "ilvl", 0), numberingLevel{start: 1, format: "decimal"}
			case "start":
				level.start = xmlIntAttr(t, "val", 1)
			case "numFmt":
				level.format = xmlAttr(t, "val")
			case "lvlText":
				level.text = xmlAttr(t, "val")
			}
		case xml.EndElement:
			if t.Name.Local == "lvl" && ilvl >= 0 && numID == "" && n.levels[abstractID] != nil {
				n.levels[abstractID][ilvl] = level
				ilvl = -1
			}
		}
		return nil
	})
	return n, err
}

// label advances the counter of (numID, ilvl), restarts deeper levels and returns the rendered
// label; "" for bullets and unknown lists.
func (n *docxNumbering) label(numID string, ilvl int) string {
	if n == nil || ilvl < 0 || ilvl > 8 {
		return ""
	}
	levels := n.levels[n.numToAbstract[numID]]
	level, ok := levels[ilvl]
	if !ok || level.format == "bullet" || level.format == "none" {
		return ""
	}
	counters := n.counters[numID]
	if len(counters) < 9 {
		counters = make([]int, 9)
	}
	if counters[ilvl] == 0 {
		counters[ilvl] = level.start
	} else {
		counters[ilvl]++
	}
	for deeper := ilvl + 1; deeper < len(counters); deeper++ {
		counters[deeper] = 0
	}
	n.counters[numID] = counters
	text := level.text
	for k := 8; k >= 0; k-- { // %9 before %1 so "%1" does not eat "%10"-like text
		placeholder := "%" + strconv.Itoa(k+1)
		if !strings.Contains(text, placeholder) {
			continue
		}
		value := counters[k]
		if value == 0 {
			value = max(levels[k].start, 1)
		}
		text = strings.ReplaceAll(text, placeholder, formatNumber(value, levels[k].format))
	}
	return strings.TrimSpace(text)
}

func formatNumber(v int, format string) string {
	switch format {
	case "lowerLetter":
		return strings.ToLower(letters(v))
	case "upperLetter":
		return letters(v)
	case "lowerRoman":
		return strings.ToLower(roman(v))
	case "upperRoman":
		return roman(v)
	case "decimalZero":
		return fmt.Sprintf("%02d", v)
	default:
		return strconv.Itoa(v)
	}
}

// letters renders 1 -> A, 26 -> Z, 27 -> AA as Word does.
func letters(v int) string {
	if v < 1 {
		return strconv.Itoa(v)
	}
	letter := string(rune('A' + (v-1)%26))
	return strings.Repeat(letter, (v-1)/26+1)
}

func roman(v int) string {
	if v < 1 || v > 3999 {
		return strconv.Itoa(v)
	}
	values := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	symbols := []string{"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"}
	var sb strings.Builder
	for i, val := range values {
		for v >= val {
			sb.WriteString(symbols[i])
			v -= val
		}
	}
	return sb.String()
}
