package echomqtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// This file holds a deliberately tiny RESP2 client used by the harness to
// probe the servers it starts (PING, INFO, CLUSTER INFO/NODES/KEYSLOT, ...).
// It is test infrastructure only: one command at a time, no pipelining, no
// RESP3, no pooling.

const (
	maxBulkLen   = 16 << 20 // largest bulk string accepted from a server
	maxArrayLen  = 1 << 20  // largest array accepted from a server
	maxRespDepth = 16       // deepest nesting of arrays accepted
)

// respError is an error reply ("-ERR ...") sent by the server.
type respError string

func (e respError) Error() string { return string(e) }

// respConn is a single RESP2 connection.
type respConn struct {
	conn    net.Conn
	r       *bufio.Reader
	w       *bufio.Writer
	timeout time.Duration
}

// dialRESP connects to addr. Every later command must complete within
// timeout.
func dialRESP(addr string, timeout time.Duration) (*respConn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	return &respConn{conn: c, r: bufio.NewReader(c), w: bufio.NewWriter(c), timeout: timeout}, nil
}

// Close closes the connection.
func (c *respConn) Close() error { return c.conn.Close() }

// Do sends one command and reads its reply. Replies are decoded as: simple
// and bulk strings -> string, null bulk/array -> nil, integers -> int64,
// arrays -> []any; an error reply at top level is returned as a respError
// error (nested error replies are kept as respError values).
func (c *respConn) Do(args ...string) (any, error) {
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	v, err := readReply(c.r, 0)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(respError); ok {
		return nil, e
	}
	return v, nil
}

// respDo runs one command on a fresh connection to addr.
func respDo(addr string, timeout time.Duration, args ...string) (any, error) {
	c, err := dialRESP(addr, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(args...)
}

// respString is respDo for commands answering a (simple or bulk) string.
func respString(addr string, timeout time.Duration, args ...string) (string, error) { //nolint:unparam // the tests pass their own timeouts
	v, err := respDo(addr, timeout, args...)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: unexpected reply %T (%v)", strings.Join(args, " "), v, v)
	}
	return s, nil
}

// respInt is respDo for commands answering an integer.
func respInt(addr string, timeout time.Duration, args ...string) (int64, error) {
	v, err := respDo(addr, timeout, args...)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("%s: unexpected reply %T (%v)", strings.Join(args, " "), v, v)
	}
	return n, nil
}

// parseInfo parses INFO / CLUSTER INFO output ("key:value" lines, "#"
// section headers) into a map.
func parseInfo(s string) map[string]string {
	m := make(map[string]string)
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

var errProtocol = errors.New("echomqtest: RESP protocol error")

// readLine reads one CRLF-terminated line (without the CRLF).
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: line too long", errProtocol)
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line not terminated by CRLF", errProtocol)
	}
	return line[:len(line)-2], nil
}

// readReply decodes one RESP2 reply.
func readReply(r *bufio.Reader, depth int) (any, error) {
	if depth > maxRespDepth {
		return nil, fmt.Errorf("%w: nesting too deep", errProtocol)
	}
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	if len(line) == 0 {
		return nil, fmt.Errorf("%w: empty line", errProtocol)
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return string(body), nil
	case '-':
		return respError(body), nil
	case ':':
		n, err := strconv.ParseInt(string(body), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: bad integer %q", errProtocol, body)
		}
		return n, nil
	case '$':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 || n > maxBulkLen {
			return nil, fmt.Errorf("%w: bad bulk length %q", errProtocol, body)
		}
		if n == -1 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		if !bytes.HasSuffix(buf, []byte("\r\n")) {
			return nil, fmt.Errorf("%w: bulk string not terminated by CRLF", errProtocol)
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(string(body))
		if err != nil || n < -1 || n > maxArrayLen {
			return nil, fmt.Errorf("%w: bad array length %q", errProtocol, body)
		}
		if n == -1 {
			return nil, nil
		}
		arr := make([]any, 0, min(n, 1024))
		for range n {
			v, err := readReply(r, depth+1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		return arr, nil
	default:
		return nil, fmt.Errorf("%w: unknown type byte %q", errProtocol, line[0])
	}
}

// Atomic runs cmds on addr inside one MULTI/EXEC, so the engine executes
// them back to back with nothing in between (for example TIME and a read of
// a stream's top, to measure how far ahead of the engine's clock it is),
// and returns EXEC's replies.
func Atomic(addr string, cmds ...[]string) ([]any, error) {
	c, err := dialRESP(addr, probeTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if _, err := c.Do("MULTI"); err != nil {
		return nil, err
	}
	for _, cmd := range cmds {
		if _, err := c.Do(cmd...); err != nil {
			return nil, err
		}
	}
	v, err := c.Do("EXEC")
	if err != nil {
		return nil, err
	}
	out, _ := v.([]any)
	return out, nil
}
