package retention_test

import "sync/atomic"

type atomicInt struct{ v atomic.Int64 }

func (a *atomicInt) set(n int64) { a.v.Store(n) }
func (a *atomicInt) get() int64  { return a.v.Load() }
