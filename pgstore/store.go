package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/chitta-go/chitta"
)

// SchemaVersion is the version of the tables this package creates and
// reads. Open refuses a table whose recorded version is newer.
const SchemaVersion = 1

// Store is a [chitta.MemoryStore], [chitta.BatchRecaller],
// [chitta.CoverageRecaller] and [chitta.Generational] kept in a PostgreSQL
// table with the pgvector extension, so that agents on several machines
// share one memory.
//
// Memories are upserted by (namespace, ID); vectors are validated and
// normalised as [chitta.HNSWStore] does, so Recall ranks by the same cosine
// similarity (1 − pgvector's cosine distance) and reports it recomputed in
// float64 from the stored vector. With an index (the default, HNSW) Recall
// is approximate; see [Options.Index] and [DefaultEfSearch].
//
// The zero value is not usable; create one with [Open]. A Store is safe for
// concurrent use by many goroutines and, through the database, by many
// processes. Every Memory and Hit it returns belongs to the caller.
type Store struct {
	pool    *pgxpool.Pool
	opts    Options
	q       queries
	missing bool     // Open left the index unbuilt (Options.DeferIndex)
	invalid bool     // Open found the index invalid, and left it
	local   []string // the search settings, SET LOCAL before each search
}

// queries are the store's SQL statements, built once from the validated,
// quoted table names. Every caller value is a parameter.
type queries struct {
	upsert, del, get, count, page, recall, batch, best, generation string
}

// Open connects to the PostgreSQL server of dsn (a URL such as
// postgres://user:pass@host:5432/db or a keyword/value string; pgx's
// pool_max_conns and default_query_exec_mode settings apply), creates the
// pgvector extension and the tables when they are missing, and checks that
// the existing tables have this package's schema version and opts.Dims.
// What is missing is created in one transaction under advisory locks, so
// that many processes may Open the same new table, or a database without
// pgvector, at once: they wait for the first instead of failing. When the
// extension, the tables and the index all exist (or the index is deferred:
// see [Options.DeferIndex]), Open only reads them.
//
// Every search SETs LOCAL, in a transaction of its own, the search settings
// (hnsw.ef_search, hnsw.iterative_scan, ivfflat.probes,
// ivfflat.iterative_scan, plan_cache_mode; see the package doc), so values
// a session, ALTER ROLE ... SET or ALTER DATABASE ... SET gives them do not
// hold in a search. To choose other values, give them in dsn as runtime
// parameters (postgres://…?hnsw.ef_search=200&ivfflat.probes=20): every
// runtime parameter named hnsw.* or ivfflat.*, or plan_cache_mode (names
// in any case), is not sent at connect but SET LOCAL in each search, over
// the store's default.
//
// Errors wrap chitta.ErrInvalidOption for bad options, ErrBadDSN for a dsn
// that does not parse or gives a search setting the server refuses (Open
// tries them, after the extension exists, in a transaction it rolls back;
// the error names the parameter and gives the server's reason), ErrConnect when the server cannot be reached or
// refuses the connection, ErrNoVectorExtension when pgvector is missing,
// ErrSchema for a newer schema or a foreign table, and
// chitta.ErrDimensionMismatch for a table of other dims. The password
// never appears in an error. Close the Store when done.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgconn's message quotes the DSN (redacted) before the reason;
		// only the reason is kept, and scrubbed of anything like a password.
		msg := err.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		return nil, fmt.Errorf("%w: %s", ErrBadDSN, redact(msg, append(dsnSecrets(dsn), dsn)...))
	}
	return openConfig(ctx, cfg, o, dsnSecrets(dsn)...)
}

// openConfig opens a store on a parsed pool configuration (tests replace
// its dialer). The extension and tables are set up on one connection of
// their own, closed before the pool opens.
func openConfig(ctx context.Context, cfg *pgxpool.Config, o Options, secrets ...string) (*Store, error) {
	// The password as the driver read it, and as the DSN's writer may have
	// meant it (dsnSecrets: an unescaped '@' in a URL's password ends it
	// for the driver, which then shows the rest as the host).
	secret := append([]string{cfg.ConnConfig.Password}, secrets...)
	// The search settings the DSN gives as runtime parameters are set in
	// each search (see below), not sent in the startup packet: PgBouncer
	// refuses unknown startup parameters, or drops them when told to
	// ignore them, and PGlite ignores them.
	given, err := searchParams(cfg.ConnConfig.RuntimeParams)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig.Copy())
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("%w: %w", ErrConnect, scrub(err, secret...))
	}
	s := &Store{opts: o, q: buildQueries(o.Table, o.Index == IndexNone)}
	l, err := s.setup(ctx, conn)
	if err == nil {
		s.missing, s.invalid = l.deferred, l.invalid
		s.local = searchSettings(l, given)
		if len(given) > 0 {
			err = checkSettings(ctx, conn, s.local)
		}
	}
	closeErr := conn.Close(ctx)
	if err == nil {
		err = closeErr
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if hint := poolerHint(err); hint != "" {
			err = fmt.Errorf("%w%s", err, hint)
		}
		return nil, scrub(err, secret...)
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConnect, scrub(err, secret...))
	}
	return s, nil
}

