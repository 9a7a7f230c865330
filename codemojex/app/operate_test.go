package app

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/echomqtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// operate is an engine on a queue of its own and the operator's command
// line pointed at it.
type operate struct {
	t     *testing.T
	e     *codemojex.Engine
	url   string
	queue string
	tr    strings.Builder
	ids   map[string]string // id → its stable name in the transcript
	count map[string]int
}

func newOperate(t *testing.T) *operate {
	t.Helper()
	url := echomqtest.Shared(t).URL()
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: url, Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	q := echomqtest.Queue(t)
	e, err := codemojex.New(client, &codemojex.Config{Queue: q, Logger: quiet})
	require.NoError(t, err)
	return &operate{t: t, e: e, url: url, queue: q, ids: map[string]string{}, count: map[string]int{}}
}

// run runs the command line with --url and --queue added at its end,
// unless it has its own.
func (o *operate) run(args ...string) (stdout, stderr string, code int) {
	var out, errw bytes.Buffer
	if !slices.Contains(args, "--url") {
		args = append(args, "--url", o.url)
	}
	if !slices.Contains(args, "--queue") {
		args = append(args, "--queue", o.queue)
	}
	code = Execute(context.Background(), args, &out, &errw)
	return out.String(), errw.String(), code
}

var idRE = regexp.MustCompile(`\b(ROM|GAM|PLR)[0-9A-Za-z]{11}\b`)

// mask names each id by its brand and the order it first appeared in.
func (o *operate) mask(s string) string {
	return idRE.ReplaceAllStringFunc(s, func(id string) string {
		if n, ok := o.ids[id]; ok {
			return n
		} else if strings.HasPrefix(id[3:], "0000000000") {
			return id // a made-up id, the same every run
		}
		o.count[id[:3]]++
		o.ids[id] = id[:3] + strconv.Itoa(o.count[id[:3]])
		return o.ids[id]
	})
}

// step runs a command line and records it in the transcript.
func (o *operate) step(args ...string) string {
	o.t.Helper()
	out, errs, code := o.run(args...)
	shown := make([]string, len(args))
	for i, a := range args {
		if shown[i] = a; strings.ContainsAny(a, " \"'") {
			shown[i] = strconv.Quote(a)
		}
	}
	fmt.Fprintf(&o.tr, "$ codemojex %s\n%s", o.mask(strings.Join(shown, " ")), o.mask(out))
	for line := range strings.Lines(errs) {
		fmt.Fprintf(&o.tr, "[stderr] %s", o.mask(line))
	}
	fmt.Fprintf(&o.tr, "[exit %d]\n\n", code)
	return out
}

