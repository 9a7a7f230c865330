// Package bench holds the comparisons of EchoMQ with peer libraries on the
// same redis-server in the same run: appends against go-redis, consumer
// groups against a raw valkey-go loop and Watermill's Redis Streams
// subscriber, lanes against Asynq, and archive segments read by Apache
// Arrow's Parquet reader. It is a module of its own so that the library's
// users never inherit these libraries; BENCHMARKS.md holds the figures and
// the commands that reproduce them.
package bench
