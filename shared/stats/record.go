package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"time"

	"github.com/shopspring/decimal"
)

// The statistics read the journal's closed trades from closed_trades: one
// row per account and UTC day of close, its closes packed into one bytea
// in close order. This file is that packing, the only one: the journal
// store encodes rows with EncodeRow in the transaction of every write that
// touches them (shared/journalstore), and the report decodes them
// (rowDecoder). TestRecordRoundTrip holds every field to both.
//
// A row (RecordVersion 2):
//
//	version    byte, RecordVersion
//	strings    uvarint count, then each: uvarint length, UTF-8
//	           (asset types, symbols, underlyings, strategy kinds)
//	ids        uvarint count, then each 16 bytes (tags, playbooks, criteria)
//	records    until the end, each:
//	  closed     uvarint µs after the record before (the first: after 00:00 UTC of the row's day)
//	  held       uvarint µs from the opening to the close
//	  flags      uvarint: flagShort, flagR, flagPlaybook, flagUnderlying, flagMAE,
//	             flagMFE, flagExcursionR (one byte so far), flagStrategy,
//	             flagHitTarget, flagHitStop
//	  asset type uvarint string index
//	  symbol     uvarint string index
//	  underlying uvarint string index (flagUnderlying: else the symbol's)
//	  tags       uvarint count, then each a uvarint id index
//	  playbook   (flagPlaybook) uvarint id index, then the met criteria: uvarint count, each a uvarint id index
//	  strategy   (flagStrategy) uvarint string index of its kind
//	  net, gross, fees  zigzag varints of ten-thousandths (128 bits)
//	  r          (flagR) zigzag varint of ten-thousandths
//	  mae        (flagMAE) zigzag varint of ten-thousandths of money, then
//	             (flagExcursionR) its R the same way, each within 64 bits
//	             (ExcursionFits)
//	  mfe        (flagMFE) the same
//	  at hit     (flagHitTarget or flagHitStop) zigzag varint of ten-thousandths
//	  quantity, notional  uvarints of the float64's bits in reversed byte order
//
// What a filter reads comes before the figures, so a refused record's
// figures are skipped unread. Everything is a count or an index, so a row
// of 100,000 positions' worth of closes is a third of its fixed-width
// ancestor's size: PostgreSQL sends and Go reads that much less. A change
// of layout is a new RecordVersion and a migration that queues every
// journal for a rebuild (journalstore.Migrate).

// RecordVersion is the layout this file writes and reads: a row of another
// version is not read (errRecordVersion) until the journal is rebuilt.
const RecordVersion = 2

// Record flags: those a position's record most often carries first, so
// its flags take one byte.
const (
	flagShort      = 1 << iota // opened short (a strategy: for a credit)
	flagR                      // an R multiple follows the fees
	flagPlaybook               // follows a playbook
	flagUnderlying             // the underlying differs from the symbol
	flagMAE                    // an adverse excursion follows
	flagMFE                    // a favourable excursion follows
	flagExcursionR             // each excursion carries an R
	flagStrategy               // a strategy's record (its legs have none)
	flagHitTarget              // the bars reached the target first: the money at it follows
	flagHitStop                // the bars reached the stop first: the money at it follows
)

// What Record.FirstHit says the bars reached first.
const (
	HitTarget = "target"
	HitStop   = "stop"
)

// Excursion is a trade's move to a price it reached, in its account's
// currency: money (4 places, negative against the trade) and, when the
// trade has an initial risk, R (2 places).
type Excursion struct {
	Money decimal.Decimal
	R     *decimal.Decimal
}

// Record is one closed trade: a position in no strategy, or a strategy
// whose legs are all closed (its legs' sums, its first opening and last
// close, what the strategy engine made of it).
type Record struct {
	ClosedAt, OpenedAt time.Time
	Short              bool
	AssetType, Symbol  string
	Underlying         string // an option's or a future's underlying; the symbol for anything else
	Tags               [][16]byte
	Playbook           *[16]byte
	Met                [][16]byte // the criteria of the playbook it met
	Strategy           string     // a strategy's kind; "" for a position
	Net, Gross, Fees   decimal.Decimal
	R                  *decimal.Decimal
	Quantity, Notional float64 // entry quantity and its cost, only averaged
	// MAE and MFE are the excursions to the position's maximum adverse and
	// favourable prices (typed, else measured from bars), nil when it has
	// none; both carry an R or neither.
	MAE, MFE *Excursion
	// FirstHit is which of its stop and target the price bars reached
	// first (HitTarget, HitStop; "" neither, or not measured), and AtHit
	// the money an exit there would have made.
	FirstHit string
	AtHit    decimal.Decimal
}

