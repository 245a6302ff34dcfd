package csvimport

// Internal pieces the tests reach directly.
var (
	ClaimForTest     = claim
	HashTokenForTest = hashToken
)
