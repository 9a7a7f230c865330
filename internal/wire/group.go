package wire

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// XGroupCreate runs XGROUP CREATE key group start MKSTREAM and reports
// whether it created the group; an existing group (BUSYGROUP) is not an
// error and returns false.
func (w *Conn) XGroupCreate(ctx context.Context, key, group, start string) (bool, error) {
	cmd := w.c.B().XgroupCreate().Key(key).Group(group).Id(start).Mkstream().Build()
	err := convert(w.c.Do(ctx, cmd).Error())
	if errors.Is(err, ErrGroupExists) {
		return false, nil
	}
	if errors.Is(err, ErrEngineFull) && w.groupExists(ctx, key, group) {
		// A full engine refuses XGROUP CREATE before it looks for the
		// group; a consumer (re)starting on an existing group must still
		// run, since consuming and acknowledging is what frees memory.
		return false, nil
	}
	return err == nil, err
}

// groupExists reports whether key has the group; a failure says no.
func (w *Conn) groupExists(ctx context.Context, key, group string) bool {
	rows, err := w.XInfoGroups(ctx, key)
	if err != nil {
		return false
	}
	for _, r := range rows {
		if r.Name == group {
			return true
		}
	}
	return false
}

// XReadGroup runs XREADGROUP GROUP group consumer COUNT count [BLOCK block]
// STREAMS key id. A block below zero issues no BLOCK; a blocking read goes to
// a connection of its own (valkey-go's blocking pool), so it never stalls
// the shared pipeline. A timed-out block returns nil. Pending entries whose
// data was trimmed come back with nil Fields.
func (w *Conn) XReadGroup(ctx context.Context, key, group, consumer, id string, count int64, block time.Duration) ([]Entry, error) {
	var cmd valkey.Completed
	if block >= 0 {
		ms := max(block.Milliseconds(), 1) // BLOCK 0 would wait forever
		cmd = w.c.B().Xreadgroup().Group(group, consumer).Count(count).Block(ms).Streams().Key(key).Id(id).Build()
	} else {
		cmd = w.c.B().Xreadgroup().Group(group, consumer).Count(count).Streams().Key(key).Id(id).Build()
	}
	msg, err := w.c.Do(withBlock(ctx, max(block, time.Millisecond)), cmd).ToMessage()
	if isNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, convert(err)
	}
	return decodeStreamsReply(msg)
}

// AutoClaim is the reply of XAUTOCLAIM: the cursor to continue from ("0-0"
// when the scan wrapped), the entries now owned by the claimer, and the ids
// that were pending but whose data is gone (the engine already dropped them
// from the pending list).
type AutoClaim struct {
	Next    string
	Entries []Entry
	Deleted []string
}

// XAutoClaim runs XAUTOCLAIM key group consumer min-idle start COUNT count.
func (w *Conn) XAutoClaim(ctx context.Context, key, group, consumer string, minIdle time.Duration, start string, count int64) (AutoClaim, error) {
	cmd := w.c.B().Xautoclaim().Key(key).Group(group).Consumer(consumer).
		MinIdleTime(strconv.FormatInt(minIdle.Milliseconds(), 10)).Start(start).Count(count).Build()
	arr, err := w.c.Do(ctx, cmd).ToArray()
	if err != nil {
		return AutoClaim{}, convert(err)
	}
	return decodeAutoClaim(arr)
}

// decodeAutoClaim decodes an XAUTOCLAIM reply: [cursor, entries, deleted].
func decodeAutoClaim(arr []valkey.ValkeyMessage) (AutoClaim, error) {
	if len(arr) < 2 {
		return AutoClaim{}, fmt.Errorf("echomq: decode xautoclaim: %d elements", len(arr))
	}
	var out AutoClaim
	var err error
	if out.Next, err = arr[0].ToString(); err != nil {
		return AutoClaim{}, fmt.Errorf("echomq: decode xautoclaim cursor: %w", err)
	}
	entries, err := arr[1].ToArray()
	if err != nil {
		return AutoClaim{}, fmt.Errorf("echomq: decode xautoclaim entries: %w", err)
	}
	if out.Entries, err = decodeEntries(entries); err != nil {
		return AutoClaim{}, err
	}
	if len(arr) > 2 && !arr[2].IsNil() { // Redis >= 7.0 lists the deleted ids
		if out.Deleted, err = arr[2].AsStrSlice(); err != nil {
			return AutoClaim{}, fmt.Errorf("echomq: decode xautoclaim deleted: %w", err)
		}
	}
	return out, nil
}

// XAck acknowledges ids and returns how many were pending.
func (w *Conn) XAck(ctx context.Context, key, group string, ids ...string) (int64, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := w.c.Do(ctx, w.c.B().Xack().Key(key).Group(group).Id(ids...).Build()).AsInt64()
	return n, convert(err)
}

// XClaim runs XCLAIM key group consumer min-idle ids… [JUSTID] and returns
// the ids it claimed. JUSTID leaves the delivery counts alone.
func (w *Conn) XClaim(ctx context.Context, key, group, consumer string, minIdle time.Duration, ids []string, justID bool) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := append([]string{group, consumer, strconv.FormatInt(minIdle.Milliseconds(), 10)}, ids...)
	if justID {
		args = append(args, "JUSTID")
	}
	arr, err := w.c.Do(ctx, w.c.B().Arbitrary("XCLAIM").Keys(key).Args(args...).Build()).ToArray()
	if err != nil {
		return nil, convert(err)
	}
	out := make([]string, 0, len(arr))
	for i := range arr {
		if justID {
			s, err := arr[i].ToString()
			if err != nil {
				return nil, fmt.Errorf("echomq: decode xclaim: %w", err)
			}
			out = append(out, s)
			continue
		}
		e, err := decodeEntry(&arr[i])
		if err != nil {
			return nil, err
		}
		out = append(out, e.ID)
	}
	return out, nil
}