// ExcursionFits reports whether EncodeRow can hold d as an excursion's
// money or R, or the money at a first hit: at most 4 places, below 10^14
// in magnitude, so its ten-thousandths are an int64 (the percentiles sort
// them as such). The journal store leaves out a figure past it (a price
// typed far off) rather than fail the write.
func ExcursionFits(d decimal.Decimal) bool {
	_, err := unitsOf(d)
	return err == nil && d.Abs().LessThan(excursionBound)
}

var excursionBound = decimal.New(1, 14)

// errRecordVersion answers a row of another layout: the journal awaits its
// rebuild (the deploy's migrate step).
var errRecordVersion = errors.New("a closed_trades row of another record version: the journal awaits its rebuild")

// table is one of a row's tables: its values in order of first use.
type table[V comparable] struct {
	list  []V
	index map[V]uint64
}

// of is v's index in the table, added if new.
func (t *table[V]) of(v V) uint64 {
	i, ok := t.index[v]
	if !ok {
		if t.index == nil {
			t.index = map[V]uint64{}
		}
		i = uint64(len(t.list))
		t.index[v] = i
		t.list = append(t.list, v)
	}
	return i
}

// EncodeRow packs the records of one account and UTC day, in close order.
func EncodeRow(day time.Time, recs []Record) ([]byte, error) {
	var strTable table[string]
	var idTable table[[16]byte]
	str, id := strTable.of, idTable.of
	var body []byte
	prev := day.UnixMicro()
	for i := range recs {
		r := &recs[i]
		at, opened := r.ClosedAt.UnixMicro(), r.OpenedAt.UnixMicro()
		if at < prev || opened > at || dayOf(r.ClosedAt) != dayOf(day) {
			return nil, fmt.Errorf("record %d: closed at %s, opened at %s: not in close order within %s", i, r.ClosedAt, r.OpenedAt,
				day.Format(time.DateOnly))
		}
		body = binary.AppendUvarint(body, uint64(at-prev))
		body = binary.AppendUvarint(body, uint64(at-opened))
		prev = at
		var flags uint64
		if r.Short {
			flags |= flagShort
		}
		if r.R != nil {
			flags |= flagR
		}
		if r.Playbook != nil {
			flags |= flagPlaybook
		}
		if r.Strategy != "" {
			flags |= flagStrategy
		}
		if r.Underlying != r.Symbol {
			flags |= flagUnderlying
		}
		excursions := make([]decimal.Decimal, 0, 5)
		for _, e := range []struct {
			x    *Excursion
			flag uint64
		}{{r.MAE, flagMAE}, {r.MFE, flagMFE}} {
			if e.x == nil {
				continue
			}
			flags |= e.flag
			excursions = append(excursions, e.x.Money)
			if e.x.R != nil {
				flags |= flagExcursionR
				excursions = append(excursions, *e.x.R)
			}
		}
		if r.MAE != nil && r.MFE != nil && (r.MAE.R == nil) != (r.MFE.R == nil) {
			return nil, fmt.Errorf("record %d: one excursion has an R and the other none", i)
		}
		switch r.FirstHit {
		case "":
		case HitTarget:
			flags |= flagHitTarget
		case HitStop:
			flags |= flagHitStop
		default:
			return nil, fmt.Errorf("record %d: first hit %q", i, r.FirstHit)
		}
		body = binary.AppendUvarint(body, flags)
		body = binary.AppendUvarint(body, str(r.AssetType))
		body = binary.AppendUvarint(body, str(r.Symbol))
		if flags&flagUnderlying != 0 {
			body = binary.AppendUvarint(body, str(r.Underlying))
		}
		body = binary.AppendUvarint(body, uint64(len(r.Tags)))
		for _, t := range r.Tags {
			body = binary.AppendUvarint(body, id(t))
		}
		if r.Playbook != nil {
			body = binary.AppendUvarint(body, id(*r.Playbook))
			body = binary.AppendUvarint(body, uint64(len(r.Met)))
			for _, m := range r.Met {
				body = binary.AppendUvarint(body, id(m))
			}
		}
		if r.Strategy != "" {
			body = binary.AppendUvarint(body, str(r.Strategy))
		}
		figures := []decimal.Decimal{r.Net, r.Gross, r.Fees}
		if r.R != nil {
			figures = append(figures, *r.R)
		}
		if r.FirstHit != "" {
			excursions = append(excursions, r.AtHit)
		}
		for _, d := range excursions {
			if !ExcursionFits(d) {
				return nil, fmt.Errorf("record %d: excursion %s past its bound", i, d)
			}
		}
		// An int64's zigzag varint is appendUnits' of the same value.
		figures = append(figures, excursions...)
		for _, d := range figures {
			u, err := unitsOf(d)
			if err != nil {
				return nil, fmt.Errorf("record %d: %w", i, err)
			}
			body = appendUnits(body, u)
		}
		body = binary.AppendUvarint(body, bits.ReverseBytes64(math.Float64bits(r.Quantity)))
		body = binary.AppendUvarint(body, bits.ReverseBytes64(math.Float64bits(r.Notional)))
	}
	strs, ids := strTable.list, idTable.list
	out := make([]byte, 0, 1+len(body)+16*len(ids)+8*len(strs)+4)
	out = append(out, RecordVersion)
	out = binary.AppendUvarint(out, uint64(len(strs)))
	for _, s := range strs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	out = binary.AppendUvarint(out, uint64(len(ids)))
	for _, v := range ids {
		out = append(out, v[:]...)
	}
	return append(out, body...), nil
}

