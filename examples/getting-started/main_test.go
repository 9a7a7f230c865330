package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

// The tutorial runs as a program on a real engine and on the embedded
// one, and shows what docs/getting-started.md says it shows.
func TestTutorialRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, url string }{
		{"redis", echomqtest.Shared(t).URL()},
		{"embedded", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			require.NoError(t, run(t.Context(), tc.url, echomqtest.Queue(t), &out))
			got := out.String()
			for _, want := range []string{
				`(?m)^placed EVT\w{11}: 250 for bo$`,
				`(?m)^4 orders in the window$`,
				`(?m)^charged 42 for ada$`,
				`(?m)^delivery 3 of EVT\w{11}: declined$`,
				`(?m)^dead letter EVT\w{11}: order EVT\w{11} after 3 deliveries: card declined: 250 for bo$`,
				`(?m)^ada  orders 2, total 59$`,
				`(?m)^bo   orders 1, total 250$`,
				`(?m)^order EVT\w{11} shipped by dhl in 2 parcels$`,
			} {
				require.Regexp(t, want, got)
			}
		})
	}
}

// docs/getting-started.md shows every file of the program verbatim, so the
// page cannot drift from what CI runs.
func TestPageIsTheProgram(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../../docs/getting-started.md")
	require.NoError(t, err)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		require.Contains(t, string(page), "```go\n"+string(src)+"```",
			"docs/getting-started.md does not show %s verbatim", f)
		n++
	}
	require.Equal(t, 6, n, "main.go and the five steps")
	require.Len(t, regexp.MustCompile("(?m)^```go$").FindAllIndex(page, -1), n, "no other Go block that CI does not run")
}
