package wire

import (
	"context"
	_ "embed"
	"strconv"
)

// Read is one record a transaction read: its key and what it held.
type Read struct {
	Key     string
	Present bool
	Value   string
}

// Op is one buffered write of a transaction.
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

// XAddOp appends an entry with an explicit entry id, the receipt first.
func XAddOp(key, entryID, receipt string, pairs []string) Op {
	args := make([]string, 0, 3+len(pairs))
	args = append(args, entryID, "id", receipt)
	return Op{kind: 'x', key: key, args: append(args, pairs...)}
}

// XAddTaggedOp appends a tagged event (package dcb) of stream name, whose
// queue's keys begin with prefix: the commit gives it the queue's next
// position and indexes it under each of tags (canonical; joined as the
// entry stores them), as the dcb append script does.
func XAddTaggedOp(key, prefix, name, entryID, receipt string, tags []string, joined string, pairs []string) Op {
	args := make([]string, 0, 6+len(tags)+len(pairs))
	args = append(args, entryID, receipt, joined, prefix, name, strconv.Itoa(len(tags)))
	args = append(args, tags...)
	return Op{kind: 'T', key: key, args: append(args, pairs...)}
}

//go:embed lua/tx_commit.lua
var commitScriptSrc string

// commitScript checks, then writes. Check: every read key still holds what
// the transaction read (present with the same bytes, or still absent), and
// every entry id to append is above its stream's last generated id. Only
// when all hold does it write; so a commit is all or nothing, and a stream
// append can never be refused halfway.
//
// KEYS: the read keys, then one key per op. ARGV: nreads, then per read
// (present "1"/"0", value), then per op (kind, nargs, args…).
var commitScript = NewScript(commitScriptSrc)

// Commit writes ops in one script if every read still holds and every
// append is above its stream's top; it reports false (nothing written) on
// a conflict.
func (w *Conn) Commit(ctx context.Context, reads []Read, ops []Op) (bool, error) {
	keys := make([]string, 0, len(reads)+len(ops))
	args := make([]string, 0, 1+2*len(reads)+4*len(ops))
	args = append(args, strconv.Itoa(len(reads)))
	for _, r := range reads {
		keys = append(keys, r.Key)
		if r.Present {
			args = append(args, "1", r.Value)
		} else {
			args = append(args, "0", "")
		}
	}
	for _, op := range ops {
		keys = append(keys, op.key)
		args = append(args, string(op.kind), strconv.Itoa(len(op.args)))
		args = append(args, op.args...)
	}
	res, err := w.Run(ctx, commitScript, keys, args)
	if err != nil {
		return false, err
	}
	return res == int64(1), nil
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
