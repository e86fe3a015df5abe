package extract

import (
	"context"
	"encoding/xml"
	"strings"
)

func init() { register(extractDOCX, ".docx", ".docm") }

// extractDOCX walks word/document.xml: heading styles start sections, numbered and bulleted
// paragraphs become list items with Word's labels, tables keep their first row as header.
// Headers, footers, footnotes and comments are left out.
func extractDOCX(ctx context.Context, _ string, data []byte, limits Limits) (*Document, error) {
	z, err := openSafeZip(data, limits)
	if err != nil {
		return nil, err
	}
	body, err := z.readMember("word/document.xml")
	if err != nil {
		return nil, err
	}
	styles := map[string]docxStyle{}
	if raw, err := z.readOptional("word/styles.xml"); err != nil {
		return nil, err
	} else if raw != nil {
		if styles, err = readDocxStyles(raw); err != nil {
			return nil, err
		}
	}
	var numbering *docxNumbering
	if raw, err := z.readOptional("word/numbering.xml"); err != nil {
		return nil, err
	} else if raw != nil {
		if numbering, err = readDocxNumbering(raw); err != nil {
			return nil, err
		}
	}
	props, err := readOOXMLCore(z)
	if err != nil {
		return nil, err
	}
	w := &docxWalker{xmlWalk: xmlWalk{ctx: ctx}, styles: styles, numbering: numbering, b: newSectionBuilder(props.Title)}
	if err := xmlTokens("word/document.xml", body, w.token); err != nil {
		return nil, err
	}
	validity, err := readOOXMLValidity(z)
	if err != nil {
		return nil, err
	}
	return &Document{Title: w.b.title, Author: props.Author, Modified: parseDate(props.Modified), Validity: validity, Sections: w.b.sections}, nil
}

// readOOXMLCore reads docProps/core.xml when present.
func readOOXMLCore(z *safeZip) (coreProperties, error) {
	raw, err := z.readOptional("docProps/core.xml")
	if err != nil || raw == nil {
		return coreProperties{}, err
	}
	return readCoreProperties("docProps/core.xml", raw)
}

type docxWalker struct {
	xmlWalk
	styles    map[string]docxStyle
	numbering *docxNumbering
	b         *sectionBuilder

	paragraphs []*docxParagraph // open paragraphs (a text box nests one inside another)
	tables     tableStack
	inRun      bool
	inText     bool
}

type docxParagraph struct {
	styleID string
	numID   string
	ilvl    int
	outline int
	text    strings.Builder
}

func (w *docxWalker) token(_ *xml.Decoder, tok xml.Token) error {
	return w.dispatch(tok, w.start, w.end, w.chars)
}

func (w *docxWalker) chars(t xml.CharData) {
	if !w.inText {
		return
	}
	if p := w.paragraph(); p != nil {
		p.text.Write(t)
	}
}

func (w *docxWalker) paragraph() *docxParagraph {
	if len(w.paragraphs) == 0 {
		return nil
	}
	return w.paragraphs[len(w.paragraphs)-1]
}

func (w *docxWalker) start(t xml.StartElement) {
	p := w.paragraph()
	switch t.Name.Local {
	case "Fallback", "delText", "instrText", "footnoteReference", "endnoteReference", "commentReference":
		w.skipDepth = 1
	case "p":
		w.paragraphs = append(w.paragraphs, &docxParagraph{outline: -1})
	case "pStyle":
		if p != nil {
			p.styleID = xmlAttr(t, "val")
		}
	case "numId":
		if p != nil {
			p.numID = xmlAttr(t, "val")
		}
	case "ilvl":
		if p != nil {
			p.ilvl = xmlIntAttr(t, "val", 0)
		}
	case "outlineLvl":
		if p != nil {
			p.outline = xmlIntAttr(t, "val", -1)
		}
	case "r":
		w.inRun = true
	case "t":
		w.inText = w.inRun
	case "tab", "ptab":
		w.writeInRun(" ")
	case "br", "cr":
		w.writeInRun("\n")
	case "noBreakHyphen":
		w.writeInRun("-")
	case "tbl":
		w.tables.open()
	case "tr":
		w.tables.startRow()
	case "tc":
		w.tables.startCell(1)
	case "gridSpan":
		if tbl := w.tables.top(); tbl != nil {
			tbl.span = xmlIntAttr(t, "val", 1)
		}
	}
}

func (w *docxWalker) writeInRun(s string) {
	if p := w.paragraph(); p != nil && w.inRun {
		p.text.WriteString(s)
	}
}

func (w *docxWalker) end(t xml.EndElement) {
	switch t.Name.Local {
	case "r":
		w.inRun = false
	case "t":
		w.inText = false
	case "p":
		if p := w.paragraph(); p != nil {
			w.paragraphs = w.paragraphs[:len(w.paragraphs)-1]
			w.emitParagraph(p)
		}
	case "tc":
		w.tables.endCell()
	case "tr":
		w.tables.endRow()
	case "tbl":
		if tbl := w.tables.close(); tbl != nil {
			if outer := w.tables.cell(); outer != nil {
				outer.appendText(tbl.flatText()) // a nested table reads as text in its cell
			} else {
				w.b.add(Block{Kind: TableBlock, Table: tbl.table()})
			}
		}
	}
}

func (w *docxWalker) emitParagraph(p *docxParagraph) {
	text := strings.TrimSpace(p.text.String())
	if text == "" {
		return
	}
	if tbl := w.tables.cell(); tbl != nil {
		tbl.appendText(text)
		return
	}
	if len(w.paragraphs) > 0 { // a text box inside a paragraph: its own paragraph
		w.b.paragraph(text)
		return
	}
	level := docxHeadingLevel(w.styles, p.styleID)
	if p.outline >= 0 && p.outline < 9 {
		level = p.outline + 1
	}
	switch {
	case level == -1: // the Title style: the title, unless the properties already gave it
		if !w.b.setTitle(text) && !strings.EqualFold(cleanInline(text), w.b.title) {
			w.b.paragraph(text)
		}
		return
	case level > 0:
		w.b.heading(level, text)
		return
	}
	numID, ilvl := p.numID, p.ilvl
	if numID == "" {
		numID, ilvl = docxStyleNumbering(w.styles, p.styleID)
	}
	if numID == "" || numID == "0" {
		w.b.paragraph(text)
		return
	}
	if label := w.numbering.label(numID, ilvl); label != "" {
		text = label + " " + text
	}
	w.b.listItem(ilvl, text)
}
