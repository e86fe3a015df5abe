package docwrite

import (
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// PDFText is one text object: Text drawn at (X, Y) in Size-point Helvetica.
type PDFText struct {
	X, Y, Size int
	Text       string
}

// PDF writes a PDF 1.4 with one A4 page per element of pages, in Helvetica with
// WinAnsiEncoding, and an information dictionary holding title, author and a fixed date. It
// returns an error for text outside Windows-1252.
func PDF(pages [][]PDFText, title, author string) ([]byte, error) {
	t, err := pdfString(title)
	if err != nil {
		return nil, err
	}
	a, err := pdfString(author)
	if err != nil {
		return nil, err
	}
	return writePDF(pages, nil, "<< /Title "+t+" /Author "+a+" /ModDate (D:20260314100000Z) >>", nil, "")
}

// EncryptedPDF writes pages like PDF, without an information dictionary, encrypted with the
// standard security handler revision 2 (40-bit RC4), user password "secreto" and owner password
// "propietario": opening it needs the password. idSeed is hashed into the file identifier. It
// returns an error for text outside Windows-1252.
func EncryptedPDF(pages [][]PDFText, idSeed string) ([]byte, error) {
	const userPassword, ownerPassword, permissions = "secreto", "propietario", int32(-4)
	id := md5.Sum([]byte(idSeed))
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
	// Catalog, page tree and font, two objects a page, then the dictionary itself.
	encryptObj := 3 + 2*len(pages) + 1
	dict := fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P %d >>", o, u, permissions)
	trailer := fmt.Sprintf(" /Encrypt %d 0 R /ID [<%x> <%x>]", encryptObj, id, id)
	return writePDF(pages, encrypt, "", []string{dict}, trailer)
}

// pdfString encodes text as a WinAnsiEncoding string literal.
func pdfString(s string) (string, error) {
	enc, err := charmap.Windows1252.NewEncoder().String(s)
	if err != nil {
		return "", fmt.Errorf("encode %q for pdf: %w", s, err)
	}
	return "(" + strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`, "\r", `\r`).Replace(enc) + ")", nil
}

func contentStream(texts []PDFText) (string, error) {
	var b strings.Builder
	for _, t := range texts {
		s, err := pdfString(t.Text)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "BT /F1 %d Tf %d %d Td %s Tj ET\n", t.Size, t.X, t.Y, s)
	}
	return b.String(), nil
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
	raw := []byte(data)
	if w.encrypt != nil {
		raw = w.encrypt(len(w.offsets)+1, raw)
	}
	w.object(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(raw), raw))
}

// writePDF writes catalog, pages, font and content streams; info (may be "") becomes the
// document information dictionary, extra objects and trailer entries are appended.
func writePDF(pages [][]PDFText, encrypt func(int, []byte) []byte, info string, extraObjects []string, extraTrailer string) ([]byte, error) {
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
		content, err := contentStream(page)
		if err != nil {
			return nil, err
		}
		w.object(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		w.stream(content)
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
	return w.buf.Bytes(), nil
}

// passwordPadding is the padding string of the PDF standard security handler.
var passwordPadding = []byte{0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
	0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A}

func padPassword(p string) []byte { return append([]byte(p), passwordPadding...)[:32] }

func rc4Bytes(key, data []byte) []byte {
	c, err := rc4.NewCipher(key)
	if err != nil {
		panic(err) // key length is fixed by the callers: 5 or 10 bytes
	}
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}
