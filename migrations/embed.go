// Package migrations holds cita's schema as numbered goose migrations, embedded in the binary.
// The schema lives here and nowhere else.
package migrations

import "embed"

// FS holds the *.sql migrations.
//
//go:embed *.sql
var FS embed.FS
