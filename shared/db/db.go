// Package db opens the PostgreSQL pool, applies the embedded migrations and
// holds what every store shares: error mapping, the querier interfaces, ids.
package db

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	pgxdecimal "github.com/jackc/pgx-shopspring-decimal"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"tradejournal/migrations"
)

// Options shape the pool: DB_POOL_SIZE and DB_TRANSACTION_POOLER.
type Options struct {
	PoolSize int
	// TransactionPooler turns prepared statements off: a transaction-mode
	// pooler (PgBouncer, RDS Proxy) may hand each statement to another backend.
	TransactionPooler bool
}

// Open returns a pool for url. It does not wait for the database: the pool
// connects lazily, so a host starts (and answers its health check) while
// PostgreSQL is still coming up.
func Open(ctx context.Context, url string, opt Options) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, errors.New("database URL is not valid") // the URL may hold a password: never echo it
	}
	if opt.PoolSize > 0 {
		cfg.MaxConns = int32(opt.PoolSize)
	}
	if opt.TransactionPooler {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		pgxdecimal.Register(c.TypeMap())
		c.TypeMap().RegisterType(&pgtype.Type{Name: "numeric", OID: pgtype.NumericOID, Codec: decimalCodec{}})
		return nil
	}
	// A restart (or a killed backend) leaves every pooled connection dead,
	// each failing the next request that takes it. The first backend that
	// says so (57P01-57P05, FATAL) makes the pool drop all the connections
	// it holds; a read retried with FreshConns pings each one it takes.
	var self atomic.Pointer[pgxpool.Pool]
	cfg.ConnConfig.OnPgError = func(_ *pgconn.PgConn, e *pgconn.PgError) bool {
		if serverGone(e.Code) {
			if p := self.Load(); p != nil {
				p.Reset()
			}
		}
		return !strings.EqualFold(e.Severity, "FATAL") // pgx's default: a FATAL error closes the connection
	}
	cfg.ShouldPing = func(ctx context.Context, p pgxpool.ShouldPingParams) bool {
		return p.IdleDuration > time.Second || ctx.Value(freshKey{}) != nil // pgx's default, and the retry's
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	self.Store(pool)
	return pool, nil
}

// decimalCodec is pgx-shopspring-decimal's numeric codec, planning a scan
// into a decimal.Decimal itself. pgx tries a target's sql.Scanner before
// the wrapper that package registers, and decimal.Decimal's Scan parses
// the number's text: reading a day's closes, that was most of the Go CPU
// of the journal store's refresh of the statistics' rows.
type decimalCodec struct{ pgxdecimal.NumericCodec }

func (c decimalCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*decimal.Decimal); ok {
		if next := c.NumericCodec.PlanScan(m, oid, format, (*pgxdecimal.Decimal)(nil)); next != nil {
			if format == pgtype.BinaryFormatCode {
				return binaryDecimalScan{decimalScan{next}}
			}
			return decimalScan{next}
		}
	}
	return c.NumericCodec.PlanScan(m, oid, format, target)
}

// decimalScan scans into a *decimal.Decimal as into pgxdecimal's Decimal
// (its pgtype.NumericScanner).
type decimalScan struct{ next pgtype.ScanPlan }

func (p decimalScan) Scan(src []byte, target any) error {
	return p.next.Scan(src, (*pgxdecimal.Decimal)(target.(*decimal.Decimal)))
}

// binaryDecimalScan reads a binary numeric of up to 36 digits (every
// price, quantity and amount of a journal, at the 18 places a crypto
// column keeps) in 128-bit integer steps, with the exponent pgx gives it
// (the column's scale; an integer without its trailing zeros), and leaves
// the rest to pgx. pgx builds each one in big.Int steps: 4.0 us against
// 0.3 (BenchmarkNumeric), half the Go CPU of reading a year's trades for
// the rules' compliance.
type binaryDecimalScan struct{ decimalScan }

