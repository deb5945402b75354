package pgstore

import (
	"context"
	"fmt"
	"net/url"
	"regexp"

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
	// (exact scans). It is also
	// what the Store's searches ask for: with IndexNone they are exact
	// (ties at the k-th place by ID) and no index can answer them, even
	// one another Open created; with an index kind they order by distance
	// alone, so that an index of either kind answers them. Open never
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
// opts is neither modified nor kept. The rest of the URL goes to [Open]. Errors are
// Open's and ErrBadDSN for a URL or query string that does not parse (a
// ';' separator, a bad escape) or that gives a chitta_ parameter more than
// once; none contains the password.
func OpenURL(ctx context.Context, rawURL string, opts *Options) (*Store, error) {
	if opts == nil {
		_, err := opts.resolve()
		return nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("%w: want a postgres:// URL", ErrBadDSN)
	}
	q, err := url.ParseQuery(u.RawQuery) // u.Query drops the pairs it cannot read
	if err != nil {
		return nil, fmt.Errorf("%w: query: %s", ErrBadDSN, redact(err.Error(), dsnSecrets(rawURL)...))
	}
	o := *opts
	for _, p := range []struct {
		key   string
		field *string
	}{{URLTable, &o.Table}, {URLNamespace, &o.Namespace}, {URLIndex, &o.Index}} {
		switch vs := q[p.key]; len(vs) {
		case 0:
		case 1:
			if vs[0] != "" { // an empty value (a template's empty variable) gives nothing
				*p.field = vs[0]
			}
		default:
			return nil, fmt.Errorf("%w: query: %s given %d times, want it once", ErrBadDSN, p.key, len(vs))
		}
		q.Del(p.key)
	}
	u.RawQuery = q.Encode()
	return Open(ctx, u.String(), &o)
}