// unitsOf is d in ten-thousandths; a figure with a digit beyond four
// places, or beyond 128 bits, is refused (numeric(24, 4) holds neither).
func unitsOf(d decimal.Decimal) (units, error) {
	c, exp := d.Coefficient(), d.Exponent()
	switch {
	case exp >= -4:
		c.Mul(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp+4)), nil))
	default:
		var rem big.Int
		c.QuoRem(c, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-4-exp)), nil), &rem)
		if rem.Sign() != 0 {
			return units{}, fmt.Errorf("%s has more than 4 places", d)
		}
	}
	if c.BitLen() > 126 {
		return units{}, fmt.Errorf("%s is too large", d)
	}
	neg := c.Sign() < 0
	var b [16]byte
	c.Abs(c).FillBytes(b[:])
	m := units{hi: int64(binary.BigEndian.Uint64(b[:8])), lo: binary.BigEndian.Uint64(b[8:])}
	if neg {
		m = units{hi: ^m.hi, lo: ^m.lo}.add(units{lo: 1})
	}
	return m, nil
}

// appendUnits appends u zigzag-encoded as a varint of up to 128 bits.
func appendUnits(b []byte, u units) []byte {
	sign := uint64(u.hi >> 63) // all ones for a negative u
	hi := uint64(u.hi)<<1 | u.lo>>63 ^ sign
	lo := u.lo<<1 ^ sign
	for hi != 0 || lo >= 0x80 {
		b = append(b, byte(lo)|0x80)
		lo = lo>>7 | hi<<57
		hi >>= 7
	}
	return append(b, byte(lo))
}

var errTruncated = errors.New("truncated record")

// rowReader reads one row: its tables, then its records one at a time.
// It reports a malformed row as an error, never a panic: a row is the
// database's, but a damaged one must not take the process down. Its place
// is an index, not a re-sliced b: the reader lives on the heap, where
// every store of a slice would pay the collector's write barrier.
type rowReader struct {
	b   []byte
	i   int
	err error
}

// more reports whether a record is left.
func (r *rowReader) more() bool { return r.i < len(r.b) }

func (r *rowReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.i = len(r.b)
}

func (r *rowReader) uvarint() uint64 {
	if r.i < len(r.b) && r.b[r.i] < 0x80 { // most values: one byte
		v := uint64(r.b[r.i])
		r.i++
		return v
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.fail(errTruncated)
		return 0
	}
	r.i += n
	return v
}

// index reads a uvarint index below n; one past it fails the read and
// reads as 0 (which the caller never uses: it checks err first).
func (r *rowReader) index(n int) int {
	v := r.uvarint()
	if v >= uint64(n) {
		r.fail(errors.New("an index past its table"))
		return 0
	}
	return int(v)
}

// pick reads a uvarint index into table and returns its entry; an index
// past the table fails the read and returns none.
func pick[T any](r *rowReader, table []T, none T) T {
	v := r.uvarint()
	if v >= uint64(len(table)) {
		r.fail(errors.New("an index past its table"))
		return none
	}
	return table[v]
}

