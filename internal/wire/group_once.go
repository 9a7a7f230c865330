package wire

import (
	"context"
	_ "embed"
	"time"
)

// SetPX stores val at key with a time-to-live.
func (w *Conn) SetPX(ctx context.Context, key, val string, ttl time.Duration) error {
	return convert(w.c.Do(ctx, w.c.B().Set().Key(key).Value(val).Px(ttl).Build()).Error())
}

//go:embed lua/del_if.lua
var delIfSrc string

// delIfLua: KEYS key; ARGV value. Deletes key only while it holds value.
var delIfLua = NewScript(delIfSrc)

// DelIf deletes key when it holds val (a lease its holder gives back) and
// reports whether it did.
func (w *Conn) DelIf(ctx context.Context, key, val string) (bool, error) {
	r, err := w.Run(ctx, delIfLua, []string{key}, []string{val})
	return r == int64(1), err
}
