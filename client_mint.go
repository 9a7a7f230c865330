package echomq

import (
	"errors"
	"fmt"
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

// MintID mints an id under brand with the client's minter, like
// Minter().NextID, but refuses while the node id lease may have lapsed
// (a [*NodeLeaseError]), so that an id it returns carries a node id no
// other process held when it was minted. It does no I/O and never waits.
// It panics on a malformed brand, as NextID does.
func (c *Client) MintID(brand string) (ID, error) {
	return c.mint(brand)
}

// mint is MintID. The lease is checked after minting: held then means held
// at the mint (a lease, once not held, stays so), and a node id that
// changed meanwhile fails the check too.
func (c *Client) mint(brand string) (ID, error) {
	if c.isClosed() {
		return ID{}, ErrClosed // Close released the lease: say why
	}
	id := c.minter.NextID(brand)
	if c.lease != nil && !c.lease.Holds(id.snow.Node()) {
		return ID{}, &NodeLeaseError{Node: id.snow.Node()}
	}
	return id, nil
}

// mintNode returns the node id an engine-side mint (the arbitration
// script) may use now, or a [*NodeLeaseError].
func (c *Client) mintNode() (int, error) {
	if c.isClosed() {
		return 0, ErrClosed
	}
	n := c.minter.Node()
	if c.lease != nil && !c.lease.Holds(n) {
		return 0, &NodeLeaseError{Node: n}
	}
	return n, nil
}
