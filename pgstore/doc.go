// Package pgstore keeps chitta's memory in PostgreSQL with the pgvector
// extension, so that agents on several machines, or a fleet of agents,
// share what they learned on a database that already replicates, backs up
// and scales.
//
// A [Store] is a chitta.MemoryStore, chitta.BatchRecaller,
// chitta.CoverageRecaller and chitta.Generational: pass it as
// chitta.Options.Store. [Open] creates the pgvector extension and three
// tables when they are missing (Options.Table, default chitta_memories,
// plus _schema with the schema version and _generation with a counter per
// namespace, started at a random value: see [Store.Generation]), and refuses a table of other dims or of a newer schema.
// Memories are upserted by (namespace, ID) with chitta.HNSWStore's rules.
// Similarity is 1 − pgvector's cosine distance (<=>), reported in float64
// from the stored vector as HNSWStore reports it. RecallBatch and
// BestSimilarities answer all of a compaction's queries in one statement
// (unnest of the query vectors, LATERAL nearest-k), so one round trip.
//
// Every search sets these search settings:
//   - hnsw.ef_search to [DefaultEfSearch] and ivfflat.probes to
//     [DefaultProbes];
//   - with pgvector 0.8 or later, hnsw.iterative_scan to strict_order and
//     ivfflat.iterative_scan to relaxed_order (the hits are sorted by
//     similarity again in Go): a scan that a namespace or kind filter
//     leaves short of k goes on, but only up to pgvector's
//     hnsw.max_scan_tuples (20 000 by default) index tuples or
//     ivfflat.max_probes lists (all, by default), so a filter that passes
//     few of the memories near a query in a large table may still give
//     fewer than k (raise hnsw.max_scan_tuples in the DSN);
//   - plan_cache_mode to force_custom_plan (a generic plan of a cached
//     statement, blind to its LIMIT and kind filter, may sort the
//     namespace instead of walking the index).
//
// The DSN chooses other values as runtime parameters
// (postgres://…?hnsw.ef_search=200): every one named hnsw.* or ivfflat.*,
// or plan_cache_mode, in any case, is not sent at connect (PgBouncer
// refuses unknown startup parameters) but set in each search, over the
// default; [Open] tries them and fails on a value the server refuses.
// Values that a session, ALTER ROLE ... SET or ALTER DATABASE ... SET give
// these settings do not hold in a search: the DSN is the way to choose
// them. They are SET LOCAL in a read-only transaction of the search's own,
// sent with the search as one batch (one round trip), so that they hold on
// whichever backend runs it: behind a pooler in transaction mode
// (PgBouncer, Supavisor, the pooled URLs of hosted PostgreSQL) settings
// made once per connection hold only on the backend that ran them. The
// pool follows pgx's DSN settings (pool_max_conns,
// default_query_exec_mode, …). Behind PgBouncer in transaction mode before
// 1.21 (which keeps no prepared statements), or on PGlite's socket server,
// which multiplexes every client onto one backend, use
// default_query_exec_mode=simple_protocol: pgx's default protocol prepares
// each statement on one backend and the pooler may run it on another
// (errors with SQLSTATE 26000 or 42P05, which then say so).
//
// Tests run against real servers: scripts/test.sh starts PGlite
// (PostgreSQL 18 compiled to WebAssembly, with pgvector) on 127.0.0.1 and
// sets CHITTA_TEST_DSN, then runs them again on a PostgreSQL server
// (scripts/postgres.sh), where sessions race and pgx's default protocol
// runs; set CHITTA_TEST_DSN yourself to test against any PostgreSQL with
// pgvector.
package pgstore
