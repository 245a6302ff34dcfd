package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
)

// The probe's statements. The application_name tags the probe's backend in
// pg_stat_activity for the length of its transaction (SET LOCAL), so an
// operator, and the tests, can tell it from the application's connections.
const (
	probeSettingsSQL = "SET LOCAL statement_timeout = 1000; SET LOCAL application_name = '" + ProbeApplicationName + "'"
	probePingSQL     = "SELECT 1"
	probeActivitySQL = `SELECT state, count(*) FROM pg_stat_activity WHERE datname = current_database() GROUP BY state`

	// ProbeApplicationName is the application_name of the probe's backend
	// while the probe runs.
	ProbeApplicationName = "tradejournal-metrics-probe"

	// probeDeadline is the client-side deadline of the whole probe; the
	// server-side statement timeout (1 s) is set in probeSettingsSQL.
	probeDeadline = 5 * time.Second
)

// connStates are the service_db_connections state values, in order; the
// database states that map to them are in stateIndex.
var connStates = [...]string{"active", "idle", "idle_in_transaction"}

// stateIndex maps a pg_stat_activity state to its label index, or -1 for a
// state that adds no series (fastpath function call, disabled, NULL, ...).
func stateIndex(state *string) int {
	if state == nil {
		return -1
	}
	switch *state {
	case "active":
		return 0
	case "idle":
		return 1
	case "idle in transaction", "idle in transaction (aborted)":
		return 2
	}
	return -1
}

// dbProbe is the collector of the service_db_* gauges other than pool max:
// it probes the database when a scrape gathers. Scrapes that arrive while a
// probe runs join it (single flight), so at most one probe connection is
// ever in use, and they publish what that probe measured.
type dbProbe struct {
	pool   *pgxpool.Pool
	log    *slog.Logger
	flight singleflight.Group
	// ping is the liveness statement, probePingSQL; tests slow it down.
	ping string
	// deadline bounds the whole probe, probeDeadline; tests shorten it.
	deadline time.Duration

	up, duration, connections *prometheus.Desc
}

func newDBProbe(pool *pgxpool.Pool, log *slog.Logger) *dbProbe {
	return &dbProbe{
		pool:     pool,
		log:      log,
		ping:     probePingSQL,
		deadline: probeDeadline,
		up: prometheus.NewDesc("service_db_up",
			"1 when the scrape-time SELECT 1 succeeded, 0 when it failed or timed out.", nil, nil),
		duration: prometheus.NewDesc("service_db_probe_duration_seconds",
			"Duration of the scrape-time database probe, clock started before the transaction opens.", nil, nil),
		connections: prometheus.NewDesc("service_db_connections",
			"Backend connections to the current database (database-global), by state.", []string{"state"}, nil),
	}
}

// probeResult is what one probe measured. conns is nil when the probe did
// not get as far as reading the activity view.
type probeResult struct {
	up       float64
	duration float64
	conns    *[len(connStates)]float64
}

// Describe implements prometheus.Collector.
func (p *dbProbe) Describe(ch chan<- *prometheus.Desc) {
	ch <- p.up
	ch <- p.duration
	ch <- p.connections
}

// Collect implements prometheus.Collector: it runs the probe, or joins the
// one in flight.
func (p *dbProbe) Collect(ch chan<- prometheus.Metric) {
	v, _, _ := p.flight.Do("probe", func() (any, error) { return p.probe(), nil })
	res := v.(probeResult)
	ch <- prometheus.MustNewConstMetric(p.up, prometheus.GaugeValue, res.up)
	ch <- prometheus.MustNewConstMetric(p.duration, prometheus.GaugeValue, res.duration)
	if res.conns != nil {
		for i, n := range res.conns {
			ch <- prometheus.MustNewConstMetric(p.connections, prometheus.GaugeValue, n, connStates[i])
		}
	}
}

// probe opens one read-only transaction, sets the 1 s statement timeout,
// runs SELECT 1 and reads pg_stat_activity for the current database, all
// within the 5 s client deadline. The clock starts before the transaction
// opens (so it includes waiting for a pool connection).
func (p *dbProbe) probe() probeResult {
	start := time.Now()
	up, conns, err := p.run()
	res := probeResult{duration: time.Since(start).Seconds(), conns: conns}
	if up {
		res.up = 1
	}
	if err != nil {
		p.log.Warn("metrics: database probe failed", "err", err, "db_up", up)
	}
	return res
}

func (p *dbProbe) run() (up bool, conns *[len(connStates)]float64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.deadline)
	defer cancel()
	tx, err := p.pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return false, nil, err
	}
	// Nothing is written, so rolling back ends the transaction as well as a
	// commit would. It gets its own short deadline: after a timed-out probe
	// ctx is spent, and a hung rollback must not hold the single flight.
	defer func() {
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = tx.Rollback(rctx)
	}()

	if _, err := tx.Exec(ctx, probeSettingsSQL); err != nil {
		return false, nil, err
	}
	var one int
	if err := tx.QueryRow(ctx, p.ping).Scan(&one); err != nil {
		return false, nil, err
	}
	rows, err := tx.Query(ctx, probeActivitySQL)
	if err != nil {
		return true, nil, err
	}
	var counts [len(connStates)]float64
	var state *string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&state, &n}, func() error {
		if i := stateIndex(state); i >= 0 {
			counts[i] += float64(n)
		}
		return nil
	})
	if err != nil {
		return true, nil, err
	}
	return true, &counts, nil
}