func (o *operate) golden(name string) {
	o.t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(o.t, os.WriteFile(path, []byte(o.tr.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(o.t, err)
	require.Equal(o.t, string(want), o.tr.String())
}

// The operator's commands on a real engine: create and list rooms, grant,
// show a player, close a running game; one line per result.
func TestOperate(t *testing.T) {
	t.Parallel()
	o := newOperate(t)
	ctx := t.Context()
	o.step("room", "list")
	o.step("room", "create", "--name", "Vault", "--set", "food", "--mode", "blind", "--duration", "2h", "--prize", "500", "--fee", "2", "--free", "--cells", "18")
	o.step("room", "create", "--name", "Animal Farm", "--prize", "300")
	o.step("room", "list")
	rooms, err := o.e.Rooms(ctx)
	require.NoError(t, err)
	require.Len(t, rooms, 2)
	require.Equal(t, "Vault", rooms[0].Name)
	require.True(t, rooms[0].Free)
	require.Equal(t, int64(500), rooms[0].Prize)

	p, _, err := o.e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: "alice"})
	require.NoError(t, err)
	o.mask(p.ID)
	o.step("player", "show", p.ID)
	o.step("grant", p.ID, "--currency", "keys", "--amount", "50")
	o.step("grant", p.ID, "--currency", "diamonds", "--amount", "7")
	o.step("grant", "alice", "--amount", "1") // a name, as the operator pages take one
	o.step("player", "show", "Alice")
	require.Equal(t, codemojex.Wallet{Keys: 51, Diamonds: 7}, o.wallet(p.ID))
	rows, err := o.e.Ledger(ctx, p.ID, 10)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	require.Equal(t, codemojex.ReasonGrant, rows[0].Reason)

	joined, err := o.e.Join(ctx, p.ID, rooms[1].ID)
	require.NoError(t, err)
	o.mask(joined.Game)
	o.step("room", "list")
	o.step("room", "close", joined.Game)
	o.step("room", "close", joined.Game)
	o.step("room", "list")
	o.step("player", "show", "PLR0000000000x")
	o.step("grant", "PLR0000000000x", "--amount", "5")
	o.step("grant", "nobody", "--amount", "5")
	o.step("room", "close", "GAM0000000000x")
	g, err := o.e.Game(ctx, joined.Game)
	require.NoError(t, err)
	require.Equal(t, codemojex.StatusSettled, g.Status)
	require.Equal(t, codemojex.ReasonOperator, g.Reason)
	o.golden("operate")
}

func (o *operate) wallet(p string) codemojex.Wallet {
	o.t.Helper()
	w, err := o.e.Wallet(context.Background(), p)
	require.NoError(o.t, err)
	return w
}

// A bad command line is one line on stderr and exit 2; nothing is printed
// and nothing changes.
func TestOperateBadArguments(t *testing.T) {
	t.Parallel()
	o := newOperate(t)
	ctx := t.Context()
	room, err := o.e.CreateRoom(ctx, codemojex.RoomSpec{Name: "Animal Farm"})
	require.NoError(t, err)
	p, _, err := o.e.SignIn(ctx, codemojex.Identity{Provider: "dev", Subject: "alice"})
	require.NoError(t, err)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"room"}, "codemojex room needs a command: create, list, close"},
		{[]string{"room", "nope"}, `unknown command "nope"`},
		{[]string{"room", "create"}, "--name is required"},
		{[]string{"room", "create", "--name", " "}, "--name is required"},
		{[]string{"room", "create", "--name", "X", "extra"}, `unknown command "extra"`},
		{[]string{"room", "create", "--name", "X", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"room", "create", "--name", "X", "--mode", "loud"}, `--mode "loud" is not classic or blind`},
		{[]string{"room", "create", "--name", "X", "--fee", "abc"}, `invalid argument "abc" for "--fee"`},
		{[]string{"room", "create", "--name", "X", "--fee", "5000"}, "invalid fee: must be 1..1000"},
		{[]string{"room", "create", "--name", "X", "--prize", "-1"}, "invalid prize: must be 0..1000000000"},
		{[]string{"room", "create", "--name", "X", "--set", "nope"}, `invalid set: "nope" is not an emoji set`},
		{[]string{"room", "create", "--name", "X", "--duration", "soon"}, `invalid argument "soon" for "--duration"`},
		{[]string{"room", "create", "--name", "X", "--duration", "0s"}, "--duration 0s is too short: a game runs 1s to 720h"},
		{[]string{"room", "create", "--name", "X", "--duration", "1000h"}, "invalid duration: must be 1s to 720h"},
		{[]string{"room", "create", "--name", "X", "--cells", "3"}, "invalid cells"},
		{[]string{"room", "create", "--name", strings.Repeat("x", 65)}, "invalid name"},
		{[]string{"room", "create", "--name", "X", "--sets", "/nonexistent/dir/[x"}, "--sets"},
		{[]string{"room", "create", "--name", "X", "--queue", "bad name"}, "--queue"},
		{[]string{"room", "list", "extra"}, `unknown command "extra"`},
		{[]string{"room", "close"}, "codemojex room close takes one GAME, got 0 arguments"},
		{[]string{"room", "close", "a", "b"}, "takes one GAME, got 2 arguments"},
		{[]string{"room", "close", "bogus"}, `GAME "bogus" is not a game id (GAM…)`},
		{[]string{"room", "close", room.ID}, "is not a game id"},
		{[]string{"grant"}, "codemojex grant takes one PLAYER (an id or a name), got 0 arguments"},
		{[]string{"grant", "PLRbogus", "--amount", "5"}, `PLAYER "PLRbogus" is not a player id (PLR…)`},
		{[]string{"grant", p.ID}, "--amount must be 1..1000000000"},
		{[]string{"grant", p.ID, "--amount", "0"}, "--amount must be 1..1000000000"},
		{[]string{"grant", p.ID, "--amount", "-5"}, "--amount must be 1..1000000000"},
		{[]string{"grant", p.ID, "--amount", "1000000001"}, "--amount must be 1..1000000000"},
		{[]string{"grant", p.ID, "--amount", "five"}, `invalid argument "five" for "--amount"`},
		{[]string{"grant", p.ID, "--amount", "5", "--currency", "gold"}, `--currency "gold" is not keys, clips or diamonds`},
		{[]string{"player"}, "codemojex player needs a command: show"},
		{[]string{"player", "show"}, "takes one PLAYER (an id or a name), got 0 arguments"},
		{[]string{"player", "show", "PLR"}, "is not a player id"},
		{[]string{"player", "show", p.ID, "--bogus"}, "unknown flag: --bogus"},
		{[]string{"room", "list", "--url", ""}, "--url or EMQ_URL is required"},
		{[]string{"grant", p.ID, "--amount", "5", "--url", ""}, "--url or EMQ_URL is required"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			out, errs, code := o.run(tc.args...)
			require.Equal(t, 2, code, errs)
			require.Empty(t, out)
			require.True(t, strings.HasPrefix(errs, "codemojex: "), errs)
			require.Contains(t, errs, tc.want)
			require.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
		})
	}
	t.Cleanup(func() {
		rooms, err := o.e.Rooms(context.Background())
		require.NoError(t, err)
		require.Len(t, rooms, 1)
		require.Equal(t, codemojex.Wallet{}, o.wallet(p.ID))
		evs, err := o.e.Stream(codemojex.StreamLedger).Read(context.Background(), echomq.All, nil)
		require.NoError(t, err)
		require.Empty(t, evs)
	})
}