// searchSettings returns the SET LOCAL statements every search runs first,
// for the layout l and the settings the DSN gives.
func searchSettings(l layout, given map[string]string) []string {
	var local []string
	// Every search runs with the search settings, SET LOCAL in a
	// transaction of its own (see search). Session settings, SET when a
	// connection opens, held only on the backend that ran them: behind a
	// pooler in transaction mode (PgBouncer, Supavisor, Neon's pooled
	// URLs) a search runs on whichever backend is free, which may never
	// have seen them. A value the DSN gives is the one set.
	done := map[string]bool{}
	setting := func(name, value string) {
		done[name] = true
		if v, ok := given[name]; ok {
			value = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		} else if value == "" {
			return
		}
		local = append(local, "SET LOCAL "+name+" = "+value)
	}
	setting("hnsw.ef_search", strconv.Itoa(DefaultEfSearch))
	iterative := ""
	if l.iterative() {
		// A scan a namespace or kind filter leaves short of k goes on, up
		// to hnsw.max_scan_tuples (pgvector 0.8 and later; set by the DSN
		// only, before).
		iterative = "strict_order"
	}
	setting("hnsw.iterative_scan", iterative)
	// An ivfflat index (IndexIVFFlat, or one an operator built, which the
	// planner may choose for any Store) scans ivfflat.probes of its lists:
	// at pgvector's 1 of 100, a namespace or kind filter left a few hits of
	// k. With an iterative scan (0.8 and later) it probes more lists until
	// k rows pass the filter; relaxed_order, the only order ivfflat's
	// iterative scan has, may give them slightly out of order, and hits
	// sorts them by similarity again.
	setting("ivfflat.probes", strconv.Itoa(DefaultProbes))
	relaxed := ""
	if l.iterative() {
		relaxed = "relaxed_order"
	}
	setting("ivfflat.iterative_scan", relaxed)
	// pgx prepares and caches every statement, and after five executions
	// PostgreSQL may plan one for any parameters: for BestSimilarities
	// that generic plan, blind to the LIMIT and the kind filter, sorted the
	// namespace once per query instead of walking the index (14 times
	// slower at 10 000 memories). A custom plan costs a planning per call,
	// as the simple protocol does anyway.
	setting("plan_cache_mode", "force_custom_plan")
	for _, name := range slices.Sorted(maps.Keys(given)) { // the others the DSN gives
		if !done[name] {
			setting(name, "")
		}
	}
	return local
}

// checkSettings runs the search settings local on conn, in a transaction
// rolled back, after loading pgvector (which checks its settings' values
// only once loaded), so that a value the server refuses fails Open, with
// an error wrapping ErrBadDSN that names the parameter and gives the
// server's reason, instead of every search. It is one round trip, as a
// search's settings are, and runs as they do behind a pooler.
func checkSettings(ctx context.Context, conn *pgx.Conn, local []string) error {
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	b.Queue("SELECT '[1]'::vector")
	for _, set := range local {
		b.Queue(set)
	}
	b.Queue("ROLLBACK")
	br := conn.SendBatch(ctx, b)
	err := func() error {
		for i := range 3 + len(local) {
			if _, err := br.Exec(); err != nil {
				var pe *pgconn.PgError
				if i < 2 || i >= 2+len(local) || !errors.As(err, &pe) {
					return fmt.Errorf("check search settings: %w", err)
				}
				name, _, _ := strings.Cut(strings.TrimPrefix(local[i-2], "SET LOCAL "), " ")
				reason := pe.Message
				if pe.Hint != "" {
					reason += " (" + pe.Hint + ")" // the values of an enum
				}
				return fmt.Errorf("%w: runtime parameter %s: %s", ErrBadDSN, name, reason)
			}
		}
		return nil
	}()
	if closeErr := br.Close(); err == nil {
		err = closeErr
	}
	if pc := conn.PgConn(); err != nil && ctx.Err() == nil && !pc.IsClosed() && pc.TxStatus() != 'I' {
		_, _ = conn.Exec(ctx, "ROLLBACK") // the connection is closed next anyway
	}
	return err
}

// searchParam is the name of a search setting the DSN may give as a
// runtime parameter: a pgvector setting or plan_cache_mode.
var searchParam = regexp.MustCompile(`^(hnsw|ivfflat)\.[a-z_][a-z0-9_]*$|^plan_cache_mode$`)

// searchParams removes from params (a DSN's runtime parameters) every
// search setting (named hnsw.* or ivfflat.*, or plan_cache_mode, in any
// case) and returns them by lowercased name. Each search sets them (see
// openConfig); sent at connect, PgBouncer refuses them, or drops them when
// told to ignore them, and PGlite ignores them. A name of those prefixes
// that is not an identifier, or a name given twice in different cases, is
// an error wrapping ErrBadDSN.
func searchParams(params map[string]string) (map[string]string, error) {
	given := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		lower := strings.ToLower(name)
		if !strings.HasPrefix(lower, "hnsw.") && !strings.HasPrefix(lower, "ivfflat.") && lower != "plan_cache_mode" {
			continue
		}
		if !searchParam.MatchString(lower) {
			return nil, fmt.Errorf("%w: runtime parameter %q, want hnsw.<name>, ivfflat.<name> or plan_cache_mode", ErrBadDSN, name)
		}
		if _, dup := given[lower]; dup {
			return nil, fmt.Errorf("%w: runtime parameter %s given twice (in other cases), want it once", ErrBadDSN, lower)
		}
		given[lower] = params[name]
		delete(params, name)
	}
	return given, nil
}

// vectorExtension is the extension Open needs (a variable so that a test
// can name one the server lacks).
var vectorExtension = "vector"

// querier is what the setup reads and writes through: the connection, or
// the transaction on it.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// layout is what the database holds of what a Store needs.
type layout struct {
	extension *string // pgvector's version; nil when not installed
	tables    bool    // the three tables exist, of this schema and dims
	index     bool    // the configured index exists and is valid (or none is wanted)
	// invalid: an index of the name exists but is not valid (a CREATE
	// INDEX CONCURRENTLY that failed, or is still running). Open leaves
	// it alone: CREATE INDEX IF NOT EXISTS would skip the name, and
	// dropping it could undo a build in progress.
	invalid bool
	// deferred: the index is missing on a table that holds memories (or
	// that a write in flight holds), and Options.DeferIndex leaves it so.
	deferred bool
}

func (l layout) ready() bool {
	return l.extension != nil && l.tables && (l.index || l.invalid || l.deferred)
}