func (p binaryDecimalScan) Scan(src []byte, target any) error {
	if v, ok := smallNumeric(src); ok {
		*target.(*decimal.Decimal) = v
		return nil
	}
	return p.decimalScan.Scan(src, target)
}

// smallNumeric decodes PostgreSQL's binary numeric (ndigits, weight, sign,
// dscale, then base-10,000 digits) when its coefficient fits 128 bits; ok
// is false for anything else (NaN, infinities, longer numbers, a short
// buffer, a 32-bit platform).
func smallNumeric(src []byte) (decimal.Decimal, bool) {
	if len(src) < 8 || bits.UintSize != 64 {
		return decimal.Decimal{}, false
	}
	ndigits := int(binary.BigEndian.Uint16(src))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	dscale := int(int16(binary.BigEndian.Uint16(src[6:])))
	if ndigits > 9 || len(src) != 8+2*ndigits || sign != 0 && sign != 0x4000 || dscale < 0 {
		return decimal.Decimal{}, false
	}
	var coef u128
	ok := true
	for i := range ndigits {
		d := uint64(binary.BigEndian.Uint16(src[8+2*i:]))
		if d >= 10000 {
			return decimal.Decimal{}, false
		}
		if coef, ok = coef.mulAdd(10000, d); !ok {
			return decimal.Decimal{}, false
		}
	}
	exp := (weight - ndigits + 1) * 4
	if frac := (ndigits - weight - 1) * 4; dscale > 0 && ndigits > 0 {
		for ; frac < dscale; frac++ {
			if coef, ok = coef.mulAdd(10, 0); !ok {
				return decimal.Decimal{}, false
			}
			exp--
		}
		for ; frac > dscale; frac-- {
			coef, _ = coef.divMod10()
			exp++
		}
	}
	if ndigits == 0 {
		exp = 0
	}
	for exp >= 0 && !coef.isZero() {
		q, r := coef.divMod10()
		if r != 0 {
			break
		}
		coef, exp = q, exp+1
	}
	if coef.hi == 0 && coef.lo <= math.MaxInt64 {
		v := int64(coef.lo)
		if sign != 0 {
			v = -v
		}
		return decimal.New(v, int32(exp)), true
	}
	b := new(big.Int).SetBits([]big.Word{big.Word(coef.lo), big.Word(coef.hi)})
	if sign != 0 {
		b.Neg(b)
	}
	return decimal.NewFromBigInt(b, int32(exp)), true
}

// u128 is an unsigned 128-bit integer, for smallNumeric.
type u128 struct{ hi, lo uint64 }

// mulAdd is u*m + a; ok is false when that overflows 128 bits.
func (u u128) mulAdd(m, a uint64) (u128, bool) {
	carry, lo := bits.Mul64(u.lo, m)
	over, hi := bits.Mul64(u.hi, m)
	hi, c1 := bits.Add64(hi, carry, 0)
	lo, c2 := bits.Add64(lo, a, 0)
	hi, c3 := bits.Add64(hi, 0, c2)
	return u128{hi, lo}, over == 0 && c1 == 0 && c3 == 0
}

func (u u128) divMod10() (u128, uint64) {
	hi, r := bits.Div64(0, u.hi, 10)
	lo, r := bits.Div64(r, u.lo, 10)
	return u128{hi, lo}, r
}

func (u u128) isZero() bool { return u.hi == 0 && u.lo == 0 }

// migrateLockKey is the advisory lock that lets one process at a time migrate.
const migrateLockKey = 7240814

// Migrate applies every embedded migration not yet recorded, in order, each
// in its own transaction. Two processes starting together are serialised by
// an advisory lock, so each file runs exactly once. It refuses to run while
// an applied migration's file differs from the one that was applied
// (checkApplied), so every host stops at start instead of serving a schema
// its files no longer describe.
func Migrate(ctx context.Context, url string) (applied []string, err error) {
	return migrate(ctx, url, math.MaxInt)
}

