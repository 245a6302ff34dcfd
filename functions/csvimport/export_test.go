package csvimport

// Internal pieces the tests reach directly.
var (
	ClaimForTest       = claim
	HashTokenForTest   = hashToken
	ReadJournalForTest = readJournal
	WriteForTest       = write
	NewIDForTest       = newID
)
