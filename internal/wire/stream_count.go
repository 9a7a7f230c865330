package wire

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
)

//go:embed lua/stream_count_after.lua
var countAfterSrc string

// countAfterLua: KEYS stream; ARGV entry id ("" for none), cap. Counts the
// entries strictly above the id, reading at most cap entries on each side
// of it inside the engine: the answer is {count, 1} when exact, {cap, 0}
// when both sides hold cap entries or more. The length and both ends
// answer the cheap cases (nothing above, everything above) without a scan,
// and the smaller side is counted when one is small, so it holds after
// trims and deletions, where the engine's own group lag is NULL.
var countAfterLua = NewScript(countAfterSrc)

// CountAfter counts the entries of key above the entry id after ("" counts
// them all), reading at most limit entries on each side inside the engine;
// exact is false when the count is a lower bound (limit).
func (w *Conn) CountAfter(ctx context.Context, key, after string, limit int64) (n int64, exact bool, err error) {
	v, err := w.Run(ctx, countAfterLua, []string{key}, []string{after, strconv.FormatInt(limit, 10)})
	if err != nil {
		return 0, false, err
	}
	return decodeCount(v)
}

func decodeCount(v any) (int64, bool, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		return 0, false, fmt.Errorf("echomq: decode count reply: %T %v", v, v)
	}
	n, ok1 := arr[0].(int64)
	e, ok2 := arr[1].(int64)
	if !ok1 || !ok2 {
		return 0, false, fmt.Errorf("echomq: decode count reply: %v", arr)
	}
	return n, e == 1, nil
}
