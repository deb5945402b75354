package chitta_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// undocumentedFields are the exported fields, as file: Type.Field, still
// without a comment of their own (their type's doc speaks of some). The
// list may only shrink: a field documented must leave it.
var undocumentedFields = []string{}

// TestExportedFieldsDocumented: every exported field of an exported struct
// type of the package has a doc comment or a line comment, but for those
// undocumentedFields lists.
func TestExportedFieldsDocumented(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var undocumented []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Doc != nil || field.Comment != nil {
					continue
				}
				for _, id := range field.Names {
					if id.IsExported() {
						undocumented = append(undocumented, name+": "+ts.Name.Name+"."+id.Name)
					}
				}
			}
			return true
		})
	}
	assert.ElementsMatch(t, undocumentedFields, undocumented)
}
