package echomq

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq/groupcommit"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// The fields a tagged event stores right after "id" (see reservedPrefix).
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

// taggedFlights is how many dcb append calls of one queue a client keeps
// in flight; appends that arrive meanwhile share the next call (a group
// commit): the script's fixed cost is spread over them.
const taggedFlights = 2

// dcbResult is one group's outcome with the engine's clock of its call.
type dcbResult struct {
	res      wire.DCBResult
	engineUs int64
}

// dcbAppend appends one group (events, maybe a condition) of queue q
// through the queue's group committer: concurrent groups share one call of
// the dcb append script, each decided in order on its own condition.
func (c *Client) dcbAppend(ctx context.Context, q string, g wire.DCBGroup) (wire.DCBResult, int64, error) {
	v, ok := c.tagged.Load(q)
	if !ok {
		keys := dcbKeys(q)
		v, _ = c.tagged.LoadOrStore(q, groupcommit.New(groupcommit.Config[wire.DCBGroup, dcbResult]{
			Flights: taggedFlights,
			Run: func(ctx context.Context, gs []wire.DCBGroup) ([]dcbResult, error) {
				rep, err := c.conn.DCBAppend(ctx, &wire.DCBAppendReq{
					Keys: keys, MaxSkewMs: c.cfg.MaxSkew.Milliseconds(), LeadMs: scriptLead.Milliseconds(), Groups: gs,
					ProposedMs: c.propose(ctx, q, gs),
				})
				if err != nil {
					return nil, err
				}
				c.eclock.observe(c.eclock.since(), rep.EngineUs)
				out := make([]dcbResult, len(rep.Results))
				for i, r := range rep.Results {
					out[i] = dcbResult{r, rep.EngineUs}
				}
				return out, nil
			},
		}))
	}
	r, err := v.(*groupcommit.Committer[wire.DCBGroup, dcbResult]).Do(ctx, g)
	return r.res, r.engineUs, err
}

// propose mints the id of every event of gs, in order, with the client's
// minter of queue q (as a plain append's), and returns the latest one's
// instant: the dcb append script keeps each as the event's id when it lies
// above the stream's top, so that the engine neither chooses ids nor
// computes receipts on the common path. When the client cannot mint (its
// node lease lapsed, say) nothing is proposed and the script chooses every
// id under the engine's node, as before: 0.
func (c *Client) propose(ctx context.Context, q string, gs []wire.DCBGroup) int64 {
	var last ID
	for gi := range gs {
		evs := gs[gi].Events
		for i := range evs {
			id, err := c.mint(ctx, q, BrandEvent)
			if err != nil {
				for gj := range gs {
					for k := range gs[gj].Events {
						gs[gj].Events[k].EntryID, gs[gj].Events[k].Receipt = "", ""
					}
				}
				return 0
			}
			evs[i].EntryID, evs[i].Receipt = id.EntryID().String(), id.String()
			last = id
		}
	}
	if last.IsZero() {
		return 0
	}
	return last.snow.unixMilli()
}

// tagged appends records as tagged events (AppendOpts.Tags) through the
// dcb append script: each gets the engine's next id of the queue (as the
// append script chooses them), the queue's next position and its index
// entries, the records (and the idempotency key and expected top, when
// given) in one atomic step. Without a key or an expected top the append
// shares a call with the queue's other tagged appends of this client
// ([Client.dcbAppend]). The options were validated.
func (s *Stream) tagged(ctx context.Context, records []Fields, opts *AppendOpts) ([]ID, error) {
	c := s.c
	tags, joined, err := keyspace.Tags(opts.Tags)
	if err != nil {
		return nil, &ArgumentError{Name: "tags", Reason: err.Error()}
	}
	g := wire.DCBGroup{Events: make([]wire.DCBEvent, len(records))}
	for i, f := range records {
		g.Events[i] = wire.DCBEvent{Stream: s.name, Tags: tags, Joined: joined, Fields: f}
	}
	var res wire.DCBResult
	var engineUs int64
	if opts.Key == "" && opts.expect() == "" {
		if res, engineUs, err = c.dcbAppend(ctx, s.queue, g); err != nil {
			return nil, err
		}
	} else {
		req := wire.DCBAppendReq{
			Keys: dcbKeys(s.queue), Expect: opts.expect(), WindowMs: c.cfg.DedupeWindow.Milliseconds(),
			MaxSkewMs: c.cfg.MaxSkew.Milliseconds(), LeadMs: scriptLead.Milliseconds(), Groups: []wire.DCBGroup{g},
		}
		req.ProposedMs = c.propose(ctx, s.queue, req.Groups)
		if opts.Key != "" {
			req.IdemKey = keyspace.IdemKey(s.queue, s.name, opts.Key)
		}
		rep, err := c.conn.DCBAppend(ctx, &req)
		if err != nil {
			return nil, err
		}
		c.eclock.observe(c.eclock.since(), rep.EngineUs)
		if len(rep.Results) != 1 {
			return nil, fmt.Errorf("echomq: dcb append script returned %d results for one group", len(rep.Results))
		}
		res, engineUs = rep.Results[0], rep.EngineUs
	}
	return taggedReply(c, opts, &res, engineUs, len(records))
}

// taggedReply turns a dcb append result without a condition into receipts
// or the error Stream.Append gives for the same refusal.
func taggedReply(c *Client, opts *AppendOpts, res *wire.DCBResult, engineUs int64, n int) ([]ID, error) {
	switch res.Status {
	case wire.DCBOK:
		receipts := make([]string, len(res.Appended))
		for i, a := range res.Appended {
			receipts[i] = a.Receipt
		}
		c.astats.records.Add(int64(len(receipts)))
		return parseReceipts(receipts, n)
	case wire.DCBDup:
		return dupReceipts(res.Stored, n, opts.Key)
	case wire.DCBTop:
		ce := &ConflictError{Expected: opts.ExpectTop}
		if res.Top != "" {
			var err error
			if ce.TopEntry, err = ParseEntryID(res.Top); err != nil {
				return nil, err
			}
			if snow, ok := ce.TopEntry.Snowflake(); ok {
				ce.Top = MustID(BrandEvent, snow)
			}
		}
		return nil, ce
	case wire.DCBSkew:
		return nil, c.dcbSkew(res.SkewMs, engineUs)
	case wire.DCBErr:
		return nil, wire.ScriptError(res.Err)
	}
	return nil, fmt.Errorf("echomq: unexpected dcb append reply %q", res.Status)
}

// dcbSkew is the [*SkewError] of a dcb append refused because a target
// stream's top lies beyond Config.MaxSkew ahead of the engine's clock.
func (c *Client) dcbSkew(skewMs, engineUs int64) error {
	return &SkewError{
		Instant: time.UnixMilli(skewMs).UTC(), Engine: time.UnixMicro(engineUs).UTC(),
		MaxSkew: c.cfg.MaxSkew, Top: true,
	}
}
