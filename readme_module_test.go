package echomq_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// readmeModuleSteps returns the shell lines of the README's "Use it in
// your own module" block, comments cut.
func readmeModuleSteps(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(readme), "## Use it in your own module\n")
	require.True(t, ok, "README has no section \"Use it in your own module\"")
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	var lines []string
	for l := range strings.SplitSeq(block, "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestReadmeOwnModule does what the README tells a newcomer to do: a
// throwaway module that depends on a clone of this repository through the
// README's commands (the clone being this tree), with the tutorial's files
// as its program, built outside the workspace with third-party modules
// from the module proxy, and run against a real engine.
func TestReadmeOwnModule(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a module from scratch (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := os.Getwd()
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "shop")
	require.NoError(t, os.Mkdir(dir, 0o755))
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	sh := func(line string) string {
		t.Helper()
		line = strings.ReplaceAll(line, "../echomq", root) // the clone beside the module is this tree
		args := strings.Fields(line)
		require.Equal(t, "go", args[0], line)
		cmd := exec.CommandContext(ctx, goBin, args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s:\n%s", line, out)
		return string(out)
	}
	steps := readmeModuleSteps(t)
	require.Equal(t, []string{
		"go mod init example.com/shop",
		"go mod edit -require github.com/echomq/echomq@v0.0.0 -replace github.com/echomq/echomq=../echomq",
		"go mod tidy",
	}, steps)
	// The program: the tutorial's files, as docs/getting-started.md has
	// the reader copy them (tidy needs the imports, so they come first).
	files, err := filepath.Glob("examples/getting-started/*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(f)), src, 0o644))
	}
	for _, s := range steps {
		sh(s)
	}
	sh("go build -o shop .")

	srv := echomqtest.Start(t)
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "shop"))
	cmd.Env = slices.Concat(env, []string{"EMQ_URL=" + srv.URL()})
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	require.Contains(t, stdout.String(), "4 orders in the window\n")
	require.Contains(t, stdout.String(), "after 3 deliveries: card declined: 250 for bo\n")
	require.Contains(t, stdout.String(), "shipped by dhl in 2 parcels\n")
}
