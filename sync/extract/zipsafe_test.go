package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"
)

func zipOf(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	return zipOfNoT(members)
}

// zipOfNoT builds an archive in memory; writing to a bytes.Buffer cannot fail.
func zipOfNoT(members map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range members {
		w, _ := zw.Create(name)
		_, _ = w.Write(body)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// lieAboutSizes rewrites every central-directory entry to claim an uncompressed size of n.
func lieAboutSizes(data []byte, n uint32) []byte {
	out := bytes.Clone(data)
	sig := []byte{'P', 'K', 1, 2}
	for i := bytes.Index(out, sig); i >= 0; {
		binary.LittleEndian.PutUint32(out[i+24:], n)
		next := bytes.Index(out[i+4:], sig)
		if next < 0 {
			break
		}
		i += 4 + next
	}
	return out
}

func TestZipLimits(t *testing.T) {
	t.Parallel()
	zeros := make([]byte, 8<<20)
	docBody := []byte(`<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>hola</w:t></w:r></w:p></w:body></w:document>`)
	padded := append(bytes.Clone(docBody), bytes.Repeat([]byte(" "), 300<<10)...)
	tests := []struct {
		name    string
		file    string
		data    []byte
		limits  Limits
		wantErr error
		wantMsg string
	}{
		{name: "bomb ratio", file: "a.docx", data: zipOf(t, map[string][]byte{"word/document.xml": zeros}), wantErr: ErrTooLarge, wantMsg: "zip bomb"},
		{name: "member over limit", file: "a.pptx", data: zipOf(t, map[string][]byte{"ppt/x.xml": zeros}), limits: Limits{MaxMemberBytes: 1 << 20}, wantErr: ErrTooLarge, wantMsg: "ppt/x.xml"},
		{name: "total over limit", file: "a.odt", data: zipOf(t, map[string][]byte{"a": zeros[:600<<10], "b": zeros[:600<<10]}), limits: Limits{MaxTotalUncompressed: 1 << 20}, wantErr: ErrTooLarge, wantMsg: "in total"},
		{
			// archive/zip stops at the declared size; the LimitReader would stop at the limit.
			name: "header lies about the size", file: "a.docx",
			data:   lieAboutSizes(zipOf(t, map[string][]byte{"word/document.xml": padded}), 100),
			limits: Limits{MaxMemberBytes: 200 << 10}, wantErr: ErrCorrupt, wantMsg: "word/document.xml",
		},
		{name: "empty", file: "a.xlsx", data: nil, wantErr: ErrCorrupt, wantMsg: "empty"},
		{name: "not a zip", file: "a.odt", data: []byte("hola, no soy un zip"), wantErr: ErrCorrupt, wantMsg: "not a zip"},
		{name: "missing part", file: "a.pptx", data: zipOf(t, map[string][]byte{"x": []byte("y")}), wantErr: nil},
		{name: "malformed xml", file: "a.docx", data: zipOf(t, map[string][]byte{"word/document.xml": []byte("<w:p><w:t>a</w:p")}), wantErr: ErrCorrupt, wantMsg: "word/document.xml"},
		{name: "odt encrypted", file: "a.odt", data: zipOf(t, map[string][]byte{"META-INF/manifest.xml": []byte(`<manifest:encryption-data/>`), "content.xml": []byte("x")}), wantErr: ErrEncrypted},
		{name: "xlsx not a workbook", file: "a.xlsx", data: zipOf(t, map[string][]byte{"x": []byte("y")}), wantErr: ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Extract(context.Background(), tt.file, tt.data, tt.limits)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			checkFileError(t, err, tt.wantErr, tt.file, tt.wantMsg)
		})
	}
}

// TestReadMemberBudget: a member larger than what is left of the total budget is cut off by the
// LimitReader and rejected, even when its declared size passed the up-front check.
func TestReadMemberBudget(t *testing.T) {
	t.Parallel()
	data := zipOf(t, map[string][]byte{"a": bytes.Repeat([]byte("x"), 1000), "b": bytes.Repeat([]byte("y"), 1000)})
	z, err := openSafeZip(data, Limits{MaxFileBytes: 1 << 20, MaxMemberBytes: 1500, MaxTotalUncompressed: 2000, MaxRatio: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.readMember("a"); err != nil {
		t.Fatal(err)
	}
	z.read += 500 // as if another member had been read meanwhile
	if _, err := z.readMember("b"); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge once the total budget is spent", err)
	}
}
