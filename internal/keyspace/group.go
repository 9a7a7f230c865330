package keyspace

// SeenKey returns "emq:{q}:seen:<scope>:<id>", the idempotency marker of
// record id handled in scope: a plain string with a time-to-live, written
// only by echomq.Once. It holds "done" once a handler succeeded for the id,
// or a lease token while one runs. Callers have checked q and scope (both
// follow the name grammar) and pass a branded id or an entry id, so no part
// can reach into another key's suffix.
func SeenKey(q, scope, id string) string { return QueueKey(q, "seen:"+scope+":"+id) }
