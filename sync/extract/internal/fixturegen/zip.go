package main

import (
	"archive/zip"
	"bytes"
	"html"
	"time"
)

// fixedTime keeps the generated archives byte-for-byte stable.
var fixedTime = time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)

type member struct{ name, body string }

// zipMembers writes members in order; the first is stored uncompressed (ODF's mimetype rule).
func zipMembers(members []member, storeFirst bool) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i, m := range members {
		method := zip.Deflate
		if i == 0 && storeFirst {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method, Modified: fixedTime})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(m.body)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func esc(s string) string { return html.EscapeString(s) }

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
