package echomq

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// scriptLead is how far ahead of the engine's clock the append script keeps
// a proposed id; a proposal further ahead (a writer whose clock runs ahead)
// is replaced by an id at the engine's time.
const scriptLead = fastLead

// script appends records through the append script, which keeps each
// proposed id the engine accepts and otherwise chooses the engine's next id
// (node 1023, from the queue's engine id cells; docs/keyspace.md),
// checks the idempotency key and the expected top, and writes
// the receipt field itself; all in one atomic step on the stream's slot.
func (s *Stream) script(ctx context.Context, mode byte, ids []ID, records []Fields, opts *AppendOpts) ([]ID, error) {
	return s.scriptOn(ctx, s.c.conn, false, mode, ids, records, opts)
}

// scriptOn is script on conn; durable says conn is held for a durable
// append, whose wait must cover a repeat's first append too (durableFence).
func (s *Stream) scriptOn(ctx context.Context, conn *wire.Conn, durable bool, mode byte, ids []ID, records []Fields, opts *AppendOpts) ([]ID, error) {
	c := s.c
	node, err := c.mintNode(ctx, s.queue)
	if err != nil {
		return nil, err
	}
	req := wire.AppendReq{
		Key: s.key, Cell: keyspace.EngineCellKey(s.queue), Mode: mode, Node: node, OwnTop: c.eclock.ownTop(s.key),
		MaxSkewMs: c.cfg.MaxSkew.Milliseconds(), LeadMs: scriptLead.Milliseconds(),
		Expect: opts.expect(), WindowMs: c.cfg.DedupeWindow.Milliseconds(),
		EntryIDs: make([]string, len(ids)), Receipts: make([]string, len(ids)), Pairs: make([][]string, len(ids)),
	}
	if opts.Key != "" {
		req.IdemKey = keyspace.IdemKey(s.queue, s.name, opts.Key)
	}
	for i, id := range ids {
		req.EntryIDs[i], req.Receipts[i], req.Pairs[i] = id.EntryID().String(), id.String(), records[i]
	}
	rep, err := conn.StreamAppend(ctx, &req)
	if err != nil {
		return nil, err
	}
	c.eclock.observe(c.eclock.since(), rep.EngineUs)
	c.astats.scripts.Add(1)
	engine := time.UnixMicro(rep.EngineUs).UTC()
	switch rep.Status {
	case wire.AppendOK:
		c.astats.arbitrated.Add(rep.Refused)
		if rep.Foreign {
			// Another writer is above this one: let the engine choose, now
			// and for a while, instead of paying a refused round trip per
			// append. (A top of this client's own node is one of its own
			// goroutines' later appends: no reason to leave plain XADDs.)
			c.eclock.markHot(s.key)
			c.astats.contended.Add(1)
		}
		got, err := parseReceipts(rep.Receipts, len(ids))
		if err == nil {
			c.pastEngine(ctx, s.queue, s.key, got, rep.EngineUs)
		}
		return got, err
	case wire.AppendDup:
		if durable {
			if err := durableFence(ctx, conn, req.IdemKey); err != nil {
				return nil, err
			}
		}
		return dupReceipts(rep.Receipts[0], len(ids), opts.Key)
	case wire.AppendConflict:
		ce := &ConflictError{Expected: opts.ExpectTop}
		if rep.Top != "" {
			if ce.TopEntry, err = ParseEntryID(rep.Top); err != nil {
				return nil, err
			}
			if snow, ok := ce.TopEntry.Snowflake(); ok {
				ce.Top = MustID(BrandEvent, snow)
			}
		}
		return nil, ce
	case wire.AppendSkew:
		return nil, &SkewError{Instant: time.UnixMilli(rep.SkewMs).UTC(), Engine: engine, MaxSkew: c.cfg.MaxSkew, Top: rep.SkewTop}
	default: // wire.AppendNonMono
		return nil, ErrNonMonotonic
	}
}

