package echomq

import (
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/wire"
)

func init() {
	clientconn.Of = func(client any) *wire.Conn { return client.(*Client).conn }
}
