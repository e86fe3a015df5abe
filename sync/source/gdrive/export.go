package gdrive

import (
	"strings"

	"github.com/citahq/cita/config"
	"github.com/citahq/cita/sync/extract"
)

const (
	mimeFolder = "application/vnd.google-apps.folder"
	mimeDoc    = "application/vnd.google-apps.document"
	mimeSheet  = "application/vnd.google-apps.spreadsheet"
	mimeSlides = "application/vnd.google-apps.presentation"
	googleApp  = "application/vnd.google-apps."
)

// exportFormat is what a Google file is exported as: the MIME type asked of files.export and
// the extension that picks the extractor.
type exportFormat struct {
	mime string
	ext  string
}

// exportFormats maps Google file types to their export format.
type exportFormats map[string]exportFormat

func newExportFormats(c config.GDriveSource) exportFormats {
	f := exportFormats{
		mimeDoc:    {"text/markdown", ".md"},
		mimeSheet:  {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx"},
		mimeSlides: {"application/vnd.openxmlformats-officedocument.presentationml.presentation", ".pptx"},
	}
	if c.DocsFormat == "docx" {
		f[mimeDoc] = exportFormat{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx"}
	}
	if c.SheetsFormat == "csv" { // only the first sheet: Drive exports one sheet as CSV
		f[mimeSheet] = exportFormat{"text/csv", ".csv"}
	}
	if c.SlidesFormat == "text" {
		f[mimeSlides] = exportFormat{"text/plain", ".txt"}
	}
	return f
}

// binaryExt gives an extension to uploaded files whose name lacks one.
var binaryExt = map[string]string{
	"application/pdf": ".pdf",
	"text/plain":      ".txt",
	"text/markdown":   ".md",
	"text/csv":        ".csv",
	"text/html":       ".html",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   ".docx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         ".xlsx",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
	"application/vnd.oasis.opendocument.text":                                   ".odt",
	"application/vnd.oasis.opendocument.spreadsheet":                            ".ods",
}

// itemName returns the file name the extractor sees and, for Google files, the export format.
// ok is false for files cita cannot index (folders, shortcuts, forms, images, ...).
func (f exportFormats) itemName(name, mimeType string) (fileName string, export *exportFormat, ok bool) {
	if mimeType == mimeFolder {
		return "", nil, false
	}
	if strings.HasPrefix(mimeType, googleApp) {
		ef, known := f[mimeType]
		if !known {
			return "", nil, false
		}
		return name + ef.ext, &ef, true
	}
	if !extract.Supported(name) {
		if ext, known := binaryExt[mimeType]; known {
			name += ext
		}
	}
	return name, nil, extract.Supported(name)
}
