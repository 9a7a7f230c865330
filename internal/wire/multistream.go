package wire

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// PollReply is one key's share of a [Conn.Poll]: its newest entry id ("" for
// an empty or missing stream) and the entries read.
type PollReply struct {
	Top     string
	Entries []Entry
}

// Poll reads several streams in one pipelined round trip: for each key with
// a count above 0 its entries after its position (XRANGE (pos + COUNT n),
// or as consumer of group (XREADGROUP … STREAMS key pos, pos being ">" or an
// id of the consumer's pending list) when group is set; then, for every
// key whose count is not negative, the id of its newest entry (XREVRANGE
// + - COUNT 1); a negative count reads nothing for that key. The top is read
// after the entries, so a top equal to the last entry read means the read
// got everything stored: every entry appended later lies above it, which is
// what lets a reader merge several streams in exact entry-id order.
func (w *Conn) Poll(ctx context.Context, keys, positions []string, counts []int64, group, consumer string) ([]PollReply, error) {
	if len(keys) != len(positions) || len(keys) != len(counts) {
		return nil, errors.New("echomq: poll: keys, positions and counts differ in length")
	}
	cmds := make(valkey.Commands, 0, 2*len(keys))
	for i, k := range keys {
		if counts[i] > 0 {
			if group != "" {
				cmds = append(cmds, w.c.B().Xreadgroup().Group(group, consumer).Count(counts[i]).Streams().Key(k).Id(positions[i]).Build())
			} else {
				cmds = append(cmds, w.c.B().Xrange().Key(k).Start("("+positions[i]).End("+").Count(counts[i]).Build())
			}
		}
		if counts[i] >= 0 {
			cmds = append(cmds, w.c.B().Xrevrange().Key(k).End("+").Start("-").Count(1).Build())
		}
	}
	res := w.c.DoMulti(ctx, cmds...)
	out := make([]PollReply, len(keys))
	j := 0
	for i := range keys {
		if counts[i] > 0 {
			ents, err := decodePollEntries(res[j], group != "")
			if err != nil {
				return nil, err
			}
			out[i].Entries = ents
			j++
		}
		if counts[i] < 0 {
			continue
		}
		arr, err := res[j].ToArray()
		j++
		if err != nil {
			return nil, convert(err)
		}
		if len(arr) > 0 {
			top, err := decodeEntry(&arr[0])
			if err != nil {
				return nil, err
			}
			out[i].Top = top.ID
		}
	}
	return out, nil
}

func decodePollEntries(r valkey.ValkeyResult, group bool) ([]Entry, error) {
	msg, err := r.ToMessage()
	if isNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, convert(err)
	}
	if group {
		return decodeStreamsReply(msg)
	}
	arr, err := msg.ToArray()
	if err != nil {
		return nil, fmt.Errorf("echomq: decode poll entries: %w", err)
	}
	return decodeEntries(arr)
}

// XReadMulti blocks up to block for an entry of any key after its position
// and reports whether one arrived; the entries themselves are read again by
// [Conn.Poll], so this is only the wake-up of an idle merged reader.
func (w *Conn) XReadMulti(ctx context.Context, keys, positions []string, block time.Duration) (bool, error) {
	cmd := w.c.B().Xread().Count(1).Block(max(block.Milliseconds(), 1)).Streams().Key(keys...).Id(positions...).Build()
	msg, err := w.c.Do(withBlock(ctx, block), cmd).ToMessage()
	if isNil(err) {
		return false, nil
	}
	if err != nil {
		return false, convert(err)
	}
	return !msg.IsNil(), nil
}

//go:embed lua/scan.lua
var scanSrc string

// scanLua: KEYS one key of the slot to scan (it routes the script to that
// slot's node); ARGV cursor, pattern, count. One SCAN step.
var scanLua = NewScript(scanSrc)

// ScanStep runs one SCAN step with MATCH pattern on the node that serves
// anchor's slot and returns the next cursor ("0" when the walk is over) and
// the keys it found.
func (w *Conn) ScanStep(ctx context.Context, anchor, cursor, pattern string, count int64) (string, []string, error) {
	arr, err := scanLua.s.Exec(ctx, w.c, []string{anchor}, []string{cursor, pattern, strconv.FormatInt(count, 10)}).ToArray()
	if err != nil {
		return "", nil, convert(err)
	}
	if len(arr) != 2 {
		return "", nil, errors.New("echomq: decode scan: want [cursor, keys]")
	}
	next, err := arr[0].ToString()
	if err != nil {
		return "", nil, fmt.Errorf("echomq: decode scan cursor: %w", err)
	}
	keys, err := arr[1].AsStrSlice()
	if err != nil {
		return "", nil, fmt.Errorf("echomq: decode scan keys: %w", err)
	}
	return next, keys, nil
}
