package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/xuri/excelize/v2"
)

func init() { register(extractXLSX, ".xlsx", ".xlsm") }

// extractXLSX returns one section per visible sheet (Path [sheet], Locator "sheet <name>") holding
// one records table: the first non-empty row is the header, values are formatted as Excel shows
// them, merged ranges repeat their value in every cell, empty rows and columns are dropped.
func extractXLSX(ctx context.Context, _ string, data []byte, limits Limits) (*Document, error) {
	if _, err := openSafeZip(data, limits); err != nil {
		return nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    limits.MaxTotalUncompressed,
		UnzipXMLSizeLimit: min(limits.MaxMemberBytes, limits.MaxTotalUncompressed),
	})
	if err != nil {
		if errors.Is(err, excelize.ErrWorkbookPassword) {
			return nil, fmt.Errorf("%w: workbook needs a password", ErrEncrypted)
		}
		return nil, fmt.Errorf("%w: open workbook: %v", ErrCorrupt, err)
	}
	defer f.Close()

	doc := &Document{}
	if props, err := f.GetDocProps(); err == nil && props != nil {
		doc.Title, doc.Author, doc.Modified = cleanInline(props.Title), cleanInline(props.Creator), parseDate(props.Modified)
	}
	for i, sheet := range f.GetSheetList() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if visible, err := f.GetSheetVisible(sheet); err == nil && !visible {
			continue
		}
		rows, err := f.GetRows(sheet)
		if err != nil {
			return nil, fmt.Errorf("%w: read sheet %q: %v", ErrCorrupt, sheet, err)
		}
		rows = fillMergedCells(f, sheet, rows)
		table := sheetTable(rows)
		if table == nil {
			continue
		}
		label := cleanInline(sheet)
		if label == "" {
			label = fmt.Sprintf("Sheet%d", i+1)
		}
		doc.Sections = append(doc.Sections, Section{
			Path:    []string{label},
			Locator: "sheet " + label,
			Blocks:  []Block{{Kind: TableBlock, Table: table}},
		})
	}
	return doc, nil
}

// fillMergedCells copies each merged range's value into every cell of the range, so a merged
// category or header applies to all the rows and columns it covers.
func fillMergedCells(f *excelize.File, sheet string, rows [][]string) [][]string {
	merges, err := f.GetMergeCells(sheet)
	if err != nil {
		return rows
	}
	for _, m := range merges {
		col1, row1, err1 := excelize.CellNameToCoordinates(m.GetStartAxis())
		col2, row2, err2 := excelize.CellNameToCoordinates(m.GetEndAxis())
		if err1 != nil || err2 != nil || (row2-row1+1)*(col2-col1+1) > 10000 {
			continue
		}
		value := m.GetCellValue()
		for r := row1; r <= row2; r++ {
			for c := col1; c <= col2; c++ {
				for len(rows) < r {
					rows = append(rows, nil)
				}
				for len(rows[r-1]) < c {
					rows[r-1] = append(rows[r-1], "")
				}
				rows[r-1][c-1] = value
			}
		}
	}
	return rows
}

// sheetTable drops empty rows and the empty columns left of the data, trims trailing empty
// cells and takes the first remaining row as header; nil when the sheet is empty.
func sheetTable(rows [][]string) *Table {
	var kept [][]string
	firstCol := -1
	for _, row := range rows {
		for i := range row {
			row[i] = cleanInline(row[i])
		}
		if isBlankRow(row) {
			continue
		}
		for i, cell := range row {
			if cell != "" {
				if firstCol < 0 || i < firstCol {
					firstCol = i
				}
				break
			}
		}
		kept = append(kept, row)
	}
	if len(kept) == 0 {
		return nil
	}
	for i, row := range kept {
		row = row[min(firstCol, len(row)):]
		for len(row) > 0 && row[len(row)-1] == "" {
			row = row[:len(row)-1]
		}
		kept[i] = row
	}
	return &Table{Header: completeHeader(kept[0], kept[1:]), Rows: kept[1:], RowsAsRecords: true}
}