// iterative reports whether pgvector has iterative index scans (0.8 and
// later).
func (l layout) iterative() bool {
	if l.extension == nil {
		return false
	}
	major, rest, _ := strings.Cut(*l.extension, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, _ := strconv.Atoi(major)
	mi, _ := strconv.Atoi(minor)
	return ma > 0 || mi >= 8
}

// setup makes sure the extension, the tables and the index exist (the
// index unless deferred: see Options.DeferIndex) and returns the layout
// it leaves. When all three do, it
// only reads (no lock, no DDL: a table's lock is not taken by every Open).
// Otherwise it creates what is missing in one transaction, under advisory
// locks on the table's name and, when the extension is missing, on the
// extension's, and reads the layout again under them: concurrent Opens of
// a new table (a fleet of agents starting at once) wait for the first one
// instead of failing on PostgreSQL's unique catalog names (CREATE ... IF
// NOT EXISTS checks the name before it inserts it, so two sessions can both
// find it free). The locks are taken table first, then extension, by every
// Open, so they cannot deadlock.
func (s *Store) setup(ctx context.Context, conn *pgx.Conn) (layout, error) {
	l, err := s.inspect(ctx, conn)
	if err != nil || l.ready() {
		return l, err
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "chitta_pgstore:"+s.opts.Table); err != nil {
			return fmt.Errorf("lock table %q: %w", s.opts.Table, err)
		}
		if l, err = s.inspect(ctx, tx); err != nil || l.ready() {
			return err
		}
		if l.extension == nil {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "chitta_pgstore:extension:"+vectorExtension); err != nil {
				return fmt.Errorf("lock extension %s: %w", vectorExtension, err)
			}
			if _, err := tx.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS "+quote(vectorExtension)); err != nil {
				return fmt.Errorf("%w: CREATE EXTENSION %s: %w", ErrNoVectorExtension, vectorExtension, err)
			}
			if l.extension, err = extensionVersion(ctx, tx); err == nil && l.extension == nil {
				err = fmt.Errorf("CREATE EXTENSION %s succeeded, but pg_extension does not list it", vectorExtension)
			}
			if err != nil {
				return fmt.Errorf("%w: %w", ErrNoVectorExtension, err)
			}
		}
		created := !l.tables
		if !l.tables {
			if _, err := tx.Exec(ctx, s.tablesDDL()); err != nil {
				return fmt.Errorf("create tables: %w", err)
			}
			if l.tables, err = s.checkSchema(ctx, tx); err != nil {
				return err
			}
		}
		if !l.index && !created && s.opts.DeferIndex {
			// The table looked empty, but a write in flight (a load's
			// first batch) is not seen: CREATE INDEX would wait for it
			// and then build over it. A SHARE lock taken without waiting
			// tells, and keeps writers out until the instant build ends.
			// (Tables this transaction created nobody else sees.)
			if l.deferred, err = s.lockIdle(ctx, tx); err != nil || l.deferred {
				return err
			}
			if l.deferred, err = s.holdsMemories(ctx, tx); err != nil || l.deferred {
				return err
			}
		}
		if !l.index {
			if _, err := tx.Exec(ctx, s.indexDDL()); err != nil {
				return fmt.Errorf("create %s index: %w", s.opts.Index, err)
			}
		}
		return nil
	})
	return l, err
}

// lockIdle takes a SHARE lock on the memories table for tx without
// waiting, and reports busy when a write in flight holds it back (the
// savepoint around it keeps tx usable).
func (s *Store) lockIdle(ctx context.Context, tx pgx.Tx) (busy bool, err error) {
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, err
	}
	_, err = sp.Exec(ctx, "LOCK TABLE "+quote(s.opts.Table)+" IN SHARE MODE NOWAIT")
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "55P03" { // lock_not_available
		return true, sp.Rollback(ctx)
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", s.opts.Table, err)
	}
	return false, sp.Commit(ctx)
}

// inspect reads the layout. Tables of another schema or dims, or a
// table of the name that pgstore did not create, are an error; an index is
// looked at only when the tables exist.
func (s *Store) inspect(ctx context.Context, q querier) (layout, error) {
	l := layout{index: s.opts.Index == IndexNone}
	var err error
	if l.extension, err = extensionVersion(ctx, q); err != nil {
		return l, fmt.Errorf("read extensions: %w", err)
	}
	if l.tables, err = s.checkSchema(ctx, q); err != nil || !l.tables {
		return l, err // (a foreign table of the name is an error even before the extension exists)
	}
	if l.index {
		return l, nil
	}
	var valid *bool // nil: no index of the name
	if err := q.QueryRow(ctx, "SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1))", quote(s.indexName())).Scan(&valid); err != nil {
		return l, fmt.Errorf("read indexes: %w", err)
	}
	l.index, l.invalid = valid != nil && *valid, valid != nil && !*valid
	if valid == nil && s.opts.DeferIndex {
		// The build is instant on a table without memories.
		l.deferred, err = s.holdsMemories(ctx, q)
	}
	return l, err
}

// holdsMemories reports whether the memories table holds a committed row,
// of any namespace (a look at one row).
func (s *Store) holdsMemories(ctx context.Context, q querier) (bool, error) {
	var held bool
	if err := q.QueryRow(ctx, "SELECT EXISTS (SELECT FROM "+quote(s.opts.Table)+")").Scan(&held); err != nil {
		return false, fmt.Errorf("read %s: %w", s.opts.Table, err)
	}
	return held, nil
}

// extensionVersion returns pgvector's installed version, nil when it is
// not installed.
func extensionVersion(ctx context.Context, q querier) (*string, error) {
	var version *string
	err := q.QueryRow(ctx, "SELECT (SELECT extversion FROM pg_extension WHERE extname = $1)", vectorExtension).Scan(&version)
	return version, err
}

// quote quotes a validated identifier.
func quote(name string) string { return `"` + name + `"` }

