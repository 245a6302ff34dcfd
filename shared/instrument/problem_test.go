package instrument

import "tradejournal/shared/apperr"

// problem reads the one field problem of a validator's error ("", "" for nil).
func problem(err error) (field, msg string) {
	if e, ok := apperr.As(err); ok && len(e.Details) == 1 {
		return e.Details[0].Field, e.Details[0].Message
	}
	if err != nil {
		return "?", err.Error()
	}
	return "", ""
}
