// Package keyspace builds every key EchoMQ touches and enforces the name
// grammar that keeps custom names out of the reserved ones.
//
// Per-queue keys are "emq:{<queue>}:<type>"; cross-queue keys are
// "{emq}:<suffix>". The hash tag is the queue name, so every key of one
// queue lands on one cluster slot. Queue and stream names match
// [A-Za-z0-9._-]{1,128}: no colon, brace, space or control byte can appear,
// so no name can reach into another key's suffix (":archived", ":dead") and
// no name can move a key to another slot. A queue may not be named "emq",
// which is the cross-queue hash tag.
//
// The closed registry of keys is docs/keyspace.md; a new key is added there
// and here together, never invented at a call site.
package keyspace