// tablesDDL creates the three tables when they are missing.
func (s *Store) tablesDDL() string {
	t, d := s.opts.Table, strconv.Itoa(s.opts.Dims)
	return `CREATE TABLE IF NOT EXISTS ` + quote(t+"_schema") + ` (
	singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
	version integer NOT NULL,
	dims integer NOT NULL);
INSERT INTO ` + quote(t+"_schema") + ` (version, dims) VALUES (` + strconv.Itoa(SchemaVersion) + `, ` + d + `) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS ` + quote(t) + ` (
	namespace text NOT NULL,
	id text COLLATE "C" NOT NULL,
	text text NOT NULL,
	kind text NOT NULL,
	confidence double precision NOT NULL,
	source text NOT NULL,
	created_at timestamptz NOT NULL,
	created_nanos integer NOT NULL,
	embedding vector(` + d + `) NOT NULL,
	PRIMARY KEY (namespace, id));
CREATE TABLE IF NOT EXISTS ` + quote(t+"_generation") + ` (
	namespace text PRIMARY KEY,
	generation bigint NOT NULL)`
}

// checkSchema reports whether the tables exist, or an error when they are
// not ones this package can use.
func (s *Store) checkSchema(ctx context.Context, q querier) (bool, error) {
	t := s.opts.Table
	var hasTable, hasSchema bool
	err := q.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL, to_regclass($2) IS NOT NULL",
		quote(t), quote(t+"_schema")).Scan(&hasTable, &hasSchema)
	if err != nil {
		return false, fmt.Errorf("read schema: %w", err)
	}
	if !hasSchema {
		if hasTable {
			return false, fmt.Errorf("%w: table %q exists without %q: not created by pgstore (choose another Options.Table)", ErrSchema, t, t+"_schema")
		}
		return false, nil
	}
	var version, dims int
	if err := q.QueryRow(ctx, "SELECT version, dims FROM "+quote(t+"_schema")).Scan(&version, &dims); err != nil {
		return false, fmt.Errorf("read %s: %w", t+"_schema", err)
	}
	switch {
	case version > SchemaVersion:
		return false, fmt.Errorf("%w: table %q has schema version %d, this pgstore knows up to %d (upgrade pgstore)", ErrSchema, t, version, SchemaVersion)
	case version < 1:
		return false, fmt.Errorf("%w: table %q has schema version %d", ErrSchema, t, version)
	case dims != s.opts.Dims:
		return false, fmt.Errorf("%w: table %q holds %d-dimensional vectors, Options.Dims is %d", chitta.ErrDimensionMismatch, t, dims, s.opts.Dims)
	case !hasTable:
		return false, fmt.Errorf("%w: table %q is missing but %q exists", ErrSchema, t, t+"_schema")
	}
	return true, nil
}

// indexName is the name of the configured index.
func (s *Store) indexName() string { return s.opts.Table + "_embedding_" + s.opts.Index }

// indexDDL creates the configured index (not IndexNone) when it is missing.
func (s *Store) indexDDL() string {
	ddl := "CREATE INDEX IF NOT EXISTS " + quote(s.indexName()) + " ON " + quote(s.opts.Table) + " USING " + s.opts.Index + " (embedding vector_cosine_ops)"
	if s.opts.Index == IndexIVFFlat {
		ddl += " WITH (lists = 100)"
	}
	return ddl
}

// columns are the memory columns every read selects, in scan order.
const columns = "id, text, kind, confidence, source, created_at, created_nanos, embedding"

// buildQueries builds the statements on table. exact (Options.Index is
// IndexNone) makes nearest-first orders break ties by ID, so that the k-th
// place goes to the smallest ID among equals, as in HNSWStore; with an
// index they order by distance alone, the only order an hnsw or ivfflat
// index scan gives: on PostgreSQL 15 a second sort key made the planner
// drop the index for a scan and sort of the whole namespace (54 ms a Recall
// at 100 000 memories, against 3.3 ms for HNSWStore's exact scan; PGlite's
// PostgreSQL 18 put an incremental sort over the index scan instead).
// exact also orders by the distance plus 0, which no index can give: an
// index scan answers only ORDER BY column <=> value, and it did answer
// the exact searches on a table with an index (one an operator built, or
// one an Open with another Index created), PostgreSQL 18 sorting its rows
// by ID incrementally, so that they missed some of the nearest memories.
// Adding 0 changes no distance, nor their order.
func buildQueries(table string, exact bool) queries {
	t, g := quote(table), quote(table+"_generation")
	// bump is the generation's update after the statement's change: the
	// first write of a namespace starts it at the parameter (firstGeneration),
	// every later one adds 1.
	bump := func(first string) string {
		return "INSERT INTO " + g + " AS g (namespace, generation) SELECT $1, " + first + "::bigint FROM changed LIMIT 1 " +
			"ON CONFLICT (namespace) DO UPDATE SET generation = g.generation + 1"
	}
	// distance is the sort key of the distance to v; tie follows it.
	distance := func(v string) string { return "embedding <=> " + v }
	tie := ""
	if exact {
		distance = func(v string) string { return "(embedding <=> " + v + ") + 0" }
		tie = ", id"
	}
	// kinds is a KindFilter on parameters $4 (include; empty passes all)
	// and $5 (exclude).
	const kinds = " AND (cardinality($4::text[]) = 0 OR kind = ANY($4::text[])) AND NOT kind = ANY($5::text[])"
	nearest := "SELECT " + columns + ", " + distance("q.v") + " AS distance FROM " + t + " WHERE namespace = $1"
	return queries{
		upsert: "WITH changed AS (INSERT INTO " + t + " (namespace, " + columns + ") " +
			"SELECT $1, u.id, u.text, u.kind, u.confidence, u.source, u.created_at, u.created_nanos, u.embedding::vector " +
			"FROM unnest($2::text[], $3::text[], $4::text[], $5::float8[], $6::text[], $7::timestamptz[], $8::int[], $9::text[]) " +
			"AS u(id, text, kind, confidence, source, created_at, created_nanos, embedding) " +
			"ON CONFLICT (namespace, id) DO UPDATE SET text = excluded.text, kind = excluded.kind, " +
			"confidence = excluded.confidence, source = excluded.source, created_at = excluded.created_at, " +
			"created_nanos = excluded.created_nanos, embedding = excluded.embedding RETURNING 1) " + bump("$10"),
		del:   "WITH changed AS (DELETE FROM " + t + " WHERE namespace = $1 AND id = $2 RETURNING 1) " + bump("$3"),
		get:   "SELECT " + columns + " FROM " + t + " WHERE namespace = $1 AND id = $2",
		count: "SELECT count(*) FROM " + t + " WHERE namespace = $1",
		page:  "SELECT " + columns + " FROM " + t + " WHERE namespace = $1 AND id > $2 ORDER BY id LIMIT $3",
		recall: "SELECT " + columns + " FROM " + t + " WHERE namespace = $1" + kinds +
			" ORDER BY " + distance("$2::vector") + tie + " LIMIT $3",
		batch:      "SELECT q.i, m." + strings.ReplaceAll(columns, ", ", ", m.") + " FROM unnest($2::text[]::vector[]) WITH ORDINALITY AS q(v, i) CROSS JOIN LATERAL (" + nearest + " ORDER BY distance" + tie + " LIMIT $3) m",
		best:       "SELECT q.i, m.embedding FROM unnest($2::text[]::vector[]) WITH ORDINALITY AS q(v, i) CROSS JOIN LATERAL (" + nearest + kinds + " ORDER BY distance" + tie + " LIMIT $3) m",
		generation: "SELECT coalesce((SELECT generation FROM " + g + " WHERE namespace = $1), 0)",
	}
}

