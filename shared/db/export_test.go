package db

// MigrateUpTo applies the migrations up to a version, so a test can build
// the schema an older release left and upgrade it.
var MigrateUpTo = migrate
