package echomq

import (
	"context"
	"strconv"
)

// moveToDead moves a delivery to the dead-letter stream deadKey and
// acknowledges it on streamKey, in the one script the consumer uses (it
// first checks that consumer still owns the entry), with the fields of
// every dead letter. It returns the dead letter's id and whether the entry
// moved. The dead letter's id comes from the client's minter; when another
// writer got above it, the minter moves past the dead stream's top and
// mints again.
func moveToDead(ctx context.Context, c *Client, streamKey, deadKey, group, consumer string, d Delivery, cause string) (ID, bool, error) {
	pairs := []string{
		reservedField, "",
		deadFieldOrigin, d.Key(),
		deadFieldStream, d.Stream,
		deadFieldGroup, group,
		deadFieldConsumer, consumer,
		deadFieldAttempts, strconv.FormatInt(d.Attempts, 10),
		deadFieldError, cause,
		deadFieldPayload, encodePayload(d.Fields),
	}
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	var moved bool
	id, err := c.retryAbove(ctx, d.Queue, deadKey, func(id ID) error {
		pairs[1] = id.String()
		var err error
		moved, err = c.conn.DeadLetter(ctx, streamKey, deadKey, group, consumer, d.Entry.String(), id.EntryID().String(), pairs)
		return err
	})
	return id, moved, err
}
