package extracttest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"
)

// BuildXLSX writes d as a workbook with excelize: one sheet per section named after its heading,
// holding the section's table (cells that read as plain numbers are stored as numbers), or,
// without a table, its paragraphs one per row under a "Notas" header. It returns excelize's
// error when writing fails.
func BuildXLSX(d Doc) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	used := map[string]bool{}
	for i, s := range d.Sections {
		name := sheetName(s, i)
		for n := 2; used[strings.ToLower(name)]; n++ {
			name = fmt.Sprintf("%s (%d)", sheetName(s, i), n)
		}
		used[strings.ToLower(name)] = true
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				return nil, fmt.Errorf("name sheet %q: %w", name, err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			return nil, fmt.Errorf("add sheet %q: %w", name, err)
		}
		rows := s.Table
		if len(rows) == 0 {
			rows = [][]string{{"Notas"}}
			for _, p := range append(append([]string{}, s.Paragraphs...), s.Bullets...) {
				rows = append(rows, []string{p})
			}
		}
		for r, row := range rows {
			values := make([]any, len(row))
			for c, cell := range row {
				values[c] = cellValue(cell, r == 0)
			}
			axis, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := f.SetSheetRow(name, axis, &values); err != nil {
				return nil, fmt.Errorf("write sheet %q row %d: %w", name, r+1, err)
			}
		}
	}
	if err := f.SetDocProps(&excelize.DocProperties{Title: d.Title, Creator: d.Author, Created: "2026-03-14T10:00:00Z", Modified: "2026-03-14T10:00:00Z"}); err != nil {
		return nil, fmt.Errorf("set properties: %w", err)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, fmt.Errorf("write workbook: %w", err)
	}
	return buf.Bytes(), nil
}

// cellValue stores "42" or "3.5" as a number so the workbook looks like a real one; codes and
// amounts with thousands separators ("5.440.000") stay text, as Excel users type them.
func cellValue(s string, header bool) any {
	if header {
		return s
	}
	if n, err := strconv.Atoi(s); err == nil && len(s) < 10 && !strings.HasPrefix(s, "0") {
		return n
	}
	return s
}
