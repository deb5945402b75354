package pgstore

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/chitta-go/chitta"
)

// Defaults and limits of [Options].
const (
	DefaultTable     = "chitta_memories" // used when Options.Table is ""
	DefaultNamespace = "default"         // used when Options.Namespace is ""
	MaxDims          = 16000             // largest Options.Dims (pgvector's vector type)
	MaxIndexedDims   = 2000              // largest Options.Dims with an hnsw or ivfflat index
	MaxTableLen      = 40                // longest Options.Table (index names add up to 23 bytes)
	MaxNamespaceLen  = 1024              // longest Options.Namespace, in bytes

	// DefaultEfSearch is the hnsw.ef_search every search sets unless
	// the DSN sets it: pgvector's default of 40 gives a recall@3 below 0.95
	// on 100 000 clustered vectors (see BENCHMARKS.md).
	DefaultEfSearch = 100

	// DefaultProbes is the ivfflat.probes every search sets unless the
	// DSN sets it: √100, for the 100 lists of an IndexIVFFlat index
	// (pgvector's default of 1 probes one list, and a namespace or kind
	// filter then leaves a few hits of k). With pgvector 0.8 or later the
	// searches also set ivfflat.iterative_scan to relaxed_order, so that
	// the scan probes more lists while fewer than k rows pass the filter.
	DefaultProbes = 10
)

// Index kinds of [Options.Index].
const (
	IndexHNSW    = "hnsw"    // pgvector HNSW graph (the default)
	IndexIVFFlat = "ivfflat" // pgvector IVFFlat lists (build it after loading the data)
	IndexNone    = "none"    // no index: every Recall is an exact scan
)

// Options configures a [Store]. A nil *Options is an error because Dims
// is required; the zero value of every other field means its default.
// [Open] reads Options once and neither modifies nor keeps them.
type Options struct {
	// Dims is the vector length, 1–MaxDims (1–MaxIndexedDims with an
	// index). Required. Opening a table created with other dims is an
	// error wrapping chitta.ErrDimensionMismatch that names both.
	Dims int

	// Table is the memories table; pgstore also creates Table+"_schema"
	// (the schema version) and Table+"_generation" (per-namespace
	// generations). It must match [a-z_][a-z0-9_]* and be at most
	// MaxTableLen bytes. "" means DefaultTable.
	Table string

	// Namespace isolates projects or agents sharing one table: every
	// method sees only the memories of its namespace. Any UTF-8 text
	// without NUL bytes, at most MaxNamespaceLen bytes. "" means
	// DefaultNamespace.
	Namespace string

	// Index is the vector index Open creates when it is missing: IndexHNSW
	// (""), IndexIVFFlat (100 lists, cosine, searched with [DefaultProbes];
	// its lists are centred on the rows the table holds when the index is
	// built, so build it once the table holds data, as pgvector
	// recommends: an Open of a new table builds it on nothing, and its
	// searches then find the nearest memories less often) or IndexNone
	// (exact scans). It is also what the Store's searches ask for: with
	// IndexNone they are exact (ties at the k-th place by ID) and no index
	// can answer them, even one another Open created or an operator built
	// (they sort by the distance plus 0, which no index scan gives); with
	// an index kind they order by distance alone, so that an index of
	// either kind answers them. Open never
	// drops an index another Open created. To load many memories at
	// once, Open with IndexNone, Add them, then Open with IndexHNSW: that
	// Open builds the index in one pass (much faster than maintaining it
	// row by row; give the connection a maintenance_work_mem the graph fits
	// in), search through that second Store, and ANALYZE the table if
	// autovacuum does not (see BENCHMARKS.md).
	Index string

	// DeferIndex, when true, makes Open build a missing index only on
	// tables that hold no memory yet (which is instant): on a table that
	// holds memories and lacks it (loaded with IndexNone, or indexed with
	// another kind), or that a write in flight holds (a load's first
	// batch), Open leaves it missing without waiting, and the searches are
	// answered without it (by an index of the other kind, or a scan of the
	// namespace: exact, slower on a large table) until some Open without
	// DeferIndex builds it. For short-lived processes that must not spend
	// their deadline on the build, nor hold back the table's writers
	// meanwhile (CREATE INDEX stops every write to the table until it
	// ends, and a build cut short by the deadline is rolled back, to start
	// again at the next Open): the chitta harnesses set it.
	// [Store.MissingIndex] gives the statement that builds the index.
	// false (the zero value) builds it in Open. An index of the name that
	// is not valid (a CREATE INDEX CONCURRENTLY that failed, or is still
	// running) is left alone either way, and reported by MissingIndex.
	DeferIndex bool
}

