package sim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// engineCalls sums the calls of every command in the INFO commandstats of
// the Valkey/Redis server at engineURL (redis://[user:pass@]host:port[/db]):
// what every client of that server has sent since its statistics were last
// reset. It speaks RESP on a connection of its own, so the count includes
// its own INFO (one call each).
func engineCalls(ctx context.Context, engineURL string) (int64, error) {
	u, err := url.Parse(engineURL)
	if err != nil || u.Scheme != "redis" || u.Host == "" {
		return 0, fmt.Errorf("sim: --engine-stats %q: want redis://host:port", engineURL)
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	if pw, ok := u.User.Password(); ok {
		if err := command(conn, br, "AUTH", u.User.Username(), pw); err != nil {
			return 0, err
		}
	}
	if _, err := io.WriteString(conn, resp("INFO", "commandstats")); err != nil {
		return 0, err
	}
	head, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	if !strings.HasPrefix(head, "$") {
		return 0, fmt.Errorf("sim: INFO answered %q", strings.TrimSpace(head))
	}
	n, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil {
		return 0, err
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, err
	}
	return sumCalls(string(body)), nil
}

// sumCalls adds up the calls= of every cmdstat_ line of an INFO answer.
func sumCalls(info string) int64 {
	var total int64
	for line := range strings.Lines(info) {
		if !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		_, rest, ok := strings.Cut(line, ":calls=")
		if !ok {
			continue
		}
		v, _, _ := strings.Cut(strings.TrimSpace(rest), ",")
		if c, err := strconv.ParseInt(v, 10, 64); err == nil {
			total += c
		}
	}
	return total
}

// command sends one command and expects a simple +OK-style answer.
func command(conn net.Conn, br *bufio.Reader, args ...string) error {
	if _, err := io.WriteString(conn, resp(args...)); err != nil {
		return err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "-") {
		return fmt.Errorf("sim: %s: %s", args[0], strings.TrimSpace(line[1:]))
	}
	return nil
}

func resp(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}
