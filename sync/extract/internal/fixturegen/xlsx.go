package main

import (
	"time"

	"github.com/xuri/excelize/v2"
)

// makeXLSX writes a workbook whose data starts at B3 (blank rows and a blank column before it),
// with a merged category cell, a date and amounts in display formats, a second sheet and a
// hidden one.
func makeXLSX() ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Precios"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return nil, err
	}
	rows := [][]any{
		{"Categoría", "Código", "Descripción", "Precio", "Alta"},
		{"Mobiliario", code, "Silla ergonómica", 149.0, time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)},
		{nil, "SKU-10001", "Mesa de reunión", 1320.5, time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)},
		{},
		{"Papelería", "SKU-20002", "Cuaderno A4", 2.75, time.Date(2026, 1, 9, 0, 0, 0, 0, time.UTC)},
	}
	for i, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(2, 3+i)
		if err := f.SetSheetRow(sheet, cell, &row); err != nil {
			return nil, err
		}
	}
	if err := f.MergeCell(sheet, "B4", "B5"); err != nil {
		return nil, err
	}
	amount, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("#,##0.00 \"€\"")})
	if err != nil {
		return nil, err
	}
	date, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("dd/mm/yyyy")})
	if err != nil {
		return nil, err
	}
	if err := f.SetCellStyle(sheet, "E4", "E7", amount); err != nil {
		return nil, err
	}
	if err := f.SetCellStyle(sheet, "F4", "F7", date); err != nil {
		return nil, err
	}
	if _, err := f.NewSheet("Resumen"); err != nil {
		return nil, err
	}
	if err := f.SetSheetRow("Resumen", "A1", &[]any{"Total artículos", 3}); err != nil {
		return nil, err
	}
	if _, err := f.NewSheet("Oculta"); err != nil {
		return nil, err
	}
	if err := f.SetCellValue("Oculta", "A1", "no debe salir"); err != nil {
		return nil, err
	}
	if err := f.SetSheetVisible("Oculta", false); err != nil {
		return nil, err
	}
	if err := f.SetDocProps(&excelize.DocProperties{Title: "Tarifa de precios", Creator: docAuthor, Modified: "2026-03-14T10:00:00Z", Created: "2026-03-14T10:00:00Z"}); err != nil {
		return nil, err
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func ptr[T any](v T) *T { return &v }
