package echomqtest

import (
	"bufio"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPersistentRestartKeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	s := StartPersistent(t)
	require.True(t, s.Persistent())
	for i := range 50 {
		_, err := respDo(s.Addr(), testTimeout, "RPUSH", "acked", string(rune('a'+i%26)))
		require.NoError(t, err)
	}
	pid := serverPID(t, s.Addr())
	require.NoError(t, s.Kill())
	s.Restart(t)
	require.NotEqual(t, pid, serverPID(t, s.Addr()), "a new process answers")
	n, err := respInt(s.Addr(), testTimeout, "LLEN", "acked")
	require.NoError(t, err)
	require.EqualValues(t, 50, n, "every acknowledged write survives SIGKILL with appendfsync always")
}

func TestNonPersistentRestartStartsEmpty(t *testing.T) {
	t.Parallel()
	s := Start(t)
	require.False(t, s.Persistent())
	_, err := respDo(s.Addr(), testTimeout, "SET", "k", "v")
	require.NoError(t, err)
	require.NoError(t, s.Kill())
	s.Restart(t)
	v, err := respDo(s.Addr(), testTimeout, "GET", "k")
	require.NoError(t, err)
	require.Nil(t, v)
}

func TestPauseResume(t *testing.T) {
	t.Parallel()
	s := Start(t)
	c, err := dialRESP(s.Addr(), time.Second)
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, s.Pause())
	require.True(t, s.Paused())
	require.NoError(t, s.Pause(), "pausing twice is a no-op")
	_, err = c.Do("PING")
	var ne net.Error
	require.ErrorAs(t, err, &ne, "a paused engine answers nothing")
	require.True(t, ne.Timeout())
	require.NoError(t, s.Resume())
	require.False(t, s.Paused())
	ping(t, s.Addr())
}

func TestPausedServerStopsAndRestarts(t *testing.T) {
	t.Parallel()
	s := Start(t)
	require.NoError(t, s.Pause())
	s.Restart(t) // resumes, then stops gracefully
	ping(t, s.Addr())
	require.NoError(t, s.Pause())
	s.Stop() // cleanup must not hang on a stopped process
	require.Error(t, s.Pause(), "a stopped server cannot be paused")
}

func TestPauseRefusesShared(t *testing.T) {
	t.Parallel()
	require.Error(t, Shared(t).Pause())
}

// rawConn is a line-level client through the proxy, for fault checks.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testTimeout)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{c: c, r: bufio.NewReader(c)}
}

// ping sends PING and waits up to wait for +PONG.
func (r *rawConn) ping(wait time.Duration) error {
	if err := r.c.SetDeadline(time.Now().Add(wait)); err != nil {
		return err
	}
	if _, err := r.c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := r.r.ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return errors.New("unexpected reply " + line)
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestProxyForwards(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, Start(t).Addr())
	c := dialRaw(t, p.Addr())
	for range 10 {
		require.NoError(t, c.ping(testTimeout))
	}
	require.Equal(t, 1, p.Conns())
	require.Equal(t, ProxyCounts{Conns: 1, Chunks: 10}, p.Counts(), "one connection, ten pings")
	require.EqualValues(t, 11, p.Counts().Attempts())
}

func TestProxyLatency(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, Start(t).Addr())
	c := dialRaw(t, p.Addr())
	require.NoError(t, c.ping(testTimeout))
	const d = 150 * time.Millisecond
	p.SetLatency(d)
	start := time.Now()
	for range 3 {
		require.NoError(t, c.ping(10*time.Second))
	}
	// A lower bound only: a loaded machine makes it slower, never faster.
	require.GreaterOrEqual(t, time.Since(start), 3*2*d)
	p.SetLatency(0)
	require.NoError(t, c.ping(testTimeout))
}

func TestProxyDropConnections(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, Start(t).Addr())
	c := dialRaw(t, p.Addr())
	require.NoError(t, c.ping(testTimeout))
	require.Equal(t, 1, p.DropConnections())
	err := c.ping(testTimeout)
	require.Error(t, err)
	require.False(t, isTimeout(err), "a dropped connection fails at once, not by timeout: %v", err)
	require.NoError(t, dialRaw(t, p.Addr()).ping(testTimeout), "new connections work")
}

func TestProxyHalfOpen(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, Start(t).Addr())
	c := dialRaw(t, p.Addr())
	require.NoError(t, c.ping(testTimeout))
	require.Equal(t, 1, p.HalfOpen())
	err := c.ping(time.Second)
	require.True(t, isTimeout(err), "a half-open connection is silent, it does not close: %v", err)
	require.NoError(t, dialRaw(t, p.Addr()).ping(testTimeout), "new connections work")
}

func TestProxyPartitionHeals(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, Start(t).Addr())
	c := dialRaw(t, p.Addr())
	require.NoError(t, c.ping(testTimeout))
	p.Partition()
	p.Partition() // idempotent
	require.True(t, isTimeout(c.ping(time.Second)), "nothing crosses a partition")
	fresh := dialRaw(t, p.Addr())
	require.True(t, isTimeout(fresh.ping(time.Second)), "new connections are cut off too")
	p.Heal()
	p.Heal() // idempotent
	// The PINGs sent during the partition are delivered now: read their
	// replies before the next round trip.
	for _, rc := range []*rawConn{c, fresh} {
		require.NoError(t, rc.c.SetDeadline(time.Now().Add(10*time.Second)))
		line, err := rc.r.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "+PONG\r\n", line)
		require.NoError(t, rc.ping(testTimeout))
	}
}

func TestProxyDropReply(t *testing.T) {
	t.Parallel()
	s := Start(t)
	p := NewProxy(t, s.Addr())
	c := dialRaw(t, p.Addr())
	p.DropReplyTo("lost-marker")
	require.NoError(t, c.c.SetDeadline(time.Now().Add(testTimeout)))
	_, err := c.c.Write([]byte("SET lost-marker 1\r\n"))
	require.NoError(t, err)
	_, err = c.r.ReadString('\n')
	require.Error(t, err)
	require.EqualValues(t, 1, p.Dropped())
	v, err := respDo(s.Addr(), testTimeout, "GET", "lost-marker")
	require.NoError(t, err)
	require.Equal(t, "1", v, "the command ran; only its reply was lost")
}

func TestProxyCloseEndsEverything(t *testing.T) {
	t.Parallel()
	p := NewProxy(t, Start(t).Addr())
	c := dialRaw(t, p.Addr())
	require.NoError(t, c.ping(testTimeout))
	p.Partition()
	_, err := c.c.Write([]byte("PING\r\n")) // held by the partition
	require.NoError(t, err)
	p.Close() // must not wait for the heal
	p.Close()
	require.Error(t, c.ping(testTimeout))
	_, err = net.DialTimeout("tcp", p.Addr(), testTimeout)
	require.Error(t, err)
}

func TestLogs(t *testing.T) {
	t.Parallel()
	var l Logs
	log := l.Logger().With("k", "v").WithGroup("g")
	log.Warn("echomq: x: engine unavailable; retrying")
	log.Info("echomq: x: engine back")
	log.Warn("echomq: y: engine unavailable; retrying")
	require.Equal(t, 2, l.Count("engine unavailable; retrying"))
	require.Equal(t, 1, l.Count("engine back"))
	require.Zero(t, l.Count("stopped"))
	require.Len(t, l.Messages(), 3)
}
