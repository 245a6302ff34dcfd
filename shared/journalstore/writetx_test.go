package journalstore_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestWritesGoThroughWriteTx holds the code to the one write path: every
// write of the journal is a writeTx, which settles the derived rows once
// before it commits, so no write can forget to.
//   - In this package only Store.write begins a transaction that may write
//     (a read's own transaction is read-only), only within settles, and
//     no function takes a bare pgx.Tx but within and Store.Restore (which
//     wrap a caller's transaction in a writeTx): a helper that writes takes
//     the *writeTx, so it cannot be called outside one.
//   - No other package's code writes a table the store owns or derives.
func TestWritesGoThroughWriteTx(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	begins := map[string]bool{"InTx": true, "Begin": true, "BeginTx": true, "BeginFunc": true, "BeginTxFunc": true}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			where := name + ": " + funcName(fn)
			for _, field := range fn.Type.Params.List {
				if typeName(field.Type) == "pgx.Tx" && where != "writetx.go: within" && where != "restore.go: (*Store).Restore" {
					t.Errorf("%s takes a pgx.Tx: a helper that writes takes the *writeTx", where)
				}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				switch {
				case begins[sel.Sel.Name] && where != "writetx.go: (*Store).write" && !readOnlyArg(call):
					t.Errorf("%s begins a transaction that may write: write through Store.write", where)
				case sel.Sel.Name == "settle" && where != "writetx.go: within":
					t.Errorf("%s settles: only within does, once, at the end of a write", where)
				}
				return true
			})
		}
	}

	// The tables the store writes (and the rows it derives from them).
	owned := regexp.MustCompile(`(?i)(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(positions|fills|position_tags|position_criteria|strategies|ledger_entries|closed_trades)\b`)
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "web", ".git", ".data", "journalstore", "journaltest", "migrations":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && owned.MatchString(s) {
					t.Errorf("%s writes a journal table (%q): write through shared/journalstore", fset.Position(lit.Pos()), owned.FindString(s))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	return "(" + typeName(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + typeName(e.X)
	case *ast.SelectorExpr:
		return typeName(e.X) + "." + e.Sel.Name
	}
	return ""
}

// readOnlyArg reports whether a call passes db.Snapshot (the options of a
// read's own transaction).
func readOnlyArg(call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if typeName(a) == "db.Snapshot" {
			return true
		}
	}
	return false
}
