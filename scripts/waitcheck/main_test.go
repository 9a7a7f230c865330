package main

import (
	"testing"
)

// TestBounded: which receives the check accepts as bounded.
func TestBounded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		body      string
		unbounded int
	}{
		{"plain receive", `<-ch`, 1},
		{"receive assigned", `v := <-ch; _ = v`, 1},
		{"select without bound", `select { case <-ch: case <-other: }`, 2},
		{"select with default", `select { case <-ch: default: }`, 0},
		{"select with time.After", `select { case <-ch: case <-time.After(time.Second): }`, 0},
		{"select with a context", `select { case <-ch: case <-ctx.Done(): }`, 0},
		{"receive in a select body", `select { case <-ch: <-other; case <-time.After(time.Second): }`, 1},
		{"timer channel", `<-timer.C`, 0},
		{"context", `<-ctx.Done()`, 0},
		{"in a goroutine", `go func() { <-ch }()`, 0},
		{"said bounded", "// bounded: closed on every path\n<-ch", 0},
		{"range over a made channel", `c := make(chan int); for range c {}`, 1},
		{"range over a closed channel", `c := make(chan int, 1); close(c); for range c {}`, 0},
		{"in a synctest bubble", `synctest.Test(t, func(t *testing.T) { <-ch })`, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var r report
			src := "package p\n\nfunc TestX(t *testing.T) {\n" + c.body + "\n}\n"
			if err := r.source("x_test.go", []byte(src)); err != nil {
				t.Fatal(err)
			}
			if len(r.unbounded) != c.unbounded {
				t.Fatalf("%s: %d unbounded, want %d: %v", c.body, len(r.unbounded), c.unbounded, r.unbounded)
			}
		})
	}
}

// TestBubbleByName: a function handed to synctest.Test by name runs in a
// bubble; the same receive elsewhere does not.
func TestBubbleByName(t *testing.T) {
	t.Parallel()
	src := `package p

func TestA(t *testing.T) { synctest.Test(t, testA) }
func testA(t *testing.T) { <-ch }
func testB(t *testing.T) { <-ch }
`
	var r report
	if err := r.source("x_test.go", []byte(src)); err != nil {
		t.Fatal(err)
	}
	if len(r.unbounded) != 1 || r.synctest != 1 {
		t.Fatalf("unbounded %v, synctest %d: want testB's receive alone and one bubble", r.unbounded, r.synctest)
	}
}
