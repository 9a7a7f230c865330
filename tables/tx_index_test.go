package tables_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/tables"
)

// An update of a record the transaction read skips the index write, and
// the table's index stays exact through updates, a delete and a put of
// the same key in one transaction, and a put after a read of an absent
// key.
func TestTxIndexStaysExact(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]target{"server": serverTarget, "embedded": embeddedTarget} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, q := open(t), echomqtest.Queue(t)
			tb := tables.New(c, q, "cells")
			put := func(key, val string) func(ctx context.Context, tx *tables.Tx) error {
				return func(ctx context.Context, tx *tables.Tx) error {
					if _, _, err := tx.Get(ctx, "cells", key); err != nil {
						return err
					}
					return tx.Put("cells", key, []byte(val))
				}
			}
			require.NoError(t, tables.Update(ctx, c, q, put("a", "1"), nil)) // read absent, then put
			require.NoError(t, tables.Update(ctx, c, q, put("a", "2"), nil)) // read present, then put
			require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
				if _, _, err := tx.Get(ctx, "cells", "a"); err != nil {
					return err
				}
				if err := tx.Delete("cells", "a"); err != nil {
					return err
				}
				return tx.Put("cells", "a", []byte("3")) // deleted, then put again
			}, nil))
			require.NoError(t, tables.Update(ctx, c, q, put("b", "1"), nil))
			keys, err := tb.Keys(ctx)
			require.NoError(t, err)
			require.ElementsMatch(t, []string{"a", "b"}, keys)
			v, ok, err := tb.Get(ctx, "a")
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "3", string(v))
			require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
				if _, _, err := tx.Get(ctx, "cells", "b"); err != nil {
					return err
				}
				return tx.Delete("cells", "b")
			}, nil))
			keys, err = tb.Keys(ctx)
			require.NoError(t, err)
			require.Equal(t, []string{"a"}, keys)
		})
	}
}
