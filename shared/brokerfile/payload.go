package brokerfile

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"tradejournal/shared/instrument"
	"tradejournal/shared/money"
)

// The staged form of an import's fills: a version line, then one line per
// fill of tab-separated fields (row, symbol, asset type, multiplier, side,
// effect, price, quantity, fees, flags, Unix microseconds, trip, the
// quantity, symbol and side columns, and the broker's order id). Symbols,
// decimals, the words and order ids (validOrderID) never hold a tab or a
// line break, so no quoting is needed; it is about 70 bytes a fill, and
// encoding and decoding 10,000 fills takes a few milliseconds. The order id
// travels with the fills because the commit groups strategies from the
// staged fills by the preview's rule (GroupStrategies): it plans them again
// against the journal as it is then, so the preview's groups themselves
// could name positions the commit no longer creates. A line of 15 fields
// (staged before order ids were) reads with no order id; one of 16 with no
// rate, quote or fee asset, which lines of 19 add (forex, crypto, CFDs;
// "" for none).
const payloadVersion = "tjcsv1"

// EncodeFills writes fills in the staged form.
func EncodeFills(fills []Fill) []byte { return EncodeStaged([]Part{{Fills: fills}}, 0) }

// Part is the fills of a staged preview that go to one journal account:
// AccountID "" is the account of the preview itself.
type Part struct {
	AccountID string
	Fills     []Fill
}

// EncodeStaged writes the parts' fills in the staged form, with the number
// of rows a partial import left out (0 for a whole file) on the version
// line. A part with an account id starts with a line "@" and the id (a
// fill line starts with its row number).
func EncodeStaged(parts []Part, leftOut int) []byte {
	n := 0
	for _, pt := range parts {
		n += len(pt.Fills)
	}
	var b bytes.Buffer
	b.Grow(len(payloadVersion) + 24 + 84*n + 40*len(parts))
	b.WriteString(payloadVersion)
	if leftOut > 0 {
		b.WriteString(" partial ")
		b.WriteString(strconv.Itoa(leftOut))
	}
	b.WriteByte('\n')
	for _, pt := range parts {
		if pt.AccountID != "" {
			b.WriteByte('@')
			b.WriteString(pt.AccountID)
			b.WriteByte('\n')
		}
		writeFills(&b, pt.Fills)
	}
	return b.Bytes()
}

func writeFills(b *bytes.Buffer, fills []Fill) {
	var num [24]byte
	for i := range fills {
		f := &fills[i]
		b.Write(strconv.AppendInt(num[:0], int64(f.Row), 10))
		b.WriteByte('\t')
		b.WriteString(f.Symbol)
		b.WriteByte('\t')
		b.WriteString(f.AssetType)
		b.WriteByte('\t')
		b.WriteString(f.Multiplier.String())
		b.WriteByte('\t')
		b.WriteString(f.Side)
		b.WriteByte('\t')
		b.WriteString(f.Effect)
		b.WriteByte('\t')
		b.WriteString(f.Price.String())
		b.WriteByte('\t')
		b.WriteString(f.Quantity.String())
		b.WriteByte('\t')
		b.WriteString(f.Fees.String())
		b.WriteByte('\t')
		flags := 0
		if f.FeesGiven {
			flags |= 1
		}
		if f.FeeEstimated {
			flags |= 2
		}
		b.WriteByte(byte('0' + flags))
		b.WriteByte('\t')
		b.Write(strconv.AppendInt(num[:0], f.FilledAt.UnixMicro(), 10))
		b.WriteByte('\t')
		b.Write(strconv.AppendInt(num[:0], int64(f.Trip), 10))
		b.WriteByte('\t')
		b.Write(strconv.AppendInt(num[:0], int64(f.QtyColumn), 10))
		b.WriteByte('\t')
		b.Write(strconv.AppendInt(num[:0], int64(f.SymbolColumn), 10))
		b.WriteByte('\t')
		b.Write(strconv.AppendInt(num[:0], int64(f.SideColumn), 10))
		b.WriteByte('\t')
		b.WriteString(f.OrderID)
		if f.Rate != nil || f.Quote != "" || f.FeeAsset != "" {
			b.WriteByte('\t')
			if f.Rate != nil {
				b.WriteString(f.Rate.String())
			}
			b.WriteByte('\t')
			b.WriteString(f.Quote)
			b.WriteByte('\t')
			b.WriteString(f.FeeAsset)
		}
		b.WriteByte('\n')
	}
}

// ErrPayload is DecodeFills' answer to data it did not write.
var ErrPayload = errors.New("csvimport: staged payload is corrupt")

