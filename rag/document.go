package rag

import (
	"context"
	"time"
)

// Document is one indexed file or item of a source, as stored.
type Document struct {
	ID          int64
	Source      string // the source's name: "testdata", "drive-hr", an eval namespace...
	ExternalID  string // path relative to the source root, or the remote id
	Title       string
	URL         string // a link people can open; empty for local files without a base URL
	Owner       string
	Lang        string // "es", "en" or "simple"
	UpdatedAt   time.Time
	ContentHash string
	Groups      []string
	Version     int64 // bumped on every content or permission change
	// Fingerprint is the source's cheap change marker (size+mtime, ETag, Drive version): equal
	// fingerprints mean the content need not be read again.
	Fingerprint string
	// Validity is when the document applies (front matter, properties, sidecar or path rules).
	Validity Validity
}

// DocumentState is what the index knows of a document, for change detection.
type DocumentState struct {
	ID          int64
	ExternalID  string
	ContentHash string
	Fingerprint string
	Groups      []string // empty while the document is withheld
	Version     int64
	UpdatedAt   time.Time
	// AccessError is why the document is withheld (its access could not be resolved, so it is
	// readable by nobody); empty when its groups are known.
	AccessError string
}

// Chunk is one retrievable piece of a document.
type Chunk struct {
	ID         int64
	DocumentID int64
	Position   int
	Heading    string // breadcrumb: "Title > Section > Subsection"
	Section    string // breadcrumb below the title: "Section > Subsection"
	Locator    string // "p. 4", "sheet 2026", "slide 3"; empty when the format has none
	Content    string // text without the breadcrumb
	Groups     []string
	Embedding  []float32
}

// Text is what a chunk contributes to embedding and to answers: its breadcrumb, then its content,
// so it makes sense on its own.
func (c Chunk) Text() string {
	if c.Heading == "" {
		return c.Content
	}
	return c.Heading + "\n\n" + c.Content
}

// Embedder turns texts into vectors. Implementations batch and retry as they see fit; the result
// has one vector per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// EmbedderInfo describes an embedder's model for the index: the name and the dimension.
type EmbedderInfo struct {
	Model     string
	Dimension int
}