// contended is the lean append of plain records (no idempotency key, no
// expected top) on a stream marked hot: one small script reads the top,
// takes the engine's next ids above it (node 1023, from the queue's
// engine id cell) and writes them with their receipts; the proposals in ids
// are not sent. It
// reports done=false, having written nothing, when the script hands the
// append back (an empty stream, a top beyond MaxSkew, a deleted last
// entry); the caller then runs [Stream.script], which answers each of them.
func (s *Stream) contended(ctx context.Context, ids []ID, records []Fields) ([]ID, bool, error) {
	c := s.c
	node, err := c.mintNode(ctx, s.queue)
	if err != nil {
		return nil, true, err
	}
	pairs := make([][]string, len(records))
	for i, f := range records {
		pairs[i] = f
	}
	rep, err := c.conn.StreamAppendContended(ctx, s.key, keyspace.EngineCellKey(s.queue), node, c.cfg.MaxSkew.Milliseconds(), pairs)
	if err != nil {
		return nil, true, err
	}
	c.eclock.observe(c.eclock.since(), rep.EngineUs)
	c.astats.scripts.Add(1)
	if rep.Status == wire.AppendBack {
		return nil, false, nil
	}
	got, err := parseReceipts(rep.Receipts, len(ids))
	if err != nil {
		return nil, true, err
	}
	top, err := ParseEntryID(rep.Top)
	if err != nil {
		return nil, true, fmt.Errorf("echomq: contended append script top: %w", err)
	}
	var replaced int64
	for i, id := range ids[:len(got)] {
		if got[i] != id {
			replaced++
		}
	}
	ownTop := c.eclock.ownTop(s.key)
	c.astats.arbitrated.Add(replaced)
	c.pastEngine(ctx, s.queue, s.key, got, rep.EngineUs)
	// Stay hot exactly when the append script would have said so: the
	// first proposal was not one it keeps (within reach of the clock and
	// above the top) and the top is another node's (the engine's counts).
	first := ids[0].EntryID()
	kept := int64(first.Ms) <= rep.EngineUs/1000+scriptLead.Milliseconds() && first.Compare(top) > 0
	if !kept && min(top.Seq, maxTail)>>seqBits != uint64(node) && rep.Top != ownTop && !rep.OwnTop {
		c.eclock.markHot(s.key)
		c.astats.contended.Add(1)
	}
	return got, true, nil
}

// dupReceipts splits the receipts stored under an idempotency key (one
// append's, concatenated) for a repeat of n records.
func dupReceipts(all string, n int, key string) ([]ID, error) {
	if len(all) != n*idLen {
		return nil, &ArgumentError{Name: "idempotency key", Reason: fmt.Sprintf("%q was used by an append of %d records, not %d", key, len(all)/idLen, n)}
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = all[i*idLen : (i+1)*idLen]
	}
	return parseReceipts(parts, n)
}

// keyed is the lean append of one record with an idempotency key and no
// expected top, for an id within reach of the engine's clock on a stream
// that is not contended: one small script (the key, the XADD, the key's
// SET). It reports done=false, having written nothing, when the stream top
// is at or above the id; the caller then goes to the arbitrating script.
func (s *Stream) keyed(ctx context.Context, id ID, f Fields, key string) (ID, bool, error) {
	c := s.c
	st, stored, err := c.conn.StreamAppendKeyed(ctx, s.key, keyspace.IdemKey(s.queue, s.name, key),
		id.EntryID().String(), id.String(), c.cfg.DedupeWindow.Milliseconds(), f)
	if err != nil {
		return ID{}, true, err
	}
	c.astats.scripts.Add(1)
	switch st {
	case wire.AppendOK:
		return id, true, nil
	case wire.AppendDup:
		ids, err := dupReceipts(stored, 1, key)
		if err != nil {
			return ID{}, true, err
		}
		return ids[0], true, nil
	}
	c.astats.refused.Add(1)
	return ID{}, false, nil
}

func parseReceipts(rs []string, n int) ([]ID, error) {
	if len(rs) != n {
		return nil, fmt.Errorf("echomq: append script returned %d receipts for %d records", len(rs), n)
	}
	ids := make([]ID, n)
	for i, r := range rs {
		id, err := ParseEventID(r)
		if err != nil {
			return nil, fmt.Errorf("echomq: append script receipt: %w", err)
		}
		ids[i] = id
	}
	return ids, nil
}

