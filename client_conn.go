package echomq

import (
	"context"

	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/wire"
)

func init() {
	clientconn.Of = func(client any) *wire.Conn { return client.(*Client).conn }
	clientconn.Closed = func(client any) bool { return client.(*Client).isClosed() }
	clientconn.CheckAppend = func(client any, key string, f []string) error {
		c := client.(*Client)
		if err := c.checkFields(f); err != nil {
			return err
		}
		return c.budgets.check(key)
	}
	clientconn.AppendTiming = func(client any) (int64, int64, int64) {
		c := client.(*Client)
		return c.cfg.MaxSkew.Milliseconds(), scriptLead.Milliseconds(), c.cfg.DedupeWindow.Milliseconds()
	}
	clientconn.DCBAppend = func(ctx context.Context, client any, queue string, g wire.DCBGroup) (wire.DCBResult, int64, error) {
		return client.(*Client).dcbAppend(ctx, queue, g)
	}
	clientconn.DecodeEvent = func(e wire.Entry) (any, error) { return decodeEvent(e) }
	clientconn.MintAbove = func(ctx context.Context, client any, queue string, floor any) (any, error) {
		c := client.(*Client)
		id, err := c.mint(ctx, queue, BrandEvent)
		if err != nil {
			return ID{}, err
		}
		return c.above(ctx, queue, floor.(EntryID), id)
	}
}
