package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// safeZip reads members of a zip-based format (DOCX, XLSX, PPTX, ODT) within Limits: declared
// sizes and compression ratios are checked up front, and every read goes through a LimitReader so
// a member whose header lies about its size still cannot use more memory than allowed.
type safeZip struct {
	zr     *zip.Reader
	limits Limits
	files  map[string]*zip.File
	read   int64 // uncompressed bytes read so far
}

// ratioFloor is the uncompressed size below which a member's compression ratio is not checked:
// small XML parts compress very well without being bombs.
const ratioFloor = 1 << 20

// openSafeZip opens data as a zip archive. It returns an error wrapping ErrEncrypted for an
// encrypted Office file (an OLE container instead of a zip), ErrCorrupt when data is no zip, and
// ErrTooLarge when the declared sizes or ratios are over the limits.
func openSafeZip(data []byte, limits Limits) (*safeZip, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrCorrupt)
	}
	if isEncryptedOffice(data) {
		return nil, fmt.Errorf("%w: encrypted Office package", ErrEncrypted)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip archive: %v", ErrCorrupt, err)
	}
	z := &safeZip{zr: zr, limits: limits, files: make(map[string]*zip.File, len(zr.File))}
	var total uint64
	for _, f := range zr.File {
		size := f.UncompressedSize64
		if size > uint64(limits.MaxMemberBytes) {
			return nil, fmt.Errorf("%w: member %q is %d bytes uncompressed, limit %d", ErrTooLarge, f.Name, size, limits.MaxMemberBytes)
		}
		if size > ratioFloor && float64(size) > limits.MaxRatio*float64(max(f.CompressedSize64, 1)) {
			return nil, fmt.Errorf("%w: member %q expands %.0f times, limit %.0f (zip bomb?)", ErrTooLarge, f.Name, float64(size)/float64(max(f.CompressedSize64, 1)), limits.MaxRatio)
		}
		total += size
		z.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	if total > uint64(limits.MaxTotalUncompressed) {
		return nil, fmt.Errorf("%w: %d bytes uncompressed in total, limit %d", ErrTooLarge, total, limits.MaxTotalUncompressed)
	}
	if total > ratioFloor && float64(total) > limits.MaxRatio*float64(len(data)) {
		return nil, fmt.Errorf("%w: archive expands %.0f times, limit %.0f (zip bomb?)", ErrTooLarge, float64(total)/float64(len(data)), limits.MaxRatio)
	}
	return z, nil
}

// isEncryptedOffice reports an OLE compound file holding an EncryptedPackage stream: what Word,
// Excel and PowerPoint write for a password-protected .docx/.xlsx/.pptx.
func isEncryptedOffice(data []byte) bool {
	oleMagic := []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	if !bytes.HasPrefix(data, oleMagic) {
		return false
	}
	utf16Name := []byte{'E', 0, 'n', 0, 'c', 0, 'r', 0, 'y', 0, 'p', 0, 't', 0, 'e', 0, 'd', 0, 'P', 0}
	return bytes.Contains(data, utf16Name)
}

// has reports whether the archive holds the member.
func (z *safeZip) has(name string) bool {
	_, ok := z.files[name]
	return ok
}

// namesUnder lists the members in a folder (not below it), sorted.
func (z *safeZip) namesUnder(dir string) []string {
	var names []string
	for name := range z.files {
		if path.Dir(name) == strings.TrimSuffix(dir, "/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// readMember returns a member's bytes. It returns an error wrapping both ErrCorrupt and
// fs.ErrNotExist when the member is missing, ErrTooLarge when it or the running total is over the limits, and ErrCorrupt when it
// cannot be decompressed.
func (z *safeZip) readMember(name string) ([]byte, error) {
	f, ok := z.files[name]
	if !ok {
		return nil, fmt.Errorf("%w: member %q missing (%w)", ErrCorrupt, name, fs.ErrNotExist)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: open member %q: %v", ErrCorrupt, name, err)
	}
	defer rc.Close()
	budget := min(z.limits.MaxMemberBytes, z.limits.MaxTotalUncompressed-z.read)
	data, err := io.ReadAll(io.LimitReader(rc, budget+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read member %q: %v", ErrCorrupt, name, err)
	}
	if int64(len(data)) > budget {
		return nil, fmt.Errorf("%w: member %q expands past its limit (header says %d bytes)", ErrTooLarge, name, f.UncompressedSize64)
	}
	z.read += int64(len(data))
	return data, nil
}

// readOptional is readMember that returns nil, nil for a missing member.
func (z *safeZip) readOptional(name string) ([]byte, error) {
	data, err := z.readMember(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
