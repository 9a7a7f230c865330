package wire

import (
	"context"
	"time"

	"github.com/valkey-io/valkey-go"
)

// CallObserver receives every call a [Conn] made through [Options.OnCall]:
// the command's name, the number of commands (a pipeline's length), how
// long it took and its first failure.
type CallObserver func(cmd string, n int, d time.Duration, err error)

// observed reports each call of a valkey.Client to an observer. It is
// installed only when one is set, so a connection without observer pays
// nothing for it.
type observed struct {
	valkey.Client
	on CallObserver
}

func cmdName(cmd valkey.Completed) string {
	if cs := cmd.Commands(); len(cs) > 0 {
		return cs[0]
	}
	return ""
}

func (o observed) Do(ctx context.Context, cmd valkey.Completed) valkey.ValkeyResult {
	name := cmdName(cmd) // read before Do: the client recycles the command
	start := time.Now()
	r := o.Client.Do(ctx, cmd)
	err := r.Error()
	if isNil(err) {
		err = nil
	}
	o.on(name, 1, time.Since(start), convert(err))
	return r
}

func (o observed) DoMulti(ctx context.Context, cmds ...valkey.Completed) []valkey.ValkeyResult {
	name := ""
	if len(cmds) > 0 {
		name = cmdName(cmds[0])
	}
	start := time.Now()
	rs := o.Client.DoMulti(ctx, cmds...)
	var first error
	for _, r := range rs {
		if err := r.Error(); err != nil && !isNil(err) {
			first = convert(err)
			break
		}
	}
	o.on(name, len(cmds), time.Since(start), first)
	return rs
}
