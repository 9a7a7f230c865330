package wire

import (
	"context"
	"errors"

	"github.com/valkey-io/valkey-go"
)

// Tx is an optimistic transaction on a connection of its own: WATCH the keys
// a transaction reads, then MULTI … EXEC its writes, which the engine
// refuses (nil reply) if any watched key changed in between.
type Tx struct {
	d valkey.DedicatedClient
}

// ErrTxAborted: a watched key changed before EXEC; nothing was written.
var ErrTxAborted = errors.New("echomq: transaction aborted by a concurrent write")

// Dedicated runs fn with a transaction on a connection of its own, returned
// to the pool (after UNWATCH) when fn returns.
func (w *Conn) Dedicated(fn func(*Tx) error) error {
	return w.c.Dedicated(func(d valkey.DedicatedClient) error {
		tx := &Tx{d: d}
		defer d.Do(context.Background(), d.B().Unwatch().Build())
		return fn(tx)
	})
}

// Watch watches keys (all on one slot).
func (t *Tx) Watch(ctx context.Context, keys ...string) error {
	return convert(t.d.Do(ctx, t.d.B().Watch().Key(keys...).Build()).Error())
}

// Get reads a string, false when absent.
func (t *Tx) Get(ctx context.Context, key string) (string, bool, error) {
	s, err := t.d.Do(ctx, t.d.B().Get().Key(key).Build()).ToString()
	if isNil(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, convert(err)
	}
	return s, true, nil
}

// LastGeneratedID returns a stream's last generated entry id ("" when the
// stream is absent).
func (t *Tx) LastGeneratedID(ctx context.Context, key string) (string, error) {
	m, err := t.d.Do(ctx, t.d.B().XinfoStream().Key(key).Build()).AsMap()
	if err != nil {
		var se *ServerError
		if err = convert(err); errors.As(err, &se) && containsNoSuchKey(se.Message) {
			return "", nil
		}
		return "", err
	}
	if v, ok := m["last-generated-id"]; ok {
		return v.ToString()
	}
	return "", nil
}

// Op is one write of a transaction.
type Op struct {
	kind byte // 's' set, 'd' del, 'a' sadd, 'r' srem, 'x' xadd
	key  string
	args []string
}

// SetOp sets key to val.
func SetOp(key, val string) Op { return Op{kind: 's', key: key, args: []string{val}} }

// DelOp deletes key.
func DelOp(key string) Op { return Op{kind: 'd', key: key} }

// SAddOp adds member to the set at key.
func SAddOp(key, member string) Op { return Op{kind: 'a', key: key, args: []string{member}} }

// SRemOp removes member from the set at key.
func SRemOp(key, member string) Op { return Op{kind: 'r', key: key, args: []string{member}} }

// XAddOp appends an entry with an explicit id.
func XAddOp(key, id string, pairs []string) Op {
	return Op{kind: 'x', key: key, args: append([]string{id}, pairs...)}
}

// Exec runs ops between MULTI and EXEC. It returns [ErrTxAborted] when a
// watched key changed, and the first failing op's error otherwise.
func (t *Tx) Exec(ctx context.Context, ops []Op) error {
	cmds := make(valkey.Commands, 0, len(ops)+2)
	cmds = append(cmds, t.d.B().Multi().Build())
	for _, op := range ops {
		b := t.d.B()
		switch op.kind {
		case 's':
			cmds = append(cmds, b.Set().Key(op.key).Value(op.args[0]).Build())
		case 'd':
			cmds = append(cmds, b.Del().Key(op.key).Build())
		case 'a':
			cmds = append(cmds, b.Sadd().Key(op.key).Member(op.args[0]).Build())
		case 'r':
			cmds = append(cmds, b.Srem().Key(op.key).Member(op.args[0]).Build())
		case 'x':
			cmds = append(cmds, b.Arbitrary("XADD").Keys(op.key).Args(op.args...).Build())
		}
	}
	cmds = append(cmds, t.d.B().Exec().Build())
	res := t.d.DoMulti(ctx, cmds...)
	for _, r := range res[:len(res)-1] {
		if err := r.Error(); err != nil {
			return convert(err) // a command refused at queue time (EXECABORT follows)
		}
	}
	last := res[len(res)-1]
	if err := last.Error(); err != nil {
		if isNil(err) {
			return ErrTxAborted
		}
		return convert(err)
	}
	replies, err := last.ToArray()
	if err != nil {
		if isNil(err) {
			return ErrTxAborted
		}
		return convert(err)
	}
	for _, r := range replies {
		if err := r.Error(); err != nil {
			return convert(err)
		}
	}
	return nil
}

// SMembers returns the members of the set at key.
func (w *Conn) SMembers(ctx context.Context, key string) ([]string, error) {
	s, err := w.c.Do(ctx, w.c.B().Smembers().Key(key).Build()).AsStrSlice()
	return s, convert(err)
}

// MGet reads several strings on one slot; absent ones are reported false.
func (w *Conn) MGet(ctx context.Context, keys ...string) ([]string, []bool, error) {
	arr, err := w.c.Do(ctx, w.c.B().Mget().Key(keys...).Build()).ToArray()
	if err != nil {
		return nil, nil, convert(err)
	}
	vals, ok := make([]string, len(arr)), make([]bool, len(arr))
	for i := range arr {
		if arr[i].IsNil() {
			continue
		}
		if vals[i], err = arr[i].ToString(); err != nil {
			return nil, nil, convert(err)
		}
		ok[i] = true
	}
	return vals, ok, nil
}
