// Command waitcheck reports how the workspace's tests wait: every
// time.Sleep (those on a synctest bubble's fake clock counted apart: they
// pass at once), every use of testing/synctest, and every channel receive
// in a _test.go file that nothing bounds, so that a test that waits for an event
// which never comes fails naming it instead of hanging until the binary's
// timeout.
//
//	go run ./scripts/waitcheck            # counts, and the unbounded receives
//	go run ./scripts/waitcheck -strict    # exit 1 when a receive is unbounded
//
// A receive is bounded when it is
//   - a case of a select that has a default, or a case on a timer, a
//     deadline or a context (time.After, time.Tick, a timer's C, Done());
//   - inside the function given to synctest.Test, whose bubble turns a
//     receive that can never complete into a deadlock panic;
//   - on a line carrying, or following a line carrying, a
//     `// bounded: <reason>` comment (a channel the test itself closes on
//     every path, say).
//
// A `for range ch` over a channel counts as a receive when the range
// expression is a channel the file makes or receives (make(chan …) or a
// parameter of channel type); without type information other ranges are
// not examined.
//
// It reads the files with go/parser only, so it needs nothing beyond the
// standard library.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"sort"
	"strings"
)

func main() {
	strict := flag.Bool("strict", false, "exit 1 when a receive is unbounded")
	flag.Parse()
	files, err := testFiles()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waitcheck:", err)
		os.Exit(2)
	}
	var r report
	for _, f := range files {
		if err := r.file(f); err != nil {
			fmt.Fprintln(os.Stderr, "waitcheck:", err)
			os.Exit(2)
		}
	}
	r.print(os.Stdout)
	if *strict && len(r.unbounded) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d channel receives in tests that nothing bounds: use echomqtest.Recv, a select with a timeout, or say `// bounded: <reason>`\n", len(r.unbounded))
		os.Exit(1)
	}
}

// testFiles lists the repository's _test.go files, tracked or not (ignored
// ones excluded), as git sees them from the working directory.
func testFiles() ([]string, error) {
	out, err := exec.Command("git", "ls-files", "-co", "--exclude-standard", "--", "*_test.go").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w", err)
	}
	var files []string
	for l := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			files = append(files, l)
		}
	}
	sort.Strings(files)
	return files, nil
}

type report struct {
	files      int
	sleeps     int
	sleepFiles int
	synctest   int // synctest.Test calls
	// bubbleSleeps are time.Sleep calls in a synctest bubble: they advance
	// the bubble's fake clock at once, not a wait on real time.
	bubbleSleeps int
	receives     int // channel receives in all
	unbounded    []string
}

func (r *report) print(w *os.File) {
	fmt.Fprintf(w, "test files:           %d\n", r.files)
	fmt.Fprintf(w, "time.Sleep in tests:  %d in %d files (and %d on synctest bubbles' clocks)\n", r.sleeps, r.sleepFiles, r.bubbleSleeps)
	fmt.Fprintf(w, "synctest.Test calls:  %d\n", r.synctest)
	fmt.Fprintf(w, "channel receives:     %d, unbounded: %d\n", r.receives, len(r.unbounded))
	for _, u := range r.unbounded {
		fmt.Fprintln(w, "  "+u)
	}
}

// file examines one test file.
func (r *report) file(path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return r.source(path, src)
}

// source examines the text of one test file.
func (r *report) source(path string, src []byte) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return err
	}
	r.files++
	said := map[int]bool{} // lines with a `// bounded:` comment
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), "bounded:") {
				said[fset.Position(c.Pos()).Line] = true
			}
		}
	}
	chans := chanNames(f)
	bubbles := bubbleFuncs(f)
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	sleeps := 0
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *ast.CallExpr:
			switch selector(n.Fun) {
			case "time.Sleep":
				if inBubble(stack, bubbles) {
					r.bubbleSleeps++
				} else {
					sleeps++
				}
			case "synctest.Test":
				r.synctest++
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				r.receives++
				if !selfBounded(n.X, text) && !bounded(stack, said, bubbles, fset.Position(n.Pos()).Line, text) {
					r.unbounded = append(r.unbounded, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), oneLine(text(n))))
				}
			}
		case *ast.RangeStmt:
			if id, ok := n.X.(*ast.Ident); ok && chans[id.Name] {
				r.receives++
				if !closedBefore(stack, id.Name, n.Pos()) && !bounded(stack, said, bubbles, fset.Position(n.Pos()).Line, text) {
					r.unbounded = append(r.unbounded, fmt.Sprintf("%s: range %s", fset.Position(n.Pos()), id.Name))
				}
			}
		}
		return true
	})
	r.sleeps += sleeps
	if sleeps > 0 {
		r.sleepFiles++
	}
	return nil
}

