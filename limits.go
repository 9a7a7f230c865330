package echomq

import (
	"errors"
	"fmt"
)

// ErrTooLarge means a name or value is larger than the engine accepts
// ([Config.MaxBulkBytes]); nothing was sent.
var ErrTooLarge = errors.New("echomq: too large for the engine")

// checkFields validates f for an append: [Fields.Validate], then every
// name and value against [Config.MaxBulkBytes], before any I/O. Past the
// limit the engine would drop the connection every caller shares.
func (c *Client) checkFields(f Fields) error {
	if err := f.Validate(); err != nil {
		return err
	}
	limit := c.cfg.MaxBulkBytes
	if limit <= 0 {
		limit = defaultMaxBulkBytes
	}
	for i, s := range f {
		if int64(len(s)) <= limit {
			continue
		}
		what, name := "value", f[i&^1]
		if i%2 == 0 {
			what = "name"
		}
		if len(name) > 64 {
			name = name[:64] + "…"
		}
		return &FieldError{Field: name, Reason: fmt.Sprintf("%s of %d bytes is above the limit of %d (Config.MaxBulkBytes, the engine's proto-max-bulk-len)", what, len(s), limit), err: ErrTooLarge}
	}
	return nil
}
