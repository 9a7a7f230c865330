package wire

import (
	"context"
	_ "embed"
	"strconv"
	"time"
)

//go:embed lua/pexpire_if.lua
var pexpireIfSrc string

// pexpireIfLua: KEYS key; ARGV value, ttl ms. Extends key's time-to-live
// only while it holds value (a lease its holder renews).
var pexpireIfLua = NewScript(pexpireIfSrc)

// PExpireIf sets key's time-to-live to ttl when key holds val and reports
// whether it did: false means the lease expired or another holder has it.
func (w *Conn) PExpireIf(ctx context.Context, key, val string, ttl time.Duration) (bool, error) {
	r, err := w.Run(ctx, pexpireIfLua, []string{key}, []string{val, strconv.FormatInt(ttl.Milliseconds(), 10)})
	return r == int64(1), err
}
