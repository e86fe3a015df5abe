package extract

import (
	"context"
	"testing"
	"time"
)

func TestFrontMatterValidity(t *testing.T) {
	t.Parallel()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name, header    string
		from, until, on time.Time
		superseded      bool
		by              string
	}{
		{"window", "valid_from: 2024-01-01\nvalid_until: 2025-01-01", day(2024, 1, 1), day(2025, 1, 1), time.Time{}, false, ""},
		{"superseded by", "superseded_by: travel-2025.md\nsuperseded_on: 2025-01-01", time.Time{}, time.Time{}, day(2025, 1, 1), true, "travel-2025.md"},
		{"status", "Status: Obsolete", time.Time{}, time.Time{}, time.Time{}, true, ""},
		{"spanish", "vigente-desde: 01/03/2025\nsustituido_por: política 2026", day(2025, 3, 1), time.Time{}, time.Time{}, true, "política 2026"},
		{"reversed window ignored", "valid_from: 2025-01-01\nvalid_until: 2024-01-01", time.Time{}, time.Time{}, time.Time{}, false, ""},
		{"none", "title: x", time.Time{}, time.Time{}, time.Time{}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Extract(context.Background(), "p.md", []byte("---\n"+tc.header+"\n---\n# P\n\nText.\n"), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			v := doc.Validity
			if !v.From.Equal(tc.from) || !v.Until.Equal(tc.until) || !v.SupersededOn.Equal(tc.on) || v.Superseded != tc.superseded || v.SupersededBy != tc.by {
				t.Errorf("validity %+v", v)
			}
		})
	}
}

func TestCustomPropertiesValidity(t *testing.T) {
	t.Parallel()
	raw := []byte(`<?xml version="1.0" encoding="UTF-8"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">
<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="Valid Until"><vt:filetime>2025-01-01T00:00:00Z</vt:filetime></property>
<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="3" name="Superseded By"><vt:lpwstr>Price list 2025</vt:lpwstr></property></Properties>`)
	fields, err := readCustomProperties("docProps/custom.xml", raw)
	if err != nil {
		t.Fatal(err)
	}
	v := validityFrom(lookupIn(fields))
	if !v.Until.Equal(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)) || v.SupersededBy != "Price list 2025" || !v.Superseded {
		t.Fatalf("validity %+v from %v", v, fields)
	}
}
