package wire

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
)

//go:embed lua/group_count.lua
var countSrc string

// countLua: KEYS stream; ARGV from (XRANGE syntax), to, limit. Counts the
// entries of [from, to] without shipping them, at most limit of them, and
// replies {count, last id counted} ("" when none).
var countLua = NewScript(countSrc)

// XCount counts the entries of [from, to] (XRANGE syntax) up to limit and
// returns the count and the id of the last one counted, so a caller can
// count a long range in slices that each hold the engine briefly.
func (w *Conn) XCount(ctx context.Context, key, from, to string, limit int64) (int64, string, error) {
	r, err := w.Run(ctx, countLua, []string{key}, []string{from, to, strconv.FormatInt(limit, 10)})
	if err != nil {
		return 0, "", err
	}
	arr, ok := r.([]any)
	if !ok || len(arr) != 2 {
		return 0, "", fmt.Errorf("echomq: decode count reply: want [n, last], got %T", r)
	}
	n, _ := arr[0].(int64)
	last, _ := arr[1].(string)
	return n, last, nil
}

// XGroupSetID moves group's last-delivered id to id (XGROUP SETID).
func (w *Conn) XGroupSetID(ctx context.Context, key, group, id string) error {
	return convert(w.c.Do(ctx, w.c.B().XgroupSetid().Key(key).Group(group).Id(id).Build()).Error())
}
