package keyspace

// Projection checks a projection name: the same grammar as stream names, so
// a projection name cannot reach into another key's suffix.
func Projection(name string) error { return Name("projection", name) }

// ProjectionKey returns "emq:{q}:projection:<name>", the snapshot of one
// incremental projection: a plain string holding its definition version,
// its checkpoint vector and its encoded state in one value, written by one
// SET so that state and checkpoint never disagree. Callers have checked q
// and name.
func ProjectionKey(q, name string) string { return QueueKey(q, "projection:"+name) }