// bounded says whether the receive at the top of stack is bounded.
func bounded(stack []ast.Node, said map[int]bool, bubbles map[string]bool, line int, text func(ast.Node) string) bool {
	if said[line] || said[line-1] {
		return true
	}
	recv := stack[len(stack)-1]
outer:
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.CommClause:
			// Only the clause's communication is raced against the others;
			// a receive in the clause's body is a receive of its own.
			if p.Comm == nil || !within(recv, p.Comm) {
				continue
			}
			sel, ok := stack[i-2].(*ast.SelectStmt) // CommClause ← BlockStmt ← SelectStmt
			if ok && selectBounded(sel, text) {
				return true
			}
		case *ast.GoStmt:
			// A goroutine's own wait: it does not hold the test up; goleak
			// reports it when it outlives the test.
			return true
		case *ast.FuncDecl:
			break outer
		}
	}
	return inBubble(stack, bubbles)
}

// inBubble says whether the node at the top of stack runs in a synctest
// bubble: inside the function given to synctest.Test, or one given to it
// by name.
func inBubble(stack []ast.Node, bubbles map[string]bool) bool {
	for i := len(stack) - 2; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.CallExpr:
			if selector(p.Fun) == "synctest.Test" {
				return true
			}
		case *ast.FuncDecl:
			return p.Recv == nil && bubbles[p.Name.Name]
		}
	}
	return false
}

// selfBounded says whether what is received from bounds itself: a timer or
// ticker fires, a context's Done closes when it is cancelled or its
// deadline passes.
func selfBounded(x ast.Expr, text func(ast.Node) string) bool {
	t := text(x)
	return strings.HasSuffix(t, ".C") || strings.HasPrefix(t, "time.After(") || strings.HasPrefix(t, "time.Tick(") || strings.HasSuffix(t, ".Done()")
}

// closedBefore says whether the function around a range closes the channel
// it ranges over before the range starts: the range then ends with what
// the channel holds.
func closedBefore(stack []ast.Node, name string, at token.Pos) bool {
	var body ast.Node
	for i := len(stack) - 1; i >= 0 && body == nil; i-- {
		switch p := stack[i].(type) {
		case *ast.FuncDecl:
			body = p.Body
		case *ast.FuncLit:
			body = p.Body
		}
	}
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if ok && c.Pos() < at && len(c.Args) == 1 {
			if f, ok := c.Fun.(*ast.Ident); ok && f.Name == "close" {
				if a, ok := c.Args[0].(*ast.Ident); ok && a.Name == name {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// bubbleFuncs names the functions of the file given to synctest.Test by
// name: their bodies run in a bubble.
func bubbleFuncs(f *ast.File) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && selector(c.Fun) == "synctest.Test" && len(c.Args) == 2 {
			if id, ok := c.Args[1].(*ast.Ident); ok {
				names[id.Name] = true
			}
		}
		return true
	})
	return names
}

// selectBounded says whether a select has a default or a case on a timer,
// a deadline or a context.
func selectBounded(sel *ast.SelectStmt, text func(ast.Node) string) bool {
	for _, s := range sel.Body.List {
		cc := s.(*ast.CommClause)
		if cc.Comm == nil {
			return true
		}
		t := text(cc.Comm)
		for _, k := range []string{"time.After", "time.Tick", ".C", "Done()", "timeout", "Timeout", "deadline", "Deadline", "timer", "tick"} {
			if strings.Contains(t, k) {
				return true
			}
		}
	}
	return false
}

func within(n, outer ast.Node) bool { return n.Pos() >= outer.Pos() && n.End() <= outer.End() }

// selector renders pkg.Name of a call's function, or "".
func selector(e ast.Expr) string {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	x, ok := s.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return x.Name + "." + s.Sel.Name
}

// chanNames collects the names the file gives channels: made with
// make(chan …), declared with a channel type, or parameters of one.
func chanNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	isChan := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.ChanType:
			return true
		case *ast.CallExpr:
			if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "make" && len(e.Args) > 0 {
				_, ok := e.Args[0].(*ast.ChanType)
				return ok
			}
		}
		return false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, rhs := range n.Rhs {
				if i < len(n.Lhs) && isChan(rhs) {
					if id, ok := n.Lhs[i].(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && isChan(n.Type) {
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
			for i, v := range n.Values {
				if i < len(n.Names) && isChan(v) {
					names[n.Names[i].Name] = true
				}
			}
		case *ast.Field:
			if isChan(n.Type) {
				for _, id := range n.Names {
					names[id.Name] = true
				}
			}
		}
		return true
	})
	return names
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
