package wire

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/valkey-io/valkey-go"
)

//go:embed lua/stream_append_contended.lua
var streamAppendContendedSrc string

// streamAppendContendedLua is the lean append of plain records on a
// contended stream.
var streamAppendContendedLua = NewScript(streamAppendContendedSrc)

// StreamAppendContendedSource returns the source of the contended append
// script, for documentation and for tests.
func StreamAppendContendedSource() string { return streamAppendContendedSrc }

// AppendBack is the [ContendedReply] status of an append the contended
// script handed back, having written nothing: the caller runs the append
// script ([Conn.StreamAppend]) instead.
const AppendBack = "back"

// Why the contended script handed an append back ([ContendedReply.Why]).
const (
	BackEmpty = "empty" // the stream holds no entry
	BackSkew  = "skew"  // its top is more than the max skew ahead of the engine's clock
	BackAhead = "ahead" // its top is ahead of the engine's clock (the append script follows it)
	BackTail  = "tail"  // its last entry was deleted (XADD compares with the last generated id)
)

// ContendedReply is the contended script's answer.
type ContendedReply struct {
	Status   string   // AppendOK or AppendBack
	EngineUs int64    // the engine's clock (TIME) in Unix microseconds
	Top      string   // ok: the top entry id the ids were chosen above
	OwnTop   bool     // ok: the top is the id the engine last chose for this writer's node
	Why      string   // back: BackEmpty, BackSkew or BackTail
	Receipts []string // ok: one per record
}

// StreamAppendContended appends records to stream under ids the engine
// chooses above its top from the queue's engine id cell (the rule of the
// append script), with the receipt field first; it hands the append back
// (AppendBack, nothing written) when the stream is empty, its top lies more
// than maxSkewMs ahead of the engine's clock, or its last entry was deleted.
func (w *Conn) StreamAppendContended(ctx context.Context, stream, cell string, node int, maxSkewMs int64, records [][]string) (ContendedReply, error) {
	if len(records) == 0 {
		return ContendedReply{}, errors.New("echomq: contended append of no records")
	}
	n := 3
	for _, p := range records {
		n += 1 + len(p)
	}
	args := make([]string, 0, n)
	args = append(args, strconv.Itoa(node), itoa(maxSkewMs))
	if len(records) == 1 {
		// One record: its fields follow, no count (one argument and one
		// number conversion fewer on the engine).
		args = append(args, "1")
		args = append(args, records[0]...)
	} else {
		args = append(args, "n")
		for _, p := range records {
			args = append(args, strconv.Itoa(len(p)))
			args = append(args, p...)
		}
	}
	arr, err := streamAppendContendedLua.s.Exec(ctx, w.c, []string{stream, cell}, args).ToArray()
	if err != nil {
		return ContendedReply{}, convert(err)
	}
	return decodeAppendContended(arr, len(records))
}

func decodeAppendContended(arr []valkey.ValkeyMessage, n int) (ContendedReply, error) {
	if len(arr) < 4 {
		return ContendedReply{}, fmt.Errorf("echomq: decode contended append reply: %d elements", len(arr))
	}
	var rep ContendedReply
	var err error
	if rep.Status, err = arr[0].ToString(); err != nil {
		return rep, fmt.Errorf("echomq: decode contended append reply: %w", err)
	}
	sec, err1 := strconv.ParseInt(laneStr(arr[1]), 10, 64)
	usec, err2 := strconv.ParseInt(laneStr(arr[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return rep, fmt.Errorf("echomq: decode contended append reply: engine time %q %q", laneStr(arr[1]), laneStr(arr[2]))
	}
	rep.EngineUs = sec*1_000_000 + usec
	switch {
	case rep.Status == AppendOK && len(arr) == 5+n:
		rep.Top = laneStr(arr[3])
		rep.OwnTop = laneNum(arr[4]) == 1
		rep.Receipts = make([]string, n)
		for i := range rep.Receipts {
			rep.Receipts[i] = laneStr(arr[5+i])
		}
	case rep.Status == AppendBack && len(arr) == 4:
		rep.Why = laneStr(arr[3])
	default:
		return rep, fmt.Errorf("echomq: decode contended append reply: %q with %d elements for %d records", rep.Status, len(arr), n)
	}
	return rep, nil
}
