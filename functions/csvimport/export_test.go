package csvimport

// Internal pieces the tests reach directly.
var (
	ClaimForTest       = claim
	HashTokenForTest   = hashToken
	ReadJournalForTest = readJournal
	CopyPlanForTest    = copyPlan
)

// IDs is written.ids for the tests.
func (w written) IDs() []string { return w.ids() }
