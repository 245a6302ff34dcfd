package sizing

// ParseInput reads the request body of POST /api/calculator in the shape
// every client sends: one JSON object of known keys (each at most once)
// whose values are plain ASCII strings or null, feeSchedule a nested object
// of the same kind. It does what encoding/json does with such a body (with
// unknown fields refused), in a single pass and without reflection: decoding
// was half the handler's time.
//
// ok is false, with a zero Input, for anything else (escapes, non-ASCII
// text, numbers, unknown or repeated keys, bad syntax, trailing data):
// decode the body with
// encoding/json then, which gives the same Input for what ParseInput
// accepts (FuzzParseInput) and the documented errors for the rest.
func ParseInput(body []byte) (in Input, ok bool) {
	p := inputParser{data: body}
	var seen uint16
	ok = p.object(func(key []byte) bool {
		i := inputKeyIndex(key)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		switch i {
		case 0, 1: // mode, direction: plain strings; null leaves them empty
			s, isNull, ok := p.stringOrNull()
			if !ok {
				return false
			}
			if !isNull && i == 0 {
				in.Mode = s
			} else if !isNull {
				in.Direction = s
			}
			return true
		case 2:
			return p.feeSchedule(&in.FeeSchedule)
		}
		return p.field(inputFields(&in)[i-3])
	})
	if !ok || !p.end() {
		return Input{}, false
	}
	return in, true
}

// inputKeyIndex numbers the keys of Input: mode, direction, feeSchedule,
// then the decimal fields in the order of inputFields; -1 for anything else.
func inputKeyIndex(key []byte) int {
	switch string(key) { // no allocation: the conversion is only compared
	case "mode":
		return 0
	case "direction":
		return 1
	case "feeSchedule":
		return 2
	case "entryPrice":
		return 3
	case "stopLoss":
		return 4
	case "targetPrice":
		return 5
	case "dollarRisk":
		return 6
	case "balance":
		return 7
	case "riskPercent":
		return 8
	case "buyingPower":
		return 9
	case "manualFees":
		return 10
	}
	return -1
}

func inputFields(in *Input) [8]*Field {
	return [8]*Field{&in.EntryPrice, &in.StopLoss, &in.TargetPrice, &in.DollarRisk,
		&in.Balance, &in.RiskPercent, &in.BuyingPower, &in.ManualFees}
}

func feeKeyIndex(key []byte) int {
	switch string(key) {
	case "stockPerShareCommission":
		return 0
	case "stockMinPerFill":
		return 1
	case "stockMaxPerFill":
		return 2
	case "optionsPerContractCommission":
		return 3
	case "optionsPerContractExchangeFee":
		return 4
	case "optionsMinPerFill":
		return 5
	case "optionsMaxPerFill":
		return 6
	}
	return -1
}

// inputParser is a cursor over the body.
type inputParser struct {
	data []byte
	pos  int
}

func (p *inputParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// consume skips white space and then the byte c, if it is next.
func (p *inputParser) consume(c byte) bool {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling member with the cursor on each
// value (white space before it skipped); member reads the value.
func (p *inputParser) object(member func(key []byte) bool) bool {
	if !p.consume('{') {
		return false
	}
	if p.consume('}') {
		return true
	}
	for {
		p.skipSpace()
		key, ok := p.plainString()
		if !ok || !p.consume(':') {
			return false
		}
		p.skipSpace()
		if !member(key) {
			return false
		}
		if p.consume('}') {
			return true
		}
		if !p.consume(',') {
			return false
		}
	}
}

// plainString reads a string of printable ASCII without escapes and returns
// its text.
func (p *inputParser) plainString() ([]byte, bool) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return nil, false
	}
	start := p.pos + 1
	for i := start; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			return p.data[start:i], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// null reads the literal null.
func (p *inputParser) null() bool {
	if len(p.data)-p.pos >= 4 && string(p.data[p.pos:p.pos+4]) == "null" {
		p.pos += 4
		return true
	}
	return false
}

func (p *inputParser) stringOrNull() (s string, isNull, ok bool) {
	if p.null() {
		return "", true, true
	}
	b, ok := p.plainString()
	return string(b), false, ok
}

// field reads a decimal field's value: a string, or null for absent (what
// Field.UnmarshalJSON makes of them).
func (p *inputParser) field(f *Field) bool {
	s, isNull, ok := p.stringOrNull()
	switch {
	case !ok:
		return false
	case isNull:
		*f = Field{}
	default:
		*f = NewField(s)
	}
	return true
}

// feeSchedule reads the feeSchedule value: null, or an object of fee keys.
func (p *inputParser) feeSchedule(dst **FeeScheduleInput) bool {
	if p.null() {
		*dst = nil
		return true
	}
	fs := new(FeeScheduleInput)
	fields := [7]*Field{&fs.StockPerShareCommission, &fs.StockMinPerFill, &fs.StockMaxPerFill,
		&fs.OptionsPerContractCommission, &fs.OptionsPerContractExchangeFee, &fs.OptionsMinPerFill, &fs.OptionsMaxPerFill}
	var seen uint8
	ok := p.object(func(key []byte) bool {
		i := feeKeyIndex(key)
		if i < 0 || seen&(1<<i) != 0 {
			return false
		}
		seen |= 1 << i
		return p.field(fields[i])
	})
	*dst = fs
	return ok
}

// end reports that only white space follows.
func (p *inputParser) end() bool {
	p.skipSpace()
	return p.pos == len(p.data)
}
