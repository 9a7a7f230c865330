package echomq_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

func itoa(n int) string { return strconv.Itoa(n) }

// mint mints an id under brand for queue q with c (leasing a node id in q
// on its first use).
func mint(t testing.TB, c *echomq.Client, q, brand string) echomq.ID {
	t.Helper()
	id, err := c.MintID(ctx, q, brand)
	require.NoError(t, err)
	return id
}

// runChildren re-executes this test binary into the test named test, one
// child per env (its variables added to this process's environment, plus
// fileVar naming the child's own result file), waits for every child and
// returns the result files in env order. A failing child fails the test
// with its output.
func runChildren(t *testing.T, test, fileVar string, envs [][]string) []string {
	t.Helper()
	dir := t.TempDir()
	cmds := make([]*exec.Cmd, len(envs))
	outs := make([]*syncBuffer, len(envs))
	files := make([]string, len(envs))
	for i, env := range envs {
		files[i] = filepath.Join(dir, strconv.Itoa(i))
		cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
		cmd.Env = append(append(os.Environ(), env...), fileVar+"="+files[i])
		outs[i] = &syncBuffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "child %d (%v): %s", i, envs[i], outs[i].String())
	}
	return files
}

// untilDeadline runs body on g goroutines (body gets its goroutine's
// index and a count from it) until deadline or body's first error, which
// fails the test.
func untilDeadline(t *testing.T, g int, deadline time.Time, body func(i, n int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, g)
	for i := range g {
		wg.Go(func() {
			for n := i; time.Now().Before(deadline); n++ {
				if err := body(i, n); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer = echomqtest.Buffer
