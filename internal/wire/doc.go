// Package wire is the only code in EchoMQ that speaks to the engine: it
// builds the commands, runs the Lua scripts and decodes the replies, and it
// maps server errors onto the typed errors the public packages re-export.
//
// It wraps one valkey-go client. Commands on one key share one pipelined
// connection, so their order on the wire is the order they were issued in;
// blocking reads (XREAD BLOCK, XREADGROUP BLOCK) go to connections of their
// own from valkey-go's blocking pool, so a follower never stalls appends.
package wire
