package keyspace

// ArchiverKey returns "emq:{q}:stream:<name>:archiver", the lease that
// keeps two archivers of one stream apart when their store has no lock of
// its own: a plain string holding the holder's random token, set with
// SET NX PX, extended by its holder while a cycle runs and deleted by it at
// the end (compare-and-delete). Written only by the archive package; read by
// the retention driver, which refuses a stream while an archiver holds it.
// Callers have checked q and name.
func ArchiverKey(q, name string) string { return StreamKey(q, name) + ":archiver" }
