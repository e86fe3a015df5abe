package main

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// pdfPage is the text lines of one page, each with its font size.
type pdfLine struct {
	size int
	text string
}

func pdfPages() [][]pdfLine {
	page1 := []pdfLine{{20, docTitle}, {14, heading1}, {11, intro}, {14, heading2}}
	top := 0
	for _, item := range numbered {
		label := "   -"
		if item.level == 0 {
			top++
			label = fmt.Sprintf("%d.", top)
		}
		page1 = append(page1, pdfLine{11, label + " " + item.text})
	}
	page2 := []pdfLine{{14, "Tarifa"}}
	for _, row := range table {
		page2 = append(page2, pdfLine{11, strings.Join(row, "   ")})
	}
	return [][]pdfLine{page1, page2}
}

// pdfString encodes text for a WinAnsiEncoding Helvetica string literal.
func pdfString(s string) string {
	enc, err := charmap.Windows1252.NewEncoder().String(s)
	if err != nil {
		panic(err)
	}
	return "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(enc) + ")"
}

func contentStream(lines []pdfLine) string {
	var b strings.Builder
	y := 780
	for _, l := range lines {
		fmt.Fprintf(&b, "BT /F1 %d Tf 56 %d Td %s Tj ET\n", l.size, y, pdfString(l.text))
		y -= l.size + 12
	}
	return b.String()
}

// pdfWriter numbers objects and records their offsets for the xref table.
type pdfWriter struct {
	buf     bytes.Buffer
	offsets []int
	encrypt func(obj int, data []byte) []byte // nil for a plain file
}

func (w *pdfWriter) object(body string) {
	w.offsets = append(w.offsets, w.buf.Len())
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", len(w.offsets), body)
}

func (w *pdfWriter) stream(data string) {
	obj := len(w.offsets) + 1
	raw := []byte(data)
	if w.encrypt != nil {
		raw = w.encrypt(obj, raw)
	}
	w.object(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(raw), raw))
}

// buildPDF writes catalog, pages, fonts and content; extraTrailer goes into the trailer.
func buildPDF(encrypt func(int, []byte) []byte, info string, extraObjects []string, extraTrailer string) []byte {
	pages := pdfPages()
	w := &pdfWriter{encrypt: encrypt}
	w.buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	w.object("<< /Type /Catalog /Pages 2 0 R >>")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	w.object(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	w.object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, page := range pages {
		w.object(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		w.stream(contentStream(page))
	}
	infoRef := ""
	if info != "" {
		w.object(info)
		infoRef = fmt.Sprintf(" /Info %d 0 R", len(w.offsets))
	}
	for _, obj := range extraObjects {
		w.object(obj)
	}
	xref := w.buf.Len()
	fmt.Fprintf(&w.buf, "xref\n0 %d\n0000000000 65535 f \n", len(w.offsets)+1)
	for _, off := range w.offsets {
		fmt.Fprintf(&w.buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&w.buf, "trailer\n<< /Size %d /Root 1 0 R%s%s >>\nstartxref\n%d\n%%%%EOF\n", len(w.offsets)+1, infoRef, extraTrailer, xref)
	return w.buf.Bytes()
}

func makePDF() ([]byte, error) {
	info := "<< /Title " + pdfString(docTitle) + " /Author " + pdfString(docAuthor) + " /ModDate (D:20260314100000Z) >>"
	return buildPDF(nil, info, nil, ""), nil
}

// passwordPadding is the padding string of the PDF standard security handler.
var passwordPadding = []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}

func padPassword(p string) []byte {
	return append([]byte(p), passwordPadding...)[:32]
}

func rc4Bytes(key, data []byte) []byte {
	c, err := rc4.NewCipher(key)
	if err != nil {
		panic(err)
	}
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

// makeEncryptedPDF writes the same document encrypted with the standard security handler,
// revision 2 (40-bit RC4), user password "secreto": opening it needs the password.
func makeEncryptedPDF() ([]byte, error) {
	const userPassword, ownerPassword, permissions = "secreto", "propietario", int32(-4)
	id := md5.Sum([]byte("cita fixture"))
	ownerKey := md5.Sum(padPassword(ownerPassword))
	o := rc4Bytes(ownerKey[:5], padPassword(userPassword))
	h := md5.New()
	h.Write(padPassword(userPassword))
	h.Write(o)
	_ = binary.Write(h, binary.LittleEndian, permissions)
	h.Write(id[:])
	fileKey := h.Sum(nil)[:5]
	u := rc4Bytes(fileKey, passwordPadding)
	encrypt := func(obj int, data []byte) []byte {
		k := append(append([]byte{}, fileKey...), byte(obj), byte(obj>>8), byte(obj>>16), 0, 0)
		sum := md5.Sum(k)
		return rc4Bytes(sum[:10], data)
	}
	encryptDict := fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P %d >>", o, u, permissions)
	pages := len(pdfPages())
	encryptObj := 3 + 2*pages + 1
	trailer := fmt.Sprintf(" /Encrypt %d 0 R /ID [<%x> <%x>]", encryptObj, id, id)
	return buildPDF(encrypt, "", []string{encryptDict}, trailer), nil
}
