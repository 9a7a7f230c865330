// Package contract holds no code: its test proves that every long-running
// service of the module keeps the one service contract documented in the
// root package ("Services"): Run blocks until its context ends or Stop is
// called and then returns nil; Start runs the same in a goroutine the
// service owns; a second Run or Start while it runs returns
// echomq.ErrRunning; Stop waits for the graceful stop and returns the
// run's error; Stopped is closed once the run has ended.
package contract
