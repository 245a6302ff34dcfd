package listquery

import (
	"regexp"
	"strconv"
	"strings"

	"tradejournal/shared/apperr"
)

var wholeNumber = regexp.MustCompile(`^[+-]?[0-9]+$`)

// Limit reads a list's limit parameter: absent means def, a whole number is
// clamped to 1..most (beyond int's range too), anything else is a
// VALIDATION_ERROR naming the field limit.
func Limit(s string, def, most int) (int, error) {
	if s == "" {
		return def, nil
	}
	if !wholeNumber.MatchString(s) {
		return 0, apperr.Invalid("limit", "must be a whole number")
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil && strings.HasPrefix(s, "-"), err == nil && n < 1:
		return 1, nil
	case err != nil, n > most:
		return most, nil
	}
	return n, nil
}