// DecodeFills reads what EncodeFills wrote.
func DecodeFills(data []byte) ([]Fill, error) {
	parts, _, err := DecodeStaged(data)
	if err != nil {
		return nil, err
	}
	if len(parts) != 1 || parts[0].AccountID != "" {
		return nil, ErrPayload
	}
	return parts[0].Fills, nil
}

// DecodeStaged reads what EncodeStaged wrote: the parts and the rows the
// partial import left out.
func DecodeStaged(data []byte) ([]Part, int, error) {
	head, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return nil, 0, ErrPayload
	}
	leftOut := 0
	if n, found := strings.CutPrefix(string(head), payloadVersion+" partial "); found {
		var err error
		if leftOut, err = strconv.Atoi(n); err != nil || leftOut < 1 {
			return nil, 0, ErrPayload
		}
	} else if string(head) != payloadVersion {
		return nil, 0, ErrPayload
	}
	var parts []Part
	for first := true; first || len(rest) > 0; first = false {
		var pt Part
		if len(rest) > 0 && rest[0] == '@' {
			var line []byte
			line, rest, ok = bytes.Cut(rest[1:], []byte{'\n'})
			if !ok || len(line) == 0 || len(line) > 64 {
				return nil, 0, ErrPayload
			}
			pt.AccountID = string(line)
		} else if !first {
			return nil, 0, ErrPayload
		}
		// The part's fill lines run to the next part's "@" line.
		end := len(rest)
		if len(rest) > 0 && rest[0] == '@' {
			end = 0
		} else if i := bytes.Index(rest, []byte("\n@")); i >= 0 {
			end = i + 1
		}
		chunk := rest[:end]
		rest = rest[end:]
		fills, err := decodeLines(chunk)
		if err != nil {
			return nil, 0, err
		}
		pt.Fills = fills
		parts = append(parts, pt)
	}
	return parts, leftOut, nil
}

func decodeLines(rest []byte) ([]Fill, error) {
	ok := true
	fills := make([]Fill, 0, bytes.Count(rest, []byte{'\n'}))
	for len(rest) > 0 {
		var line []byte
		line, rest, ok = bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return nil, ErrPayload
		}
		parts := strings.Split(string(line), "\t")
		var (
			f   Fill
			err error
			n   [6]int64
		)
		if len(parts) != 15 && len(parts) != 16 && len(parts) != 19 {
			return nil, ErrPayload
		}
		if len(parts) == 19 {
			if parts[16] != "" {
				r, err := money.Parse(parts[16])
				if err != nil || !r.IsPositive() {
					return nil, ErrPayload
				}
				f.Rate = &r
			}
			f.Quote, f.FeeAsset = parts[17], parts[18]
			if f.Quote != "" && !instrument.ValidAsset(f.Quote) || f.FeeAsset != "" && !instrument.ValidAsset(f.FeeAsset) {
				return nil, ErrPayload
			}
		}
		if len(parts) >= 16 {
			if f.OrderID = parts[15]; !validOrderID(f.OrderID) {
				return nil, ErrPayload
			}
		}
		for k, idx := range []int{0, 10, 11, 12, 13, 14} {
			if n[k], err = strconv.ParseInt(parts[idx], 10, 64); err != nil {
				return nil, ErrPayload
			}
		}
		f.Row, f.Trip, f.QtyColumn, f.SymbolColumn, f.SideColumn = int(n[0]), int(n[2]), int(n[3]), int(n[4]), int(n[5])
		f.FilledAt = time.UnixMicro(n[1]).UTC()
		f.Symbol, f.AssetType, f.Side, f.Effect = parts[1], parts[2], parts[4], parts[5]
		if f.Multiplier, err = money.Parse(parts[3]); err != nil {
			return nil, ErrPayload
		}
		if f.Price, err = money.Parse(parts[6]); err != nil {
			return nil, ErrPayload
		}
		if f.Quantity, err = money.Parse(parts[7]); err != nil {
			return nil, ErrPayload
		}
		if f.Fees, err = money.Parse(parts[8]); err != nil {
			return nil, ErrPayload
		}
		flags := parts[9]
		if len(flags) != 1 || flags[0] < '0' || flags[0] > '3' {
			return nil, ErrPayload
		}
		f.FeesGiven, f.FeeEstimated = (flags[0]-'0')&1 != 0, (flags[0]-'0')&2 != 0
		switch {
		case f.Symbol == "", !instrument.ValidAssetType(f.AssetType),
			f.Side != Buy && f.Side != Sell, f.Effect != "" && f.Effect != EffectOpen && f.Effect != EffectClose,
			!f.Multiplier.IsPositive(), f.Price.IsNegative(), !f.Quantity.IsPositive(), f.Fees.IsNegative() && !instrument.QuotedApart(f.AssetType):
			return nil, ErrPayload
		}
		fills = append(fills, f)
	}
	return fills, nil
}
