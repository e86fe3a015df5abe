package extract

import "strings"

// tableState collects rows and cells while a table's markup is walked (DOCX, ODT, PPTX).
type tableState struct {
	rows   [][]string
	row    []string
	cell   strings.Builder
	inCell bool
	span   int // columns the current cell spans
}

func (t *tableState) startRow() { t.row = nil }

func (t *tableState) startCell() {
	t.cell.Reset()
	t.inCell = true
	t.span = 1
}

// appendText adds one paragraph of a cell; a cell's paragraphs join with spaces so a cell
// never breaks across lines.
func (t *tableState) appendText(text string) {
	if text = cleanInline(text); text == "" {
		return
	}
	if t.cell.Len() > 0 {
		t.cell.WriteByte(' ')
	}
	t.cell.WriteString(text)
}

func (t *tableState) endCell() {
	t.row = append(t.row, t.cell.String())
	for i := 1; i < t.span && i < 64; i++ {
		t.row = append(t.row, "") // a merged cell keeps the columns after it aligned
	}
	t.cell.Reset()
	t.inCell = false
	t.span = 1
}

func (t *tableState) endRow() {
	if t.inCell {
		t.endCell()
	}
	if !isBlankRow(t.row) {
		t.rows = append(t.rows, t.row)
	}
	t.row = nil
}

// table returns the collected rows with the first as header; nil when there are none.
func (t *tableState) table() *Table {
	if len(t.rows) == 0 {
		return nil
	}
	return &Table{Header: t.rows[0], Rows: t.rows[1:]}
}

// flatText is the table as "a | b" lines, for a table nested in another's cell.
func (t *tableState) flatText() string {
	lines := make([]string, 0, len(t.rows))
	for _, row := range t.rows {
		lines = append(lines, strings.Join(row, " | "))
	}
	return strings.Join(lines, "; ")
}

// tableStack holds the tables open while markup is walked, the innermost last (tables nest
// inside cells). Its row and cell methods act on the innermost table and do nothing outside one.
type tableStack []*tableState

// open starts a table, inside the innermost open one's cell or at the top level.
func (s *tableStack) open() { *s = append(*s, &tableState{}) }

// top returns the innermost open table, or nil outside any table.
func (s tableStack) top() *tableState {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// close ends the innermost open table and returns it, or nil outside any table.
func (s *tableStack) close() *tableState {
	t := s.top()
	if t != nil {
		*s = (*s)[:len(*s)-1]
	}
	return t
}

// cell returns the innermost open table while a cell of it is open, or nil.
func (s tableStack) cell() *tableState {
	if t := s.top(); t != nil && t.inCell {
		return t
	}
	return nil
}

func (s tableStack) startRow() {
	if t := s.top(); t != nil {
		t.startRow()
	}
}

func (s tableStack) endRow() {
	if t := s.top(); t != nil {
		t.endRow()
	}
}

// startCell opens a cell spanning span columns.
func (s tableStack) startCell(span int) {
	if t := s.top(); t != nil {
		t.startCell()
		t.span = span
	}
}

func (s tableStack) endCell() {
	if t := s.top(); t != nil {
		t.endCell()
	}
}
