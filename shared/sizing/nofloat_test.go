package sizing

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoFloat holds the package to exact arithmetic: no float32 or float64,
// and no math package (its functions are float64), in any non-test file.
func TestNoFloat(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if imp.Path.Value == `"math"` {
				t.Errorf("%s imports math", name)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && (id.Name == "float64" || id.Name == "float32") {
				t.Errorf("%s: %s at %s", name, id.Name, fset.Position(id.Pos()))
			}
			return true
		})
	}
}
