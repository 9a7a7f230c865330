package keyspace

import "fmt"

// MaxIdempotencyKey is the longest idempotency key, in bytes.
const MaxIdempotencyKey = 256

// IdempotencyKey checks a caller's idempotency key: 1..256 bytes, any
// bytes. It is the last part of its engine key, after a prefix no stream
// name can produce, so it cannot reach into another key.
func IdempotencyKey(k string) error {
	if k == "" || len(k) > MaxIdempotencyKey {
		return &NameError{Kind: "idempotency key", Name: truncate(k), Reason: fmt.Sprintf("length must be 1..%d bytes", MaxIdempotencyKey)}
	}
	return nil
}

// IdemKey returns "emq:{q}:stream:<name>:key:<k>", the string that holds
// the receipts of an append made with idempotency key k, for its dedupe
// window. It lives on the stream's slot, so the append script can check
// and write it atomically with the XADD.
func IdemKey(q, name, k string) string { return StreamKey(q, name) + ":key:" + k }
