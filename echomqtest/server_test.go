package echomqtest

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { MainWithLeakCheck(m) }

const testTimeout = 2 * time.Second

func ping(t *testing.T, addr string) {
	t.Helper()
	v, err := respDo(addr, testTimeout, "PING")
	require.NoError(t, err)
	require.Equal(t, "PONG", v)
}

func serverPID(t *testing.T, addr string) int {
	t.Helper()
	s, err := respString(addr, testTimeout, "INFO", "server")
	require.NoError(t, err)
	pid, err := strconv.Atoi(parseInfo(s)["process_id"])
	require.NoError(t, err)
	return pid
}

func TestStartPing(t *testing.T) {
	t.Parallel()
	s := Start(t)
	require.Regexp(t, `^127\.0\.0\.1:\d+$`, s.Addr())
	require.Equal(t, "redis://"+s.Addr(), s.URL())
	require.Equal(t, s.Addr(), fmt.Sprintf("127.0.0.1:%d", s.Port()))
	require.NotEqual(t, 6379, s.Port(), "must never use the system redis")
	ping(t, s.Addr())

	// It is our process, with persistence off, in its own process group
	// with a death signal (checked via /proc).
	pid := serverPID(t, s.Addr())
	require.Equal(t, s.p.cmd.Process.Pid, pid)
	save, err := respDo(s.Addr(), testTimeout, "CONFIG", "GET", "save")
	require.NoError(t, err)
	require.Equal(t, []any{"save", ""}, save)
	aof, err := respDo(s.Addr(), testTimeout, "CONFIG", "GET", "appendonly")
	require.NoError(t, err)
	require.Equal(t, []any{"appendonly", "no"}, aof)
	pgid, err := syscall.Getpgid(pid)
	require.NoError(t, err)
	require.Equal(t, pid, pgid, "server must lead its own process group")

	require.FileExists(t, s.LogPath())
}

func TestStartExtraArgs(t *testing.T) {
	t.Parallel()
	s := Start(t, "--maxmemory", "10mb", "--maxmemory-policy", "noeviction")
	v, err := respDo(s.Addr(), testTimeout, "CONFIG", "GET", "maxmemory")
	require.NoError(t, err)
	require.Equal(t, []any{"maxmemory", strconv.Itoa(10 << 20)}, v)
}

func TestKillRestart(t *testing.T) {
	t.Parallel()
	s := Start(t)
	addr := s.Addr()
	ok, err := respString(addr, testTimeout, "SET", "k", "v")
	require.NoError(t, err)
	require.Equal(t, "OK", ok)
	oldPID := serverPID(t, addr)

	require.NoError(t, s.Kill())
	_, err = respDo(addr, 200*time.Millisecond, "PING")
	require.Error(t, err, "killed server must not answer")
	require.ErrorIs(t, syscall.Kill(oldPID, 0), syscall.ESRCH, "process must be gone")
	require.Error(t, s.Kill(), "second Kill must report not running")

	s.Restart(t)
	require.Equal(t, addr, s.Addr(), "restart keeps the port")
	ping(t, addr)
	require.NotEqual(t, oldPID, serverPID(t, addr))
	v, err := respDo(addr, testTimeout, "GET", "k")
	require.NoError(t, err)
	require.Nil(t, v, "dataset is lost (no persistence)")

	// Restart of a running server stops it first.
	pid := serverPID(t, addr)
	s.Restart(t)
	ping(t, addr)
	require.NotEqual(t, pid, serverPID(t, addr))
}

func TestStopIdempotent(t *testing.T) {
	t.Parallel()
	s := Start(t)
	pid := serverPID(t, s.Addr())
	s.Stop()
	s.Stop()
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH)
	_, err := respDo(s.Addr(), 200*time.Millisecond, "PING")
	require.Error(t, err)
	require.Error(t, s.Kill())
	require.Error(t, s.restart(), "a stopped server cannot be restarted")
}

func TestParallelStarts(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]string{}
	for i := range 6 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			s := Start(t)
			ping(t, s.Addr())
			mu.Lock()
			other, dup := seen[s.Addr()]
			seen[s.Addr()] = t.Name()
			mu.Unlock()
			require.False(t, dup, "address %s handed to both %s and %s", s.Addr(), other, t.Name())
		})
	}
}

func TestShared(t *testing.T) {
	t.Parallel()
	s := Shared(t)
	require.Same(t, s, Shared(t))
	ping(t, s.Addr())
	require.Error(t, s.Kill(), "shared server must not be killable")
	s.Stop() // no-op
	ping(t, s.Addr())
	require.Error(t, s.restart())
}