// Close closes every connection. Calls after Close fail. It returns nil;
// the error result makes a Store an io.Closer.
func (s *Store) Close() error {
	if s != nil && s.pool != nil {
		s.pool.Close()
	}
	return nil
}

// MissingIndex returns the statement that builds the configured index
// when Open left it missing ([Options.DeferIndex] on a table that held
// memories without it, or a write in flight on it), and "" otherwise (the
// index existed or was built, Options.Index is IndexNone, or s is nil).
// When Open found an index of the name that is not valid (a CREATE INDEX
// CONCURRENTLY that failed, or one still running, which any Open leaves
// alone, DeferIndex or not), it returns the DROP INDEX that removes it
// and the CREATE INDEX, separated by "; ". It reports what Open found:
// another process may have built the index since. Run the statement, or
// Open without DeferIndex, where a build of minutes, holding back the
// table's writers, does no harm.
func (s *Store) MissingIndex() string {
	switch {
	case s == nil:
		return ""
	case s.invalid:
		return "DROP INDEX IF EXISTS " + quote(s.indexName()) + "; " + s.indexDDL()
	case s.missing:
		return s.indexDDL()
	}
	return ""
}

// Dims returns Options.Dims (0 for a nil store).
func (s *Store) Dims() int {
	if s == nil {
		return 0
	}
	return s.opts.Dims
}

// Namespace returns the namespace the store reads and writes.
func (s *Store) Namespace() string {
	if s == nil {
		return ""
	}
	return s.opts.Namespace
}

// errUnusable is returned by the methods of a nil or zero Store.
var errUnusable = fmt.Errorf("%w: pgstore.Store is nil or its zero value (use Open)", chitta.ErrInvalidOption)

func (s *Store) usable() error {
	if s == nil || s.pool == nil {
		return errUnusable
	}
	return nil
}

// maxStringLen bounds ID, Text, Kind and Source, as chitta.HNSWStore does.
const maxStringLen = 1 << 26

// checkText reports a string PostgreSQL text cannot hold, or one longer
// than max bytes.
func checkText(field, v string, max int) error {
	switch {
	case len(v) > max:
		return fmt.Errorf("%s is %d bytes, want at most %d", field, len(v), max)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s is not valid UTF-8, which PostgreSQL text cannot store", field)
	case strings.IndexByte(v, 0) >= 0:
		return fmt.Errorf("%s contains a NUL byte, which PostgreSQL text cannot store", field)
	}
	return nil
}

// checkField reports a memory's string field (ID, Text, Kind or Source)
// that Add cannot store, wrapping chitta.ErrInvalidMemory.
func checkField(field, v string) error {
	if err := checkText(field, v, maxStringLen); err != nil {
		return fmt.Errorf("%w: %w", chitta.ErrInvalidMemory, err)
	}
	return nil
}

// lookup checks a Get or Delete before any SQL: the store is usable, ctx
// is not done, and id is one Add could have stored. A malformed ID would
// otherwise reach the server, which answers invalid UTF-8 with SQLSTATE
// 22021 and a NUL byte with a protocol violation (08P01), and an ID over
// 64 MiB would be sent in full to find nothing.
func (s *Store) lookup(ctx context.Context, id string) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return checkField("ID", id)
}

// Add stores m, replacing the memory of the namespace with the same ID, and
// bumps the namespace's generation in the same statement. The rules are
// chitta.HNSWStore's: an empty ID becomes chitta.MemoryID(m.Kind, m.Text),
// a zero CreatedAt the current time (stored in UTC, to the nanosecond), and
// the vector is validated and normalised (the caller keeps m.Vector).
//
// Add returns an error wrapping chitta.ErrDimensionMismatch when
// len(m.Vector) differs from Dims, chitta.ErrInvalidVector for an empty or
// zero vector or one with a NaN or infinite component,
// chitta.ErrInvalidMemory for a Confidence that is NaN or outside [0, 1],
// an ID, Text, Kind or Source longer than 64 MiB, not valid UTF-8 or with a
// NUL byte, or a CreatedAt outside the years 1–9999, and the driver's
// error when the statement fails. On error nothing is stored.
func (s *Store) Add(ctx context.Context, m chitta.Memory) error {
	return s.add(ctx, []chitta.Memory{m})
}

