package extract

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
)

func init() {
	register(extractODT, ".odt")
	register(extractODS, ".ods")
}

// extractODT walks content.xml: text:h by outline level starts sections, text:p paragraphs,
// text:list items by depth (numbered per their list style), table:table with the first row as
// header. Title, author and date come from meta.xml.
func extractODT(ctx context.Context, _ string, data []byte, limits Limits) (*Document, error) {
	return extractODF(ctx, data, limits, false)
}

// extractODS returns one section per sheet (Path [sheet], Locator "sheet <name>") with a
// records table, like XLSX.
func extractODS(ctx context.Context, _ string, data []byte, limits Limits) (*Document, error) {
	return extractODF(ctx, data, limits, true)
}

func extractODF(ctx context.Context, data []byte, limits Limits, spreadsheet bool) (*Document, error) {
	z, err := openSafeZip(data, limits)
	if err != nil {
		return nil, err
	}
	if manifest, err := z.readOptional("META-INF/manifest.xml"); err != nil {
		return nil, err
	} else if bytes.Contains(manifest, []byte("encryption-data")) {
		return nil, fmt.Errorf("%w: encrypted OpenDocument", ErrEncrypted)
	}
	content, err := z.readMember("content.xml")
	if err != nil {
		return nil, err
	}
	var props coreProperties
	if meta, err := z.readOptional("meta.xml"); err != nil {
		return nil, err
	} else if meta != nil {
		if props, err = readCoreProperties("meta.xml", meta); err != nil {
			return nil, err
		}
	}
	listStyles := odfListStyles{}
	if styles, err := z.readOptional("styles.xml"); err != nil {
		return nil, err
	} else if styles != nil {
		if err := listStyles.read("styles.xml", styles); err != nil {
			return nil, err
		}
	}
	if err := listStyles.read("content.xml", content); err != nil {
		return nil, err
	}
	w := &odfWalker{xmlWalk: xmlWalk{ctx: ctx}, b: newSectionBuilder(props.Title), listStyles: listStyles, spreadsheet: spreadsheet}
	if err := xmlTokens("content.xml", content, w.token); err != nil {
		return nil, err
	}
	return &Document{Title: w.b.title, Author: props.Author, Modified: parseDate(props.Modified), Sections: w.b.sections}, nil
}

// odfListStyles maps a list style name to its levels' number formats ("" for bullets).
type odfListStyles map[string]map[int]odfListLevel

type odfListLevel struct {
	format, prefix, suffix string
}

func (s odfListStyles) read(part string, data []byte) error {
	var current string
	return xmlTokens(part, data, func(_ *xml.Decoder, tok xml.Token) error {
		se, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch se.Name.Local {
		case "list-style":
			current = xmlAttr(se, "name")
			s[current] = map[int]odfListLevel{}
		case "list-level-style-number":
			if s[current] != nil {
				s[current][xmlIntAttr(se, "level", 1)] = odfListLevel{format: xmlAttr(se, "num-format"), prefix: xmlAttr(se, "num-prefix"), suffix: xmlAttr(se, "num-suffix")}
			}
		}
		return nil
	})
}

// label renders the item's number at depth (1-based) from counters; "" for bullets.
func (s odfListStyles) label(style string, depth int, counters []int) string {
	level, ok := s[style][depth]
	if !ok || level.format == "" {
		return ""
	}
	format := map[string]string{"1": "decimal", "a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}[level.format]
	return level.prefix + formatNumber(counters[depth-1], format) + level.suffix
}
