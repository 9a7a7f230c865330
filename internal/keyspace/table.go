package keyspace

// Table checks a table name: the stream grammar, so a table name cannot
// reach into another key's suffix.
func Table(name string) error { return Name("table", name) }

// RecordKey checks a record key: the same grammar as names.
func RecordKey(key string) error { return Name("record key", key) }

// RecordKeyOf returns "emq:{q}:rec:<table>:<key>", one record of a table: a
// plain string holding the record's bytes.
func RecordKeyOf(q, table, key string) string { return QueueKey(q, "rec:"+table+":"+key) }

// TableIndexKey returns "emq:{q}:rec:<table>", the set of the table's record
// keys. Table names hold no colon, so it cannot collide with a record key.
func TableIndexKey(q, table string) string { return QueueKey(q, "rec:"+table) }
