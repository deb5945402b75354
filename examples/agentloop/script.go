package main

// The scripted session: a coding agent fixing a CSV export bug. Each user
// turn is followed by model steps; a step is one assistant message, which
// may issue tool calls (two at once for a parallel pair). Tool results are
// scripted too, except for remember, which the loop executes against the
// memory store.

// call is one tool call the scripted model issues and the scripted result.
type call struct {
	name   string
	arg    string // the one argument, shown in the log
	result string // ignored for remember
}

// step is one assistant message.
type step struct {
	text  string
	calls []call
}

// exchange is a user prompt and the model steps that answer it.
type exchange struct {
	user  string
	steps []step
}

const systemPrompt = "You are a coding agent in the ledger Go repository. Use the tools to read, search, edit and test code, and call remember to keep facts you will need later. Keep changes small and run the tests before you finish."

var script = []exchange{
	{
		user: "ledger export --csv drops rows when a description contains a quoted comma, like \"ACME, Inc.\". Please find the bug and fix it.",
		steps: []step{
			{calls: []call{{name: "read_file", arg: "export/csv.go", result: `package export

// WriteCSV writes one line per entry: date, amount, description.
func WriteCSV(w io.Writer, entries []Entry) error {
	for _, e := range entries {
		fmt.Fprintf(w, "%s,%s,%s\n", e.Date.Format(time.DateOnly), e.Amount, e.Description)
	}
	return nil
}

// ReadCSV parses what WriteCSV wrote.
func ReadCSV(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := splitFields(sc.Text())
		if len(fields) != 3 {
			continue // malformed line
		}
		out = append(out, entry(fields))
	}
	return out, sc.Err()
}

func splitFields(line string) []string { return strings.Split(line, ",") }`}}},
			{text: "Two suspects: WriteCSV never quotes, and splitFields splits on every comma. I'll search for other callers and run the export tests at the same time.",
				calls: []call{
					{name: "grep", arg: "splitFields", result: "export/csv.go:17:\t\tfields := splitFields(sc.Text())\nexport/csv.go:25:func splitFields(line string) []string { return strings.Split(line, \",\") }\nimport/bank.go:42:\tcols := export.SplitFieldsCompat(line)"},
					{name: "go_test", arg: "./export", result: "--- FAIL: TestRoundTrip (0.00s)\n    csv_test.go:31: entry 2 \"ACME, Inc.\": got 4 fields, want 3; line silently skipped\nFAIL\tledger/export\t0.004s"},
				}},
			{calls: []call{{name: "remember", arg: "export/csv.go: WriteCSV writes date,amount,description with fmt.Fprintf and never quotes; ReadCSV splits each line with splitFields (strings.Split on every comma) and skips lines without 3 fields, so the \"ACME, Inc.\" row is lost: TestRoundTrip got 4 fields, want 3"}}},
			{text: "The fix is to stop hand-rolling CSV: WriteCSV should use encoding/csv's Writer, which quotes fields, and ReadCSV its Reader.",
				calls: []call{{name: "edit_file", arg: "export/csv.go", result: "edited export/csv.go: WriteCSV uses csv.NewWriter, ReadCSV uses csv.NewReader with FieldsPerRecord = 3; splitFields removed (+21 -14 lines)"}}},
			{calls: []call{{name: "go_test", arg: "./...", result: "ok  \tledger/export\t0.005s\n# ledger/import\nimport/bank.go:42:14: undefined: export.SplitFieldsCompat\nFAIL\tledger/import [build failed]"}}},
			{calls: []call{{name: "remember", arg: "import/bank.go:42 calls export.SplitFieldsCompat, so removing splitFields broke the ledger/import build (undefined: export.SplitFieldsCompat); bank statements must use csv.NewReader too"}}},
			{calls: []call{{name: "edit_file", arg: "import/bank.go", result: "edited import/bank.go: parse statements with csv.NewReader, LazyQuotes = true for the bank's loose quoting (+9 -4 lines)"}}},
			{calls: []call{{name: "go_test", arg: "./...", result: "ok  \tledger/export\t0.005s\nok  \tledger/import\t0.007s\nok  \tledger/cmd/ledger\t0.012s"}}},
			{text: "Fixed. WriteCSV and ReadCSV now use encoding/csv, so \"ACME, Inc.\" is written quoted and read back as one field; the bank importer uses csv.Reader with LazyQuotes. All tests pass."},
		},
	},
	{
		user: "Thanks. Old exports written before the fix are still on disk. Can ReadCSV still read them?",
		steps: []step{
			{calls: []call{{name: "read_file", arg: "testdata/export-2024.csv", result: "2024-01-03,120.00,Coffee beans\n2024-01-04,89.90,ACME, Inc.\n2024-01-09,15.00,\"Lunch\" with team\n2024-01-12,300.00,Rent share"}}},
			{text: "Old files have unquoted commas and bare quotes inside fields, which the strict csv.Reader rejects. ReadCSV needs a legacy fallback: on a parse error, re-read the line treating the first two commas as separators and the rest as description.",
				calls: []call{{name: "edit_file", arg: "export/csv.go", result: "edited export/csv.go: readLegacy splits on the first two commas; ReadCSV falls back to it per line on csv.ErrFieldCount or csv.ErrBareQuote (+18 lines)"}}},
			{calls: []call{{name: "remember", arg: "Old exports like testdata/export-2024.csv have unquoted commas (ACME, Inc.) and bare quotes (\"Lunch\" with team); ReadCSV falls back per line to readLegacy, which splits on the first two commas"}}},
			{calls: []call{{name: "go_test", arg: "./export", result: "ok  \tledger/export\t0.006s"}}},
			{text: "Yes: ReadCSV now falls back per line to a legacy parser that splits on the first two commas, so old exports read correctly, including \"ACME, Inc.\"."},
		},
	},
	{
		user: "Great. Add a regression test covering a quoted comma, a quoted newline and an old unquoted line, then we are done.",
		steps: []step{
			{calls: []call{{name: "edit_file", arg: "export/csv_test.go", result: "edited export/csv_test.go: TestReadCSV table with cases quoted comma, quoted newline, legacy unquoted comma, legacy bare quote (+38 lines)"}}},
			{calls: []call{{name: "go_test", arg: "-race ./...", result: "ok  \tledger/export\t1.021s\nok  \tledger/import\t1.009s\nok  \tledger/cmd/ledger\t1.034s"}}},
			{text: "Done. TestReadCSV covers a quoted comma, a quoted newline and two legacy lines; go test -race ./... passes."},
		},
	},
}
