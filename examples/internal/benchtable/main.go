// Command benchtable turns `go test -bench` output on stdin into a markdown
// table on stdout: one row per benchmark with ns/op and every other metric
// the benchmark reported (B/op, allocs/op, MB/s, custom units). scripts/bench.sh
// uses it to produce the table in BENCHMARKS.md.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

type row struct {
	pkg, name string
	metrics   map[string]string
}

func run(in io.Reader, out io.Writer) error {
	var rows []row
	units := []string{}
	seen := map[string]bool{}
	pkg := ""
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimPrefix(p, "github.com/chitta-go/chitta")
			if pkg == "" {
				pkg = "chitta"
			} else {
				pkg = strings.TrimPrefix(pkg, "/")
			}
			continue
		}
		r, ok := parse(line)
		if !ok {
			continue
		}
		r.pkg = pkg
		for u := range r.metrics {
			if !seen[u] {
				seen[u] = true
				units = append(units, u)
			}
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	order := []string{"ns/op", "MB/s", "B/op", "allocs/op"}
	var cols []string
	for _, u := range order {
		if seen[u] {
			cols = append(cols, u)
		}
	}
	for _, u := range units {
		if !contains(order, u) {
			cols = append(cols, u)
		}
	}
	fmt.Fprintf(out, "| package | benchmark | %s |\n", strings.Join(cols, " | "))
	fmt.Fprintf(out, "|---|---|%s\n", strings.Repeat("---:|", len(cols)))
	for _, r := range rows {
		vals := make([]string, len(cols))
		for i, c := range cols {
			vals[i] = r.metrics[c]
		}
		fmt.Fprintf(out, "| %s | %s | %s |\n", r.pkg, r.name, strings.Join(vals, " | "))
	}
	return nil
}

// parse reads "BenchmarkName-2  N  v1 unit1  v2 unit2 ...".
func parse(line string) (row, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return row{}, false
	}
	name := f[0]
	if i := strings.LastIndex(name, "-"); i > 0 {
		name = name[:i]
	}
	r := row{name: strings.TrimPrefix(name, "Benchmark"), metrics: map[string]string{}}
	for i := 2; i+1 < len(f); i += 2 {
		r.metrics[f[i+1]] = f[i]
	}
	return r, true
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
