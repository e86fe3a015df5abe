package extract

import (
	"encoding/xml"
	"strings"
)

// slideContent is a slide's (or notes page's) title and blocks.
type slideContent struct {
	title  string
	blocks []Block
}

// drawingShape collects one shape's paragraphs while its markup is walked.
type drawingShape struct {
	placeholder string // ph type: title, ctrTitle, body, sldNum, ...; "" for a text box
	hasPh       bool
	paragraphs  []drawingParagraph
}

type drawingParagraph struct {
	text   string
	level  int
	bullet bool // explicit bullet or numbering
	noBull bool // explicit buNone
}

// readSlide walks a slide or notes part. Title placeholders give the title; body placeholders
// give list items by level; text boxes give paragraphs; slide numbers, dates and footers are
// dropped.
func readSlide(part string, data []byte) (slideContent, error) {
	var content slideContent
	var shape *drawingShape
	var para *drawingParagraph
	var text strings.Builder
	var tables tableStack
	inText := false
	err := xmlTokens(part, data, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "sp":
				shape = &drawingShape{}
			case "ph":
				if shape != nil {
					shape.hasPh, shape.placeholder = true, xmlAttr(t, "type")
				}
			case "tbl":
				tables.open()
			case "tr":
				tables.startRow()
			case "tc":
				tables.startCell(xmlIntAttr(t, "gridSpan", 1))
			case "p":
				para = &drawingParagraph{}
				text.Reset()
			case "pPr":
				if para != nil {
					para.level = xmlIntAttr(t, "lvl", 0)
				}
			case "buChar", "buAutoNum":
				if para != nil {
					para.bullet = true
				}
			case "buNone":
				if para != nil {
					para.noBull = true
				}
			case "t":
				inText = true
			case "br":
				text.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				text.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				if para == nil {
					return nil
				}
				para.text = strings.TrimSpace(text.String())
				switch {
				case tables.cell() != nil:
					tables.cell().appendText(para.text)
				case shape != nil && para.text != "":
					shape.paragraphs = append(shape.paragraphs, *para)
				}
				para = nil
			case "tc":
				tables.endCell()
			case "tr":
				tables.endRow()
			case "tbl":
				if tbl := tables.close(); tbl != nil {
					if table := tbl.table(); table != nil {
						content.blocks = append(content.blocks, Block{Kind: TableBlock, Table: table})
					}
				}
			case "sp":
				if shape != nil {
					content.addShape(shape)
				}
				shape = nil
			}
		}
		return nil
	})
	return content, err
}

func (c *slideContent) addShape(s *drawingShape) {
	switch s.placeholder {
	case "title", "ctrTitle":
		var parts []string
		for _, p := range s.paragraphs {
			parts = append(parts, p.text)
		}
		if title := cleanInline(strings.Join(parts, " ")); c.title == "" {
			c.title = title
		} else if title != "" {
			c.blocks = append(c.blocks, Block{Kind: Paragraph, Text: title})
		}
		return
	case "sldNum", "dt", "ftr", "hdr", "sldImg":
		return
	}
	// Body and content placeholders show bullets unless a paragraph says buNone; text boxes show
	// none unless a paragraph asks for one.
	bodyBullets := s.hasPh && s.placeholder != "subTitle"
	for _, p := range s.paragraphs {
		if (bodyBullets && !p.noBull) || p.bullet {
			c.blocks = append(c.blocks, Block{Kind: ListItem, Level: p.level, Text: cleanBlockText(p.text)})
		} else {
			c.blocks = append(c.blocks, Block{Kind: Paragraph, Text: cleanBlockText(p.text)})
		}
	}
}
