// Package migrations holds the numbered SQL files of the schema, embedded into
// every binary. shared/db applies them in order, once each.
package migrations

import "embed"

// FS holds the migration files, named NNNN_description.sql.
//
//go:embed *.sql
var FS embed.FS