// identifier is what Options.Table must match: it is quoted in SQL anyway.
var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// resolve returns o with defaults applied, or an error wrapping
// chitta.ErrInvalidOption naming the first field out of range.
func (o *Options) resolve() (Options, error) {
	if o == nil {
		return Options{}, fmt.Errorf("%w: pgstore.Options is nil (Dims is required)", chitta.ErrInvalidOption)
	}
	r := *o
	if r.Table == "" {
		r.Table = DefaultTable
	}
	if r.Namespace == "" {
		r.Namespace = DefaultNamespace
	}
	if r.Index == "" {
		r.Index = IndexHNSW
	}
	switch {
	case !identifier.MatchString(r.Table) || len(r.Table) > MaxTableLen:
		return r, fmt.Errorf("%w: Options.Table %q, want [a-z_][a-z0-9_]* of at most %d bytes", chitta.ErrInvalidOption, r.Table, MaxTableLen)
	case r.Index != IndexHNSW && r.Index != IndexIVFFlat && r.Index != IndexNone:
		return r, fmt.Errorf("%w: Options.Index %q, want %q, %q or %q", chitta.ErrInvalidOption, r.Index, IndexHNSW, IndexIVFFlat, IndexNone)
	case r.Dims < 1 || r.Dims > MaxDims:
		return r, fmt.Errorf("%w: Options.Dims %d, want 1–%d", chitta.ErrInvalidOption, r.Dims, MaxDims)
	case r.Index != IndexNone && r.Dims > MaxIndexedDims:
		return r, fmt.Errorf("%w: Options.Dims %d with Index %q, want 1–%d (or Index %q)", chitta.ErrInvalidOption, r.Dims, r.Index, MaxIndexedDims, IndexNone)
	}
	if err := checkText("Options.Namespace", r.Namespace, MaxNamespaceLen); err != nil {
		return r, fmt.Errorf("%w: %w", chitta.ErrInvalidOption, err)
	}
	return r, nil
}

// URL query parameters that [OpenURL] takes out of a postgres:// URL.
const (
	URLTable     = "chitta_table"     // Options.Table
	URLNamespace = "chitta_namespace" // Options.Namespace
	URLIndex     = "chitta_index"     // Options.Index
)

// OpenURL opens the store of one postgres:// (or postgresql://) URL, as
// the chitta harnesses take it in --store: the chitta_table,
// chitta_namespace and chitta_index query parameters, when present, are
// removed and, unless empty, replace opts' Table, Namespace and Index; the
// other fields of opts (Dims, required, and DeferIndex) are used as given.
// opts is neither modified nor kept. The parameters are taken out of the
// query string (what follows the first '?' after the userinfo) as text: every other
// byte of the URL goes to [Open] as written, so OpenURL reads the URL as
// Open does (pgx's parser, libpq's rules: several hosts, a password
// with characters net/url refuses) and fails as it does. Errors are
// Open's; ErrBadDSN for a URL that is not postgres:// or postgresql://,
// for a query string that does not parse (a ';' separator, a bad escape)
// or that gives a chitta_ parameter more than once; and, for a value from
// the URL that Options refuses, chitta.ErrInvalidOption led by the URL
// key ("chitta_index: ..."). None contains the password.
func OpenURL(ctx context.Context, rawURL string, opts *Options) (*Store, error) {
	if opts == nil {
		_, err := opts.resolve()
		return nil, err
	}
	if !strings.HasPrefix(rawURL, "postgres://") && !strings.HasPrefix(rawURL, "postgresql://") {
		return nil, fmt.Errorf("%w: want a postgres:// or postgresql:// URL", ErrBadDSN)
	}
	// The query string starts at the first '?' after the userinfo, which
	// pgx, as libpq, ends at the first '@' before any '/' (a password may
	// hold a '?').
	start := strings.Index(rawURL, "://") + 3
	if i := strings.IndexAny(rawURL[start:], "@/"); i >= 0 && rawURL[start+i] == '@' {
		start += i + 1
	}
	base, query, hasQuery := rawURL, "", false
	if i := strings.IndexByte(rawURL[start:], '?'); i >= 0 {
		base, query, hasQuery = rawURL[:start+i], rawURL[start+i+1:], true
	}
	q, err := url.ParseQuery(query) // the pairs pgx would drop are refused
	if err != nil {
		return nil, fmt.Errorf("%w: query: %s", ErrBadDSN, redact(err.Error(), dsnSecrets(rawURL)...))
	}
	o := *opts
	params := []struct {
		key, field string
		value      *string
	}{{URLTable, "Options.Table", &o.Table}, {URLNamespace, "Options.Namespace", &o.Namespace}, {URLIndex, "Options.Index", &o.Index}}
	var given []string // the keys whose values replaced a field
	for _, p := range params {
		switch vs := q[p.key]; len(vs) {
		case 0:
		case 1:
			if vs[0] != "" { // an empty value (a template's empty variable) gives nothing
				*p.value = vs[0]
				given = append(given, p.key)
			}
		default:
			return nil, fmt.Errorf("%w: query: %s given %d times, want it once", ErrBadDSN, p.key, len(vs))
		}
	}
	if _, err := o.resolve(); err != nil {
		for _, p := range params {
			if slices.Contains(given, p.key) && strings.Contains(err.Error(), p.field+" ") {
				return nil, fmt.Errorf("%s: %w", p.key, err)
			}
		}
		return nil, err
	}
	var rest []string // the other pairs, as written
	for _, pair := range strings.Split(query, "&") {
		key, _, _ := strings.Cut(pair, "=")
		if k, err := url.QueryUnescape(key); err == nil && (k == URLTable || k == URLNamespace || k == URLIndex) {
			continue
		}
		if pair != "" {
			rest = append(rest, pair)
		}
	}
	dsn := base
	if hasQuery && len(rest) > 0 {
		dsn += "?" + strings.Join(rest, "&")
	}
	return Open(ctx, dsn, &o)
}