func (r *rowReader) byte() byte {
	if r.i >= len(r.b) {
		r.fail(errTruncated)
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

// units reads appendUnits' varint: through binary.Uvarint when it fits 64
// bits (every figure below 9e14), byte by byte otherwise.
func (r *rowReader) units() units {
	if v, n := binary.Uvarint(r.b[r.i:]); n > 0 {
		r.i += n
		sign := -(v & 1) // all ones for a negative value
		return units{hi: int64(sign), lo: v>>1 ^ sign}
	}
	var hi, lo uint64
	for shift := uint(0); ; shift += 7 {
		if r.i >= len(r.b) || shift >= 128 {
			r.fail(errTruncated)
			return units{}
		}
		c := uint64(r.b[r.i])
		r.i++
		v := c & 0x7f
		switch {
		case shift < 64:
			lo |= v << shift
			if shift > 57 {
				hi |= v >> (64 - shift)
			}
		default:
			hi |= v << (shift - 64)
		}
		if c < 0x80 {
			break
		}
	}
	sign := -(lo & 1) // all ones for a negative value
	lo = (lo>>1 | hi<<63) ^ sign
	hi = hi>>1 ^ sign
	return units{hi: int64(hi), lo: lo}
}

// skipVarint passes over one varint of any width.
func (r *rowReader) skipVarint() {
	for r.i < len(r.b) {
		r.i++
		if r.b[r.i-1] < 0x80 {
			return
		}
	}
	r.fail(errTruncated)
}

func (r *rowReader) float() float64 {
	return math.Float64frombits(bits.ReverseBytes64(r.uvarint()))
}

// header reads a row's version and tables: each string and id is passed
// to the callbacks in table order, which give what the caller knows it by.
func header[S, I any](r *rowReader, str func([]byte) S, id func([16]byte) I, strs []S, ids []I) ([]S, []I) {
	if r.byte() != RecordVersion {
		r.fail(errRecordVersion)
		return strs, ids
	}
	n := r.uvarint()
	for range n {
		l := r.uvarint()
		if r.err != nil || uint64(len(r.b)-r.i) < l {
			r.fail(errTruncated)
			return strs, ids
		}
		strs = append(strs, str(r.b[r.i:r.i+int(l)]))
		r.i += int(l)
	}
	n = r.uvarint()
	if r.err != nil || uint64(len(r.b)-r.i)/16 < n {
		r.fail(errTruncated)
		return strs, ids
	}
	for range n {
		ids = append(ids, id([16]byte(r.b[r.i:])))
		r.i += 16
	}
	return strs, ids
}

// head reads a record up to its figures into c (zeroed, its tags and met
// empty): the close and opening times (prev: the close before, Unix µs),
// side, instrument (as indexes into the row's strs strings), tags,
// playbook and the criteria of it met, strategy kind (1 + its string's
// index). ids is the row's id table as the caller knows it; a tag,
// playbook or criterion the journal no longer has is left out.
func (r *rowReader) head(c *closed, prev int64, strs int, ids []idRef, criteria []criterion) {
	none := idRef{-1, -1, -1}
	c.at = prev + int64(r.uvarint())
	c.opened = c.at - int64(r.uvarint())
	flags := r.uvarint()
	c.flags = uint16(flags)
	c.long, c.hasR = flags&flagShort == 0, flags&flagR != 0
	c.assetType = int32(r.index(strs))
	c.symbol = int32(r.index(strs))
	c.underlying = c.symbol
	if flags&flagUnderlying != 0 {
		c.underlying = int32(r.index(strs))
	}
	for n := r.uvarint(); n > 0 && r.err == nil; n-- {
		if t := pick(r, ids, none).tag; t >= 0 {
			c.tags = append(c.tags, t)
		}
	}
	c.playbook = -1
	if flags&flagPlaybook != 0 {
		c.playbook = pick(r, ids, none).book
		for n := r.uvarint(); n > 0 && r.err == nil; n-- {
			m := pick(r, ids, none).crit
			if m >= 0 && c.playbook >= 0 && criteria[m].playbook == c.playbook {
				c.met = append(c.met, m)
			}
		}
	}
	if flags&flagStrategy != 0 {
		c.strategy = 1 + int32(r.index(strs))
	}
}

// figures reads the rest of a record: net, gross, fees, R, the
// excursions and the money at the first hit, quantity and notional.
func (r *rowReader) figures(c *closed) {
	c.net, c.gross, c.fees = r.units(), r.units(), r.units()
	if c.hasR {
		c.r = r.units()
	}
	if c.flags&(flagMAE|flagMFE|flagHitTarget|flagHitStop) != 0 {
		r.excursions(c)
	}
	c.quantity, c.notional = r.float(), r.float()
}

// excursions reads a record's excursions and money at its first hit.
func (r *rowReader) excursions(c *closed) {
	withR := c.flags&flagExcursionR != 0
	if c.flags&flagMAE != 0 {
		c.mae = r.varint()
		if withR {
			c.maeR = r.varint()
		}
	}
	if c.flags&flagMFE != 0 {
		c.mfe = r.varint()
		if withR {
			c.mfeR = r.varint()
		}
	}
	if c.flags&(flagHitTarget|flagHitStop) != 0 {
		c.atHit = r.varint()
	}
}

// varint reads a zigzag varint of 64 bits; a longer one fails the read.
func (r *rowReader) varint() int64 {
	v := r.uvarint()
	return int64(v>>1) ^ -int64(v&1)
}

// skipFigures passes over what figures reads.
func (r *rowReader) skipFigures(c *closed) {
	n := 5
	if c.hasR {
		n++
	}
	perExcursion := 1
	if c.flags&flagExcursionR != 0 {
		perExcursion = 2
	}
	for _, f := range []uint16{flagMAE, flagMFE} {
		if c.flags&f != 0 {
			n += perExcursion
		}
	}
	if c.flags&(flagHitTarget|flagHitStop) != 0 {
		n++
	}
	for range n {
		r.skipVarint()
	}
}
