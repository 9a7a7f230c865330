// Package partition grows one logical stream past one slot: a partitioned
// stream keeps its events in P ordinary streams, each in a queue of its
// own whose cluster slot lies in a different part of the slot space, so
// the partitions spread over a cluster's masters.
//
// Appends are routed by a partition key ([Route]: same key, same
// partition, in order) or spread; reads, follows, typed views and
// projections merge the partitions in entry-id order; the archive works
// per partition and merged reads span it ([Stream.Through]). A consumer
// group's [Member]s share the partitions with leases on the engine, so each
// partition, and with it each key, is handled by one live member at a time,
// in order, at least once across rebalances.
//
// The naming, the routing function, the rebalance protocol and its bounds,
// and the guarantees and limits are in docs/partitions.md.
package partition