// add upserts ms in one statement (later duplicates of an ID win).
func (s *Store) add(ctx context.Context, ms []chitta.Memory) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	n := len(ms)
	ids, texts, kinds, sources, vecs := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	confs, created, nanos := make([]float64, 0, n), make([]time.Time, 0, n), make([]int32, 0, n)
	seen := make(map[string]int, n)
	now := time.Now()
	for _, m := range ms {
		vec, err := s.prepare(m.Vector, "Memory.Vector")
		if err != nil {
			return err
		}
		if math.IsNaN(m.Confidence) || m.Confidence < 0 || m.Confidence > 1 {
			return fmt.Errorf("%w: Confidence %v, want 0–1", chitta.ErrInvalidMemory, m.Confidence)
		}
		for _, f := range []struct{ name, v string }{{"ID", m.ID}, {"Text", m.Text}, {"Kind", m.Kind}, {"Source", m.Source}} {
			if err := checkField(f.name, f.v); err != nil {
				return err
			}
		}
		if m.ID == "" {
			m.ID = chitta.MemoryID(m.Kind, m.Text)
		}
		at := m.CreatedAt
		if at.IsZero() {
			at = now
		}
		at = at.UTC()
		if y := at.Year(); y < 1 || y > 9999 {
			return fmt.Errorf("%w: CreatedAt year %d, want 1–9999", chitta.ErrInvalidMemory, y)
		}
		micro := at.Truncate(time.Microsecond)
		j, dup := seen[m.ID]
		if !dup { // a row may be upserted once per statement: the last one wins
			j = len(ids)
			seen[m.ID] = j
			ids, texts, kinds, sources, vecs = append(ids, ""), append(texts, ""), append(kinds, ""), append(sources, ""), append(vecs, "")
			confs, created, nanos = append(confs, 0), append(created, time.Time{}), append(nanos, 0)
		}
		ids[j], texts[j], kinds[j], sources[j] = m.ID, m.Text, m.Kind, m.Source
		vecs[j] = pgvector.NewVector(vec).String()
		confs[j], created[j], nanos[j] = m.Confidence, micro, int32(at.Sub(micro))
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, s.q.upsert, s.opts.Namespace, ids, texts, kinds, confs, sources, created, nanos, vecs, firstGeneration()); err != nil {
		return s.fail(ctx, "add", err)
	}
	return nil
}

// fail wraps a driver error, preferring ctx's error when ctx is done.
func (s *Store) fail(ctx context.Context, op string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return fmt.Errorf("%s: %w%s", op, scrub(err, s.pool.Config().ConnConfig.Password), poolerHint(err))
}

// poolerHint says what to do about a prepared statement the server does
// not have (or has already): the sign of a pooler in transaction mode that
// does not keep them (PgBouncer before 1.21, or without
// max_prepared_statements), which gives the statement that pgx
// prepared on one backend to another. "" for any other error.
func poolerHint(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "26000" || pe.Code == "42P05") {
		return " (a pooler in transaction mode that does not keep prepared statements? add default_query_exec_mode=simple_protocol to the DSN)"
	}
	return ""
}

// prepare validates v against Dims and returns a normalised copy,
// summing in float64 exactly as chitta.HNSWStore does, so that both stores
// hold bit-identical vectors. field names v in errors.
func (s *Store) prepare(v []float32, field string) ([]float32, error) {
	if len(v) == 0 {
		return nil, fmt.Errorf("%w: %s is empty", chitta.ErrInvalidVector, field)
	}
	if len(v) != s.opts.Dims {
		return nil, fmt.Errorf("%w: %s has %d dimensions, want %d", chitta.ErrDimensionMismatch, field, len(v), s.opts.Dims)
	}
	if !allFinite(v) {
		return nil, fmt.Errorf("%w: %s has a NaN or infinite component", chitta.ErrInvalidVector, field)
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return nil, fmt.Errorf("%w: %s is a zero vector", chitta.ErrInvalidVector, field)
	}
	out := make([]float32, len(v))
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out, nil
}

// prepareAll validates and formats every query vector as a pgvector
// literal; the error names the index of the first bad one.
func (s *Store) prepareAll(vectors [][]float32) ([]string, error) {
	out := make([]string, len(vectors))
	for i, v := range vectors {
		q, err := s.prepare(v, fmt.Sprintf("query vector %d", i))
		if err != nil {
			return nil, err
		}
		out[i] = pgvector.NewVector(q).String()
	}
	return out, nil
}

// Delete removes the memory with the given ID from the namespace and bumps
// its generation. It returns an error wrapping chitta.ErrNotFound when
// there is none, chitta.ErrInvalidMemory for an ID that Add rejects
// (longer than 64 MiB, not valid UTF-8 or with a NUL byte; no SQL is
// sent), and ctx.Err() when ctx is done.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := s.lookup(ctx, id); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, s.q.del, s.opts.Namespace, id, firstGeneration())
	if err != nil {
		return s.fail(ctx, "delete", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: ID %q", chitta.ErrNotFound, id)
	}
	return nil
}

// Get returns the memory with the given ID (its Vector the stored,
// normalised one) and whether it exists. An empty ID is never stored (Add
// replaces it by chitta.MemoryID), so Get reports it absent. Get returns an
// error wrapping chitta.ErrInvalidMemory for an ID that Add rejects (longer
// than 64 MiB, not valid UTF-8 or with a NUL byte; no SQL is sent), and
// ctx.Err() when ctx is done.
func (s *Store) Get(ctx context.Context, id string) (chitta.Memory, bool, error) {
	if err := s.lookup(ctx, id); err != nil {
		return chitta.Memory{}, false, err
	}
	rows, err := s.pool.Query(ctx, s.q.get, s.opts.Namespace, id)
	if err != nil {
		return chitta.Memory{}, false, s.fail(ctx, "get", err)
	}
	ms, err := collect(rows, func(r pgx.Rows) (chitta.Memory, error) { return scanMemory(r) })
	if err != nil {
		return chitta.Memory{}, false, s.fail(ctx, "get", err)
	}
	if len(ms) == 0 {
		return chitta.Memory{}, false, nil
	}
	return ms[0], true, nil
}

