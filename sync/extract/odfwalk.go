package extract

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// maxRepeat caps table:number-rows/columns-repeated, which spreadsheets set to a million for
// the empty rest of a sheet.
const maxRepeat = 100

type odfWalker struct {
	xmlWalk
	b           *sectionBuilder
	listStyles  odfListStyles
	spreadsheet bool

	paragraphs []*odfParagraph
	lists      []string // style name of each open text:list (inherited when unset)
	counters   []int
	tables     tableStack
	sheetName  string
	sheets     int
	rowRepeat  int
	cellRepeat int
}

type odfParagraph struct {
	heading int // outline level for text:h, 0 for text:p
	text    strings.Builder
}

func (w *odfWalker) token(_ *xml.Decoder, tok xml.Token) error {
	return w.dispatch(tok, w.start, w.end, w.chars)
}

func (w *odfWalker) chars(t xml.CharData) {
	if n := len(w.paragraphs); n > 0 {
		w.paragraphs[n-1].text.Write(t)
	}
}

func (w *odfWalker) write(s string) {
	if n := len(w.paragraphs); n > 0 {
		w.paragraphs[n-1].text.WriteString(s)
	}
}

func (w *odfWalker) start(t xml.StartElement) {
	switch t.Name.Local {
	case "note", "annotation", "tracked-changes", "sequence-decls", "automatic-styles", "font-face-decls", "forms":
		w.skipDepth = 1
	case "h":
		w.paragraphs = append(w.paragraphs, &odfParagraph{heading: xmlIntAttr(t, "outline-level", 1)})
	case "p":
		w.paragraphs = append(w.paragraphs, &odfParagraph{})
	case "s":
		w.write(strings.Repeat(" ", min(max(xmlIntAttr(t, "c", 1), 1), 80)))
	case "tab":
		w.write(" ")
	case "line-break":
		w.write("\n")
	case "list":
		style := xmlAttr(t, "style-name")
		if style == "" && len(w.lists) > 0 {
			style = w.lists[len(w.lists)-1]
		}
		if len(w.lists) == 0 && xmlAttr(t, "continue-numbering") != "true" {
			w.counters = make([]int, 10)
		}
		w.lists = append(w.lists, style)
	case "list-item":
		if depth := len(w.lists); depth > 0 && depth <= len(w.counters) {
			w.counters[depth-1]++
			for i := depth; i < len(w.counters); i++ {
				w.counters[i] = 0
			}
		}
	case "table":
		w.tables.open()
		if len(w.tables) == 1 {
			w.sheetName = xmlAttr(t, "name")
		}
	case "table-row":
		if tbl := w.tables.top(); tbl != nil {
			tbl.startRow()
			w.rowRepeat = min(max(xmlIntAttr(t, "number-rows-repeated", 1), 1), maxRepeat)
		}
	case "table-cell", "covered-table-cell":
		if tbl := w.tables.top(); tbl != nil {
			tbl.startCell()
			tbl.span = min(max(xmlIntAttr(t, "number-columns-spanned", 1), 1), maxRepeat)
			w.cellRepeat = min(max(xmlIntAttr(t, "number-columns-repeated", 1), 1), maxRepeat)
		}
	}
}

func (w *odfWalker) end(t xml.EndElement) {
	switch t.Name.Local {
	case "h", "p":
		if n := len(w.paragraphs); n > 0 {
			p := w.paragraphs[n-1]
			w.paragraphs = w.paragraphs[:n-1]
			w.emit(p)
		}
	case "list":
		if n := len(w.lists); n > 0 {
			w.lists = w.lists[:n-1]
		}
	case "table-cell", "covered-table-cell":
		if tbl := w.tables.top(); tbl != nil {
			value := tbl.cell.String()
			tbl.endCell()
			for i := 1; i < w.cellRepeat && value != ""; i++ {
				tbl.row = append(tbl.row, value)
			}
		}
	case "table-row":
		if tbl := w.tables.top(); tbl != nil {
			for len(tbl.row) > 0 && tbl.row[len(tbl.row)-1] == "" { // the sheet's empty rest
				tbl.row = tbl.row[:len(tbl.row)-1]
			}
			row := tbl.row
			tbl.endRow()
			for i := 1; i < w.rowRepeat && !isBlankRow(row); i++ {
				tbl.rows = append(tbl.rows, row)
			}
		}
	case "table":
		if tbl := w.tables.close(); tbl != nil {
			w.endTable(tbl)
		}
	}
}

func (w *odfWalker) endTable(tbl *tableState) {
	if outer := w.tables.top(); outer != nil {
		if outer.inCell {
			outer.appendText(tbl.flatText())
		}
		return
	}
	if !w.spreadsheet {
		w.b.add(Block{Kind: TableBlock, Table: tbl.table()})
		return
	}
	table := sheetTable(tbl.rows)
	if table == nil {
		return
	}
	w.sheets++
	name := cleanInline(w.sheetName)
	if name == "" {
		name = fmt.Sprintf("Sheet%d", w.sheets)
	}
	w.b.locator = "sheet " + name
	w.b.resetPath()
	w.b.stack = append(w.b.stack, headingEntry{level: 1, text: name})
	w.b.startSection()
	w.b.add(Block{Kind: TableBlock, Table: table})
}

func (w *odfWalker) emit(p *odfParagraph) {
	text := strings.TrimSpace(p.text.String())
	if text == "" {
		return
	}
	switch {
	case len(w.paragraphs) > 0: // a frame's text inside a paragraph
		w.b.paragraph(text)
	case w.tables.top() != nil:
		if tbl := w.tables.cell(); tbl != nil {
			tbl.appendText(text)
		}
	case p.heading > 0:
		w.b.heading(p.heading, text)
	case len(w.lists) > 0:
		depth := len(w.lists)
		if label := w.listStyles.label(w.lists[depth-1], depth, w.counters); label != "" {
			text = label + " " + text
		}
		w.b.listItem(depth-1, text)
	default:
		w.b.paragraph(text)
	}
}
