// Package docwrite holds the low-level writers that extracttest and fixturegen share: a
// reproducible zip, XML escaping, the OOXML and ODF parts both write alike, and a minimal
// Helvetica PDF, plain or encrypted. What each document says, and its quirks, stay with the
// caller.
package docwrite

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"time"
)

// fixedTime keeps generated archives byte-for-byte stable.
var fixedTime = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

// Member is one file inside a zip package.
type Member struct{ Name, Body string }

// Zip writes members in order, every one dated fixedTime; with storeFirst the first is stored
// uncompressed (ODF's mimetype rule), the others deflated. It returns an error naming the member
// when writing fails.
func Zip(members []Member, storeFirst bool) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, m := range members {
		method := zip.Deflate
		if i == 0 && storeFirst {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.Name, Method: method, Modified: fixedTime})
		if err != nil {
			return nil, fmt.Errorf("zip member %s: %w", m.Name, err)
		}
		if _, err := w.Write([]byte(m.Body)); err != nil {
			return nil, fmt.Errorf("zip member %s: %w", m.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("close zip: %w", err)
	}
	return buf.Bytes(), nil
}

// Esc escapes s for XML text and attribute values.
func Esc(s string) string { return html.EscapeString(s) }

// XMLHeader opens every XML part.
const XMLHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