func TestExternalServer(t *testing.T) {
	t.Parallel()
	priv := Start(t)
	s, err := externalServer(priv.Addr())
	require.NoError(t, err)
	require.Equal(t, priv.Addr(), s.Addr())
	require.Equal(t, priv.URL(), s.URL())
	require.Equal(t, priv.Port(), s.Port())
	require.Error(t, s.Kill())
	s.Stop() // no-op: not ours
	ping(t, priv.Addr())

	_, err = externalServer("no-port")
	require.Error(t, err)
	dead := Start(t)
	dead.Stop()
	_, err = externalServer(dead.Addr())
	require.Error(t, err)
}

func TestSpawnFailureShowsLog(t *testing.T) {
	t.Parallel()
	bin := mustBinary(t, serverBinary)
	_, err := startServer(bin, t.TempDir(), false, []string{"--no-such-option", "x"})
	require.Error(t, err)
	require.Contains(t, err.Error(), "did not come up")
	require.Contains(t, err.Error(), "no-such-option", "error must include the log tail")
}

func TestPortClashRetries(t *testing.T) {
	t.Parallel()
	// Occupy a port with another of our servers and spawn a second
	// process on it directly: it must be recognised as a port clash (the
	// PID check keeps us from mistaking the first server for the second).
	s := Start(t)
	bin := mustBinary(t, serverBinary)
	dir := t.TempDir()
	_, err := spawnRedis(bin, dir, dir+"/redis.log", s.Addr(),
		[]string{"--port", strconv.Itoa(s.Port()), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir})
	require.ErrorIs(t, err, errPortInUse)
	ping(t, s.Addr())
}

func TestQueue(t *testing.T) {
	t.Parallel()
	valid := regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	q1, q2 := Queue(t), Queue(t)
	require.NotEqual(t, q1, q2)
	require.Regexp(t, `^tQueue\.[0-9a-f]{16}$`, q1)
	for _, name := range []string{
		"weird name/with:chars*and?ÜNICODE",
		strings.Repeat("x", 300),
		"",
		"emq",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			q := Queue(t)
			require.Regexp(t, valid, q)
			require.NotEqual(t, "emq", q)
			require.True(t, strings.HasPrefix(q, "t"))
		})
	}
}

func FuzzSanitizeName(f *testing.F) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{0,48}$`)
	for _, s := range []string{"", "TestFoo/bar", "emq", "Ü/\x00.", strings.Repeat("ab", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s := sanitizeName(name)
		if !valid.MatchString(s) {
			t.Fatalf("sanitizeName(%q) = %q", name, s)
		}
	})
}

func TestReadReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want any
	}{
		{"+PONG\r\n", "PONG"},
		{"-ERR bad\r\n", respError("ERR bad")},
		{":42\r\n", int64(42)},
		{"$3\r\nfoo\r\n", "foo"},
		{"$0\r\n\r\n", ""},
		{"$-1\r\n", nil},
		{"*-1\r\n", nil},
		{"*3\r\n:1\r\n$1\r\nx\r\n*1\r\n+y\r\n", []any{int64(1), "x", []any{"y"}}},
	} {
		v, err := readReply(bufio.NewReader(strings.NewReader(tc.in)), 0)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, v, tc.in)
	}
	for _, in := range []string{"", "?\r\n", "+x\n", ":x\r\n", "$5\r\nab\r\n", "$999999999\r\n", "*2\r\n:1\r\n", "$3\r\nfooXY"} {
		_, err := readReply(bufio.NewReader(strings.NewReader(in)), 0)
		require.Error(t, err, "%q", in)
	}
}

func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "$3\r\nfoo\r\n", "*2\r\n:1\r\n$-1\r\n", "-ERR x\r\n", "*1\r\n*1\r\n*0\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = readReply(bufio.NewReader(strings.NewReader(string(in))), 0)
	})
}

func TestLogTail(t *testing.T) {
	t.Parallel()
	p := t.TempDir() + "/log"
	var sb strings.Builder
	for i := range 100 {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	require.NoError(t, os.WriteFile(p, []byte(sb.String()), 0o644))
	tail := logTail(p, 0)
	require.True(t, strings.HasSuffix(tail, "line 99"))
	require.Len(t, strings.Split(tail, "\n"), 30)
	require.Contains(t, logTail(p+".missing", 0), "cannot read log")
}

func BenchmarkPing(b *testing.B) {
	s := Shared(b)
	c, err := dialRESP(s.Addr(), testTimeout)
	require.NoError(b, err)
	defer c.Close()
	for b.Loop() {
		if _, err := c.Do("PING"); err != nil {
			b.Fatal(err)
		}
	}
}
