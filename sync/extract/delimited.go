package extract

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// extractDelimited reads CSV or TSV as one table of records: the first non-empty row is the
// header, the delimiter (comma, semicolon or tab) is detected, ragged rows are kept.
func extractDelimited(ctx context.Context, name string, data []byte, _ Limits) (*Document, error) {
	src, err := decodeText(ctx, name, data)
	if err != nil {
		return nil, err
	}
	delimiter := '\t'
	if strings.ToLower(filepath.Ext(name)) != ".tsv" {
		delimiter = detectDelimiter(src)
	}
	r := newCSVReader(src, delimiter)
	table := &Table{RowsAsRecords: true}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		record, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		for i := range record {
			record[i] = cleanInline(record[i])
		}
		if isBlankRow(record) {
			continue
		}
		if table.Header == nil {
			table.Header = record
			continue
		}
		table.Rows = append(table.Rows, record)
	}
	table.Header = completeHeader(table.Header, table.Rows)
	b := newSectionBuilder("")
	if table.Header != nil {
		b.add(Block{Kind: TableBlock, Table: table})
	}
	return &Document{Sections: b.sections}, nil
}

func newCSVReader(src string, delimiter rune) *csv.Reader {
	r := csv.NewReader(strings.NewReader(src))
	r.Comma = delimiter
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = false
	return r
}

// detectDelimiter picks the candidate that splits the first rows into the most columns, counting
// only a column count that at least half of those rows share (ragged files still detect); comma
// when nothing splits.
func detectDelimiter(src string) rune {
	best, bestColumns := ',', 1
	for _, candidate := range []rune{',', ';', '\t'} {
		r := newCSVReader(src, candidate)
		counts := map[int]int{}
		rows := 0
		for rows < 20 {
			record, err := r.Read()
			if err != nil {
				break
			}
			if isBlankRow(record) {
				continue
			}
			counts[len(record)]++
			rows++
		}
		mode, modeRows := 0, 0
		for columns, n := range counts {
			if n > modeRows || (n == modeRows && columns > mode) {
				mode, modeRows = columns, n
			}
		}
		if rows > 0 && modeRows*2 >= rows && mode > bestColumns {
			best, bestColumns = candidate, mode
		}
	}
	return best
}

func isBlankRow(record []string) bool {
	for _, cell := range record {
		if strings.TrimSpace(cell) != "" {
			return false
		}
	}
	return true
}

// completeHeader names empty header cells and columns that only some rows have ("column 4"), so
// every value renders with a name.
func completeHeader(header []string, rows [][]string) []string {
	if header == nil {
		return nil
	}
	width := len(header)
	for _, row := range rows {
		width = max(width, len(row))
	}
	out := make([]string, width)
	copy(out, header)
	for i := range out {
		if out[i] == "" {
			out[i] = fmt.Sprintf("column %d", i+1)
		}
	}
	return out
}