// migrate is Migrate up to and including version upTo.
func migrate(ctx context.Context, url string, upTo int) (applied []string, err error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, errors.New("database URL is not valid")
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect for migrations: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLockKey); err != nil {
		return nil, fmt.Errorf("lock migrations: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrateLockKey) //nolint:errcheck // the session ends right after

	// checksum is added to the tables of databases created before it was
	// recorded, as well as to new ones.
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
		`ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("create schema_migrations: %w", err)
		}
	}
	files, err := migrationFiles()
	if err != nil {
		return nil, err
	}
	done, err := checkApplied(ctx, conn, files)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if done[f.version] || f.version > upTo {
			continue
		}
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, f.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
				f.version, f.name, f.checksum)
			return err
		}); err != nil {
			return applied, fmt.Errorf("migration %s: %w", f.name, err)
		}
		applied = append(applied, f.name)
	}
	return applied, nil
}

// checkApplied returns the versions already applied, after making sure
// each applied file is still the one that ran: a migration is never edited
// once it has landed (a database that applied the old text would never run
// the new one), so a changed file is an error naming every such file.
func checkApplied(ctx context.Context, conn *pgx.Conn, files []migration) (map[int]bool, error) {
	versions, sums := make([]int, len(files)), make([]string, len(files))
	for i, f := range files {
		versions[i], sums[i] = f.version, f.checksum
	}
	// Rows applied before checksums were recorded have none: nothing tells
	// what their file held then, so the file as it is now is taken as the
	// one that ran, once, and held to from then on. One statement, so a
	// failure leaves every row as it was.
	if _, err := conn.Exec(ctx, `UPDATE schema_migrations m SET checksum = f.checksum
		FROM unnest($1::integer[], $2::text[]) AS f(version, checksum)
		WHERE m.version = f.version AND m.checksum IS NULL`, versions, sums); err != nil {
		return nil, fmt.Errorf("record migration checksums: %w", err)
	}
	byVersion := make(map[int]migration, len(files))
	for _, f := range files {
		byVersion[f.version] = f
	}
	var (
		done     = map[int]bool{}
		changed  []string
		version  int
		recorded *string
	)
	rows, _ := conn.Query(ctx, "SELECT version, checksum FROM schema_migrations ORDER BY version")
	if _, err := pgx.ForEachRow(rows, []any{&version, &recorded}, func() error {
		done[version] = true
		if f, ok := byVersion[version]; ok && recorded != nil && *recorded != f.checksum {
			changed = append(changed, fmt.Sprintf("migration %s was changed after it was applied (recorded sha256 %s, file %s)",
				f.name, *recorded, f.checksum))
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	if len(changed) > 0 {
		return nil, errors.New(strings.Join(changed, "; ") + ": write a new migration instead")
	}
	return done, nil
}

type migration struct {
	version  int
	name     string
	sql      string
	checksum string // SHA-256 of the file's bytes, hex
}

func migrationFiles() ([]migration, error) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]migration, 0, len(names))
	for _, name := range names {
		num, _, _ := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", name)
		}
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out = append(out, migration{version: v, name: name, sql: string(body), checksum: hex.EncodeToString(sum[:])})
	}
	return out, nil
}

// Querier is what both a pool and a transaction offer, so store functions
// run the same inside or outside a transaction.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Beginner starts transactions: a pool, or a connection.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// NewUUID returns a random (version 4) UUID for a row its writer names
// itself. Bulk writers (the reservation gate, the CSV import) make their
// ids here rather than leave them to gen_random_uuid(), which PostgreSQL
// runs row by row inside the writing statement; and a writer that knows its
// ids can link rows (a position's fills) within one batch.
func NewUUID() pgtype.UUID {
	u := pgtype.UUID{Valid: true}
	_, _ = rand.Read(u.Bytes[:]) // crypto/rand.Read never fails
	u.Bytes[6] = u.Bytes[6]&0x0f | 0x40
	u.Bytes[8] = u.Bytes[8]&0x3f | 0x80
	return u
}
