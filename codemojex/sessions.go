package codemojex

import (
	"context"
	"encoding/json"
	"time"

	"github.com/echomq/echomq/tables"
)

// PruneSessions deletes the player sessions that expired (issued more than
// Config.SessionTTL ago) from the engine and returns how many. [Engine.RunSweep]
// runs it every minute or so, so the sessions table holds live sessions
// only; Authenticate refuses an expired one whether or not it was pruned.
func (e *Engine) PruneSessions(ctx context.Context) (int, error) {
	cutoff := e.nowMS() - e.cfg.SessionTTL.Milliseconds()
	var dead []string
	for rec, err := range tables.New(e.client, e.queue, tableSessions).All(ctx) {
		if err != nil {
			return 0, err
		}
		var s session
		if json.Unmarshal(rec.Value, &s) != nil || s.IssuedMS < cutoff {
			dead = append(dead, rec.Key) // an undecodable session is no session either
		}
	}
	for start := 0; start < len(dead); start += 100 {
		batch := dead[start:min(start+100, len(dead))]
		err := e.update(ctx, func(ctx context.Context, t *txn) error {
			for _, k := range batch {
				if err := t.del(tableSessions, k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return start, err
		}
	}
	return len(dead), nil
}

// RevokeOperatorSession records in the engine that the operator session
// nonce is signed out until exp, so every process serving the operator
// pages refuses it, across restarts. Expired revocations are pruned as new
// ones are recorded.
func (e *Engine) RevokeOperatorSession(ctx context.Context, nonce string, exp time.Time) error {
	if !isNonce(nonce) {
		return badArg("session nonce", "want 1..128 bytes of [A-Za-z0-9_-]")
	}
	now := e.nowMS()
	var stale []string
	for rec, err := range tables.New(e.client, e.queue, tableRevoked).All(ctx) {
		if err != nil {
			return err
		}
		var ms int64
		if json.Unmarshal(rec.Value, &ms) != nil || ms <= now {
			stale = append(stale, rec.Key)
		}
	}
	return e.update(ctx, func(ctx context.Context, t *txn) error {
		for _, k := range stale {
			if err := t.del(tableRevoked, k); err != nil {
				return err
			}
		}
		return t.put(tableRevoked, nonce, exp.UnixMilli())
	})
}

// OperatorSessionRevoked reports whether the operator session nonce was
// signed out (in any process).
func (e *Engine) OperatorSessionRevoked(ctx context.Context, nonce string) (bool, error) {
	if !isNonce(nonce) {
		return true, nil // not a nonce the pages issue
	}
	_, ok, err := readJSON[int64](ctx, e, tableRevoked, nonce)
	return ok, err
}

// isNonce reports whether s can be a record key: 1..128 bytes of
// [A-Za-z0-9_-] (the operator pages' nonces are base64url).
func isNonce(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
