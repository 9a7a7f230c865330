package echomq

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// The fields a tagged event stores right after "id" (see [ReservedPrefix]).
const (
	posField  = "@pos"
	tagsField = "@tags"
)

// dcbKeys returns the keys of queue q every dcb script declares.
func dcbKeys(q string) wire.DCBKeys {
	return wire.DCBKeys{
		Prefix: keyspace.DCBPrefix(q), Pos: keyspace.DCBPosKey(q), Floor: keyspace.DCBFloorKey(q),
		Types: keyspace.DCBTypesKey(q), Cell: keyspace.EngineCellKey(q),
	}
}

// trimIndex names the tag index a trim of stream name of queue q keeps in
// step (docs/dcb.md, "Trims").
func trimIndex(q, name string) wire.TrimIndex {
	return wire.TrimIndex{Prefix: keyspace.DCBPrefix(q), Types: keyspace.DCBTypesKey(q), Floor: keyspace.DCBFloorKey(q), Name: name}
}

// tagged appends records as tagged events (AppendOpts.Tags) through the
// dcb append script: each gets the engine's next id of the queue (as the
// append script chooses them), the queue's next position and its index
// entries, all records and the idempotency key and expected top in one
// atomic step. The options were validated.
func (s *Stream) tagged(ctx context.Context, records []Fields, opts *AppendOpts) ([]ID, error) {
	c := s.c
	tags, joined, err := keyspace.Tags(opts.Tags)
	if err != nil {
		return nil, &ArgumentError{Name: "tags", Reason: err.Error()}
	}
	req := wire.DCBAppendReq{
		Keys: dcbKeys(s.queue), Expect: opts.expect(), WindowMs: c.cfg.DedupeWindow.Milliseconds(),
		MaxSkewMs: c.cfg.MaxSkew.Milliseconds(), LeadMs: scriptLead.Milliseconds(),
		Events: make([]wire.DCBEvent, len(records)),
	}
	if opts.Key != "" {
		req.IdemKey = keyspace.IdemKey(s.queue, s.name, opts.Key)
	}
	for i, f := range records {
		req.Events[i] = wire.DCBEvent{Stream: s.name, Tags: tags, Joined: joined, Fields: f}
	}
	rep, err := c.conn.DCBAppend(ctx, &req)
	if err != nil {
		return nil, err
	}
	c.eclock.observe(c.eclock.since(), rep.EngineUs)
	return taggedReply(c, opts, &rep, len(records))
}

// taggedReply turns a dcb append reply without a condition into receipts
// or the error Stream.Append gives for the same refusal.
func taggedReply(c *Client, opts *AppendOpts, rep *wire.DCBAppendReply, n int) ([]ID, error) {
	switch rep.Status {
	case wire.DCBOK:
		receipts := make([]string, len(rep.Appended))
		for i, a := range rep.Appended {
			receipts[i] = a.Receipt
		}
		c.astats.records.Add(int64(len(receipts)))
		return parseReceipts(receipts, n)
	case wire.DCBDup:
		return dupReceipts(rep.Stored, n, opts.Key)
	case wire.DCBTop:
		ce := &ConflictError{Expected: opts.ExpectTop}
		if rep.Top != "" {
			var err error
			if ce.TopEntry, err = ParseEntryID(rep.Top); err != nil {
				return nil, err
			}
			if snow, ok := ce.TopEntry.Snowflake(); ok {
				ce.Top = MustID(BrandEvent, snow)
			}
		}
		return nil, ce
	case wire.DCBSkew:
		return nil, c.dcbSkew(rep)
	}
	return nil, fmt.Errorf("echomq: unexpected dcb append reply %q", rep.Status)
}

// dcbSkew is the [*SkewError] of a dcb append refused because a target
// stream's top lies beyond Config.MaxSkew ahead of the engine's clock.
func (c *Client) dcbSkew(rep *wire.DCBAppendReply) error {
	return &SkewError{
		Instant: time.UnixMilli(rep.SkewMs).UTC(), Engine: time.UnixMicro(rep.EngineUs).UTC(),
		MaxSkew: c.cfg.MaxSkew, Top: true,
	}
}
