package wire

import (
	"context"
	"time"
)

// SetPX stores val at key with a time-to-live.
func (w *Conn) SetPX(ctx context.Context, key, val string, ttl time.Duration) error {
	return convert(w.c.Do(ctx, w.c.B().Set().Key(key).Value(val).Px(ttl).Build()).Error())
}

// delIfLua: KEYS key; ARGV value. Deletes key only while it holds value.
var delIfLua = NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// DelIf deletes key when it holds val (a lease its holder gives back) and
// reports whether it did.
func (w *Conn) DelIf(ctx context.Context, key, val string) (bool, error) {
	r, err := w.Run(ctx, delIfLua, []string{key}, []string{val})
	return r == int64(1), err
}
