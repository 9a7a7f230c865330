package wire

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/valkey-io/valkey-go"
)

// pinned is a valkey.Client whose Do and DoMulti go on one dedicated
// connection: WAIT and WAITAOF count the writes of the connection they run
// on, so a durable write and its wait must share one. The other methods are
// the parent client's (nothing on a pinned Conn uses them).
type pinned struct {
	valkey.Client
	dc valkey.DedicatedClient
}

func (p pinned) Do(ctx context.Context, cmd valkey.Completed) valkey.ValkeyResult {
	return p.dc.Do(ctx, cmd)
}

func (p pinned) DoMulti(ctx context.Context, cmds ...valkey.Completed) []valkey.ValkeyResult {
	return p.dc.DoMulti(ctx, cmds...)
}

// Pin runs fn with a Conn whose commands all go on one connection of the
// engine, held for fn alone (in a cluster, bound to the slot of its first
// keyed command). [Conn.WaitReplicas] on it then covers what fn wrote.
func (w *Conn) Pin(ctx context.Context, fn func(p *Conn) error) error {
	t, _ := w.c.(timed)
	raw := w.c
	if t.Client != nil {
		raw = t.Client
	}
	// fn's errors are already ours (each Conn method converts its own).
	return raw.Dedicated(func(dc valkey.DedicatedClient) error {
		return fn(&Conn{c: timed{Client: pinned{Client: raw, dc: dc}, d: t.d}, wm: w.wm})
	})
}

// Wait commands an engine may have.
const (
	waitUnknown int32 = iota
	waitAOF           // the engine has WAITAOF (Redis and Valkey 7.2 and later)
	waitOnly          // it has WAIT alone
)

// Ack is what a wait for replicas got.
type Ack struct {
	// Cmd is the command that waited: "WAIT" or "WAITAOF".
	Cmd string
	// Replicas is how many replicas acknowledged (WAIT: received the
	// write; WAITAOF: wrote it to their append-only file).
	Replicas int
}

// WaitReplicas waits up to timeout (in the engine) until n replicas have
// every write of this connection, which must be pinned ([Conn.Pin]). With
// fsync and an engine that has WAITAOF, it waits for their append-only
// files with WAITAOF 0 n timeout; otherwise with
// WAIT (the replicas' memory). The Ack's Cmd says which was used.
func (w *Conn) WaitReplicas(ctx context.Context, n int, timeout time.Duration, fsync bool) (Ack, error) {
	ms := max(timeout.Milliseconds(), 1)
	bctx := withBlock(ctx, timeout)
	if fsync && w.wm.Load() != waitOnly {
		arr, err := w.c.Do(bctx, w.c.B().Waitaof().Numlocal(0).Numreplicas(int64(n)).Timeout(ms).Build()).ToArray()
		if err == nil {
			if len(arr) != 2 {
				return Ack{}, fmt.Errorf("echomq: decode WAITAOF reply: %d elements", len(arr))
			}
			w.wm.Store(waitAOF)
			r, _ := arr[1].AsInt64()
			return Ack{Cmd: "WAITAOF", Replicas: int(r)}, nil
		}
		if !unknownCommand(err) {
			return Ack{Cmd: "WAITAOF"}, convert(err)
		}
		w.wm.Store(waitOnly) // tried once: this engine has WAIT alone
	}
	r, err := w.c.Do(bctx, w.c.B().Wait().Numreplicas(int64(n)).Timeout(ms).Build()).AsInt64()
	if err != nil {
		return Ack{Cmd: "WAIT"}, convert(err)
	}
	return Ack{Cmd: "WAIT", Replicas: int(r)}, nil
}

// unknownCommand reports an engine's refusal of a command it does not have.
func unknownCommand(err error) bool {
	ve, ok := valkey.IsValkeyErr(err)
	return ok && strings.Contains(strings.ToLower(ve.Error()), "unknown command")
}