// Len returns the number of memories in the namespace.
func (s *Store) Len(ctx context.Context) (int, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	n, err := s.number(ctx, "len", s.q.count)
	return int(n), err
}

// number runs query, which reads one bigint of the namespace.
func (s *Store) number(ctx context.Context, op, query string) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, query, s.opts.Namespace).Scan(&n); err != nil {
		return 0, s.fail(ctx, op, err)
	}
	return n, nil
}

// allPage is the number of memories All reads per query.
const allPage = 256

// All iterates over the memories of the namespace in ascending ID order
// (byte order), reading them in pages of 256 by ID, so no connection is
// held while the loop body runs and the body may call the store. Memories
// added or deleted during the iteration may or may not be seen. An error
// is yielded once, with a zero Memory, and ends the iteration.
func (s *Store) All(ctx context.Context) iter.Seq2[chitta.Memory, error] {
	return func(yield func(chitta.Memory, error) bool) {
		if err := s.usable(); err != nil {
			yield(chitta.Memory{}, err)
			return
		}
		after := ""
		for {
			rows, err := s.pool.Query(ctx, s.q.page, s.opts.Namespace, after, allPage)
			var ms []chitta.Memory
			if err == nil {
				ms, err = collect(rows, func(r pgx.Rows) (chitta.Memory, error) { return scanMemory(r) })
			}
			if err != nil {
				yield(chitta.Memory{}, s.fail(ctx, "all", err))
				return
			}
			for _, m := range ms {
				if !yield(m, nil) {
					return
				}
			}
			if len(ms) < allPage {
				return
			}
			after = ms[len(ms)-1].ID
		}
	}
}

// Recall returns up to k memories of the namespace most similar to vector,
// most similar first (ties by ascending ID), each with its cosine
// similarity computed in float64 against the stored vector. Without an
// index (IndexNone) the answer is exact and memories tied at the k-th
// place go by ascending ID, as in chitta.HNSWStore; with one, the index
// scan finds the k nearest approximately, and which of several tied at
// the k-th place it returns is its choice. k <= 0 gives no hits without a
// round trip; a bad vector gives the errors of Add.
func (s *Store) Recall(ctx context.Context, vector []float32, k int) ([]chitta.Hit, error) {
	return s.RecallMatching(ctx, vector, k, chitta.KindFilter{})
}

// RecallMatching is [Store.Recall] restricted, in the database, to the
// memories whose kind passes f. A kind of f that Add would refuse (longer
// than 64 MiB, not valid UTF-8 or with a NUL byte) is an error wrapping
// chitta.ErrInvalidOption that names it (KindFilter.Include[i] or
// Exclude[i]); no SQL is sent.
func (s *Store) RecallMatching(ctx context.Context, vector []float32, k int, f chitta.KindFilter) ([]chitta.Hit, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if k <= 0 {
		return []chitta.Hit{}, nil
	}
	q, err := s.prepare(vector, "query vector")
	if err != nil {
		return nil, err
	}
	if err := checkKinds(f); err != nil {
		return nil, err
	}
	include, exclude := kindArgs(f)
	ms, err := search(ctx, s, func(r pgx.Rows) (chitta.Memory, error) { return scanMemory(r) },
		s.q.recall, s.opts.Namespace, pgvector.NewVector(q).String(), k, include, exclude)
	if err != nil {
		return nil, s.fail(ctx, "recall", err)
	}
	return hits(vector, ms), nil
}

// kindArgs returns f's lists as non-nil slices (a nil slice is SQL NULL).
func kindArgs(f chitta.KindFilter) (include, exclude []string) {
	include, exclude = f.Include, f.Exclude
	if include == nil {
		include = []string{}
	}
	if exclude == nil {
		exclude = []string{}
	}
	return include, exclude
}

// checkKinds reports, wrapping chitta.ErrInvalidOption, a kind of f that
// PostgreSQL text cannot hold (no memory has it, and the server would
// refuse it: a NUL byte breaks the protocol) or that is longer than a
// memory's Kind may be.
func checkKinds(f chitta.KindFilter) error {
	for _, l := range []struct {
		name  string
		kinds []string
	}{{"Include", f.Include}, {"Exclude", f.Exclude}} {
		for i, k := range l.kinds {
			if err := checkText(fmt.Sprintf("KindFilter.%s[%d]", l.name, i), k, maxStringLen); err != nil {
				return fmt.Errorf("%w: %w", chitta.ErrInvalidOption, err)
			}
		}
	}
	return nil
}

// RecallBatch answers one Recall per vector in a single statement (one
// round trip: unnest of the queries, LATERAL nearest-k per query). The
// result has one slice of hits per vector, in order; k <= 0 or no vectors
// give empty slices without a round trip. A bad vector fails the whole
// batch with an error naming its index.
func (s *Store) RecallBatch(ctx context.Context, vectors [][]float32, k int) ([][]chitta.Hit, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qs, err := s.prepareAll(vectors)
	if err != nil {
		return nil, err
	}
	out := make([][]chitta.Hit, len(vectors))
	for i := range out {
		out[i] = []chitta.Hit{}
	}
	if k <= 0 || len(vectors) == 0 {
		return out, nil
	}
	type row struct {
		i int
		m chitta.Memory
	}
	got, err := search(ctx, s, func(r pgx.Rows) (row, error) {
		var i int64
		m, err := scanMemory(r, &i)
		return row{int(i) - 1, m}, err
	}, s.q.batch, s.opts.Namespace, qs, k)
	if err != nil {
		return nil, s.fail(ctx, "recall batch", err)
	}
	per := make([][]chitta.Memory, len(vectors))
	for _, g := range got {
		if g.i < 0 || g.i >= len(per) {
			return nil, fmt.Errorf("recall batch: server returned query index %d of %d", g.i+1, len(per))
		}
		per[g.i] = append(per[g.i], g.m)
	}
	for i, ms := range per {
		out[i] = hits(vectors[i], ms)
	}
	return out, nil
}