// pastEngine notes the last of ids the engine chose (node node 1023) on
// key as this client's own (a top equal to it is no other writer's) and
// moves the minter past it when it lies within reach of the engine's clock
// (engineUs), so that this client's next ids go above it as plain XADDs
// instead of being refused by it. A chosen id further ahead (it followed a
// top ahead of the clock) leaves the minter alone: it must not drag this
// client's other streams ahead of the clock.
func (c *Client) pastEngine(ctx context.Context, queue, key string, ids []ID, engineUs int64) {
	for _, id := range slices.Backward(ids) {
		if id.snow.Node() != engineNode {
			continue
		}
		c.eclock.noteOwn(key, id)
		if id.snow.unixMilli() <= engineUs/1000+fastLead.Milliseconds() {
			if m, err := c.minterOf(ctx, queue); err == nil {
				m.AdvancePast(id.snow)
			}
		}
		return
	}
}

// retryAbove is the one loop of a write whose XADD rides inside another
// script (a dead letter's move, a replay): write with a minted id; when the
// engine refuses it as not above the stream top, move the minter past the
// top (see [Client.above]) and write again with a new id, up to
// Config.AppendRetries times ([ErrContention] after). It refuses to follow
// a top more than MaxSkew ahead ([*SkewError]).
func (c *Client) retryAbove(ctx context.Context, queue, key string, write func(ID) error) (ID, error) {
	id, err := c.mint(ctx, queue, BrandEvent)
	if err != nil {
		return ID{}, err
	}
	for attempt := 0; ; attempt++ {
		err := write(id)
		if err == nil || !errors.Is(err, ErrNonMonotonic) {
			return id, err
		}
		if attempt >= c.cfg.AppendRetries {
			return ID{}, fmt.Errorf("%w after %d attempts: %w", ErrContention, attempt+1, err)
		}
		if attempt == 0 {
			// Usually one of this client's own later ids reached the engine
			// first; the minter is already past it.
			if id, err = c.mint(ctx, queue, BrandEvent); err != nil {
				return ID{}, err
			}
			continue
		}
		if id, err = c.nextAbove(ctx, queue, key); err != nil {
			return ID{}, err
		}
	}
}

// nextAbove returns the minter's next id above key's last generated id
// (XADD compares with it, even after the top entry was deleted).
func (c *Client) nextAbove(ctx context.Context, queue, key string) (ID, error) {
	info, ok, err := c.conn.XInfoStream(ctx, key)
	if err != nil {
		return ID{}, err
	}
	id, err := c.mint(ctx, queue, BrandEvent)
	if err != nil || !ok {
		return id, err
	}
	top, err := ParseEntryID(info.LastGeneratedID)
	if err != nil {
		return ID{}, err
	}
	return c.above(ctx, queue, top, id)
}

// above returns id when it lies above top, else a new id of the minter
// moved past top: every id a client hands out comes from its minter under
// its leased node or from the engine's node, never chosen by hand, so no
// receipt is shared. A top more than MaxSkew ahead of the engine's clock
// is a [*SkewError]; a top within it but ahead of the clock moves the
// minter there too (its next plain appends then take the script until the
// clock catches up).
func (c *Client) above(ctx context.Context, queue string, top EntryID, id ID) (ID, error) {
	if top.Compare(id.EntryID()) < 0 {
		return id, nil
	}
	now, err := c.engineNowMs(ctx)
	if err != nil {
		return ID{}, err
	}
	if int64(top.Ms) > now+c.cfg.MaxSkew.Milliseconds() {
		return ID{}, &SkewError{Instant: time.UnixMilli(int64(top.Ms)).UTC(), Engine: time.UnixMilli(now).UTC(), MaxSkew: c.cfg.MaxSkew, Top: true}
	}
	if top.Seq > maxTail {
		// Not an EchoMQ id: only the next millisecond lies above it.
		top.Seq = maxTail
	}
	snow, ok := top.Snowflake()
	if !ok {
		return ID{}, &IDError{Input: top.String(), Reason: "stream top is beyond the snowflake range; no EVT id can be appended above it"}
	}
	m, err := c.minterOf(ctx, queue)
	if err != nil {
		return ID{}, err
	}
	m.AdvancePast(snow)
	return c.mint(ctx, queue, BrandEvent)
}