// Without --url or EMQ_URL the commands refuse: a separate process cannot
// see the embedded engine of a running server.
func TestOperateNeedsURL(t *testing.T) {
	t.Setenv("EMQ_URL", "")
	for _, args := range [][]string{
		{"room", "list"},
		{"room", "create", "--name", "X"},
		{"room", "close", "GAM0000000000x"},
		{"grant", "PLR0000000000x", "--amount", "5"},
		{"player", "show", "PLR0000000000x"},
	} {
		var out, errw bytes.Buffer
		require.Equal(t, 2, Execute(context.Background(), args, &out, &errw), "%v", args)
		require.Empty(t, out.String())
		require.Equal(t, "codemojex: --url or EMQ_URL is required: the embedded engine lives inside its server process, "+
			"so operate that server at its operator pages (http://ADDR/op/) instead\n", errw.String())
	}
}

// serve mounts the operator pages at /op/ and names them in its banner.
func TestServeOperatorPages(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	var banner bytes.Buffer
	go func() {
		served <- Serve(ctx, &ServeConfig{
			Addr: "127.0.0.1:0", URL: echomqtest.Shared(t).URL(), Queue: echomqtest.Queue(t),
			OperatorToken: "op", Workers: 1, Logger: quiet, Out: &banner, Ready: func(u string) { ready <- u },
		})
	}()
	base := serving(t, ready, served)
	require.Contains(t, banner.String(), "operator pages: "+base+"/op/")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(base + "/op/rooms")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/op/signin?next=%2Fop%2Frooms", resp.Header.Get("Location"))
	resp, err = noRedirect.PostForm(base+"/op/signin", url.Values{"token": {"op"}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Len(t, resp.Cookies(), 1)
	noRedirect.CloseIdleConnections()
	cancel()
	require.NoError(t, echomqtest.Recv(t, served, 30*time.Second, "the server to stop"))
}