// BestSimilarities returns, for each vector, the highest cosine similarity
// to a memory of the namespace that passes f (0 when none does, never
// below 0), in one statement. With an index the nearest memory is found
// approximately, as by Recall; its similarity is computed in float64. A
// bad kind of f is an error, as in [Store.RecallMatching].
func (s *Store) BestSimilarities(ctx context.Context, vectors [][]float32, f chitta.KindFilter) ([]float64, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	qs, err := s.prepareAll(vectors)
	if err != nil {
		return nil, err
	}
	if err := checkKinds(f); err != nil {
		return nil, err
	}
	out := make([]float64, len(vectors))
	if len(vectors) == 0 {
		return out, nil
	}
	include, exclude := kindArgs(f)
	type row struct {
		i int
		v []float32
	}
	got, err := search(ctx, s, func(r pgx.Rows) (row, error) {
		var i int64
		var v pgvector.Vector
		err := r.Scan(&i, &v)
		return row{int(i) - 1, v.Slice()}, err
	}, s.q.best, s.opts.Namespace, qs, 1, include, exclude)
	if err != nil {
		return nil, s.fail(ctx, "best similarities", err)
	}
	for _, g := range got {
		if g.i < 0 || g.i >= len(out) {
			return nil, fmt.Errorf("best similarities: server returned query index %d of %d", g.i+1, len(out))
		}
		out[g.i] = max(out[g.i], min(1, cosine64(vectors[g.i], g.v)))
	}
	return out, nil
}

// Generation returns the namespace's generation: a counter in the database
// that every Add and Delete of any process bumps in the statement that
// changes the memories, 0 before the first.
//
// The first write of a namespace starts the counter at a random multiple
// of 2^32 plus 1, not at 1, and each later write
// adds 1 (so the low 32 bits count the writes). A namespace whose tables
// were dropped and created again, or whose generation row was deleted,
// while a Store and a [chitta.CoverageCache] lived on thus starts again
// from 0 and then from a new random value, and does not give a generation
// again for other memories: with a counter restarting at 1, the cache,
// which keys its entries by store and generation, served the coverage of
// the old tables' memories for the new ones. (Two starts meet with
// probability about 2^-31.)
func (s *Store) Generation(ctx context.Context) (uint64, error) {
	if err := s.usable(); err != nil {
		return 0, err
	}
	g, err := s.number(ctx, "generation", s.q.generation)
	return uint64(g), err
}

// firstGeneration returns the generation a namespace's first write
// starts at: a random multiple of 2^32 in [2^32, 2^63), plus 1.
func firstGeneration() int64 { return (rand.Int64N(1<<31-1)+1)<<32 | 1 }

// search runs the search statement sql and reads its rows with scan, in a
// read-only transaction of its own that first SETs LOCAL the search
// settings (s.local), all sent as one batch: one round trip, as the
// statement alone, and every statement of it on one backend, also behind a
// pooler in transaction mode. After an error the connection's transaction
// is rolled back, so that the pool keeps the connection (it closes one
// given back in a transaction).
func search[T any](ctx context.Context, s *Store, scan func(pgx.Rows) (T, error), sql string, args ...any) ([]T, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	for _, set := range s.local {
		b.Queue(set)
	}
	b.Queue(sql, args...)
	b.Queue("COMMIT")
	br := conn.SendBatch(ctx, b)
	out, err := func() ([]T, error) {
		for range 1 + len(s.local) {
			if _, err := br.Exec(); err != nil {
				return nil, err
			}
		}
		rows, err := br.Query()
		if err != nil {
			return nil, err
		}
		out, err := collect(rows, scan)
		if err != nil {
			return nil, err
		}
		_, err = br.Exec()
		return out, err
	}()
	// Close reads what is left (the server skips the statements after an
	// error, COMMIT too) and reports that error again.
	if closeErr := br.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		if pc := conn.Conn().PgConn(); ctx.Err() == nil && !pc.IsClosed() && pc.TxStatus() != 'I' {
			_, _ = conn.Exec(ctx, "ROLLBACK") // if it fails too, Release closes the connection
		}
		return nil, err
	}
	return out, nil
}

// collect reads every row with fn and closes rows.
func collect[T any](rows pgx.Rows, fn func(pgx.Rows) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := fn(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanMemory scans the columns (after any leading destinations).
func scanMemory(r pgx.Rows, lead ...any) (chitta.Memory, error) {
	var m chitta.Memory
	var nanos int32
	var v pgvector.Vector
	dst := append(lead, &m.ID, &m.Text, &m.Kind, &m.Confidence, &m.Source, &m.CreatedAt, &nanos, &v)
	if err := r.Scan(dst...); err != nil {
		return m, err
	}
	m.CreatedAt = m.CreatedAt.UTC().Add(time.Duration(nanos))
	m.Vector = v.Slice()
	return m, nil
}

// hits turns memories into Hits with their similarity to q computed in
// float64, most similar first, ties by ascending ID.
func hits(q []float32, ms []chitta.Memory) []chitta.Hit {
	out := make([]chitta.Hit, len(ms))
	for i, m := range ms {
		out[i] = chitta.Hit{Memory: m, Similarity: cosine64(q, m.Vector)}
	}
	slices.SortFunc(out, func(a, b chitta.Hit) int {
		if c := cmp.Compare(b.Similarity, a.Similarity); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Compile-time checks of the interfaces a Store implements.
var (
	_ chitta.MemoryStore      = (*Store)(nil)
	_ chitta.BatchRecaller    = (*Store)(nil)
	_ chitta.CoverageRecaller = (*Store)(nil)
	_ chitta.Generational     = (*Store)(nil)
)
