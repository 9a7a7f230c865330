package echomq

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/nodelease"
)

// ErrNodeLeaseLapsed means the client's leased node id may have expired (the
// engine did not confirm a renewal within Config.NodeLeaseTTL, as when it
// was paused or unreachable that long), so another process may hold it
// now. Until the client holds a node lease again (its keeper takes a new
// one within a third of the TTL once the engine answers), the verbs that
// mint an id return a [*NodeLeaseError], which matches this and
// [ErrUnavailable], and write nothing. A client with a configured
// Config.NodeID has no lease and never returns it.
var ErrNodeLeaseLapsed = errors.New("echomq: node id lease lapsed")

// NodeLeaseError is a mint refused because the lease of node may have
// lapsed; it matches [ErrNodeLeaseLapsed] and [ErrUnavailable].
type NodeLeaseError struct{ Node int }

func (e *NodeLeaseError) Error() string {
	return fmt.Sprintf("echomq: node id %d: lease lapsed; minting resumes once a node id is leased again", e.Node)
}

// Is matches [ErrNodeLeaseLapsed] and [ErrUnavailable].
func (e *NodeLeaseError) Is(target error) bool {
	return target == ErrNodeLeaseLapsed || target == ErrUnavailable
}

// queueMint is a client's minter for one queue, under the node id the
// client holds there: leased from the queue's own keys, or Config.NodeID
// (then one queueMint serves every queue). Ids are unique within their
// queue (docs/keyspace.md, "How far a receipt is unique"), so a node id
// need only be distinct among the queue's writers. The partitions' queues
// of a logical queue share its minter and its lease: a partitioned
// stream's events, and a program's ids minted in any of them, never share
// a receipt.
type queueMint struct {
	minter *Minter
	lease  *nodelease.Lease // nil with Config.NodeID
}

// mintFor returns the client's minter for queue, leasing a node id in the
// queue on its first use (one round trip; a failure is returned and tried
// again by the next call).
func (c *Client) mintFor(ctx context.Context, queue string) (*queueMint, error) {
	if c.fixed != nil {
		return c.fixed, nil
	}
	queue = keyspace.LogicalQueue(queue)
	if qm, ok := c.mints.Load(queue); ok {
		return qm.(*queueMint), nil
	}
	c.mintMu.Lock()
	defer c.mintMu.Unlock()
	if qm, ok := c.mints.Load(queue); ok {
		return qm.(*queueMint), nil
	}
	if c.isClosed() {
		return nil, ErrClosed
	}
	m, err := NewMinter(0, c.cfg.Clock)
	if err != nil {
		return nil, err
	}
	l, err := nodelease.Acquire(ctx, c.conn, queue, c.cfg.NodeLeaseTTL, c.cfg.Logger, func(n int) { _ = m.setNode(n) })
	if err != nil {
		return nil, fmt.Errorf("echomq: queue %q: %w", queue, err)
	}
	if err := m.setNode(l.Node()); err != nil {
		return nil, err
	}
	qm := &queueMint{minter: m, lease: l}
	c.mints.Store(queue, qm)
	return qm, nil
}

// releaseLeases frees every node id the client leased; Close calls it.
func (c *Client) releaseLeases() {
	c.mintMu.Lock()
	defer c.mintMu.Unlock()
	c.mints.Range(func(q, v any) bool {
		l := v.(*queueMint).lease
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if err := l.Release(ctx); err != nil {
			c.cfg.Logger.Warn("echomq: node id lease not released; it expires by itself", "queue", q, "node", l.Node(), "err", err)
		}
		cancel()
		return true
	})
}

// MintID mints an id under brand for queue with the client's minter of
// that queue, leasing a node id there on the queue's first use (one round
// trip). It refuses while the queue's node id lease may have lapsed (a
// [*NodeLeaseError]), so that an id it returns carries a node id no other
// writer of the queue held when it was minted: ids are unique within their
// queue. Errors: [*NameError] for a bad queue name, [ErrClosed], the lease's
// errors. It panics on a malformed brand, as [Minter.NextID] does.
func (c *Client) MintID(ctx context.Context, queue, brand string) (ID, error) {
	if err := keyspace.Queue(queue); err != nil {
		return ID{}, err
	}
	return c.mint(ctx, queue, brand)
}

// NodeID returns the node id the client mints with in queue, leasing one
// there on the queue's first use.
func (c *Client) nodeID(ctx context.Context, queue string) (int, error) {
	if err := keyspace.Queue(queue); err != nil {
		return 0, err
	}
	qm, err := c.mintFor(ctx, queue)
	if err != nil {
		return 0, err
	}
	return qm.minter.Node(), nil
}

// mint is MintID. The lease is checked after minting: held then means held
// at the mint (a lease, once not held, stays so), and a node id that
// changed meanwhile fails the check too.
func (c *Client) mint(ctx context.Context, queue, brand string) (ID, error) {
	if c.isClosed() {
		return ID{}, ErrClosed // Close released the lease: say why
	}
	qm, err := c.mintFor(ctx, queue)
	if err != nil {
		return ID{}, err
	}
	id := qm.minter.NextID(brand)
	if qm.lease != nil && !qm.lease.Holds(id.snow.Node()) {
		return ID{}, &NodeLeaseError{Node: id.snow.Node()}
	}
	return id, nil
}

// mintNode returns the node id the client holds in queue for an
// engine-side mint (the append scripts), or a [*NodeLeaseError].
func (c *Client) mintNode(ctx context.Context, queue string) (int, error) {
	if c.isClosed() {
		return 0, ErrClosed
	}
	qm, err := c.mintFor(ctx, queue)
	if err != nil {
		return 0, err
	}
	n := qm.minter.Node()
	if qm.lease != nil && !qm.lease.Holds(n) {
		return 0, &NodeLeaseError{Node: n}
	}
	return n, nil
}

// Minter returns the client's minter of queue, leasing a node id there on
// the queue's first use. Ids it mints carry the node id the client holds
// in queue, so they are safe to append to the queue's streams through this
// client; unlike [Client.MintID], [Minter.NextID] does not check that the
// lease still holds.
func (c *Client) Minter(ctx context.Context, queue string) (*Minter, error) {
	if err := keyspace.Queue(queue); err != nil {
		return nil, err
	}
	return c.minterOf(ctx, queue)
}

// minterOf returns the client's minter of queue, which mintFor made.
func (c *Client) minterOf(ctx context.Context, queue string) (*Minter, error) {
	qm, err := c.mintFor(ctx, queue)
	if err != nil {
		return nil, err
	}
	return qm.minter, nil
}
