package extract

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// decodeText turns the bytes of a text format into valid UTF-8. It strips a byte-order mark,
// decodes UTF-16 when a BOM says so, repairs stray invalid bytes with U+FFFD and decodes the whole
// file as Windows-1252 when most of its non-ASCII bytes are not UTF-8 (a Latin-1 file). It returns
// an error wrapping ErrCorrupt when the data holds NUL bytes (binary data).
func decodeText(ctx context.Context, name string, data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		decoded, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", fmt.Errorf("%w: bad UTF-16: %v", ErrCorrupt, err)
		}
		data = decoded
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return "", fmt.Errorf("%w: NUL byte at offset %d, looks like binary data", ErrCorrupt, i)
	}
	if utf8.Valid(data) {
		return string(data), nil
	}
	invalid, multibyte := countUTF8(data)
	if invalid > multibyte {
		decoded, err := charmap.Windows1252.NewDecoder().Bytes(data)
		if err == nil {
			slog.InfoContext(ctx, "text is not UTF-8, decoded as windows-1252",
				slog.String("file", name), slog.Int("invalid_bytes", invalid))
			return string(decoded), nil
		}
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}

// countUTF8 counts invalid bytes and valid multi-byte characters.
func countUTF8(data []byte) (invalid, multibyte int) {
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		switch {
		case r == utf8.RuneError && size == 1:
			invalid++
		case size > 1:
			multibyte++
		}
		data = data[size:]
	}
	return invalid, multibyte
}
