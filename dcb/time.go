package dcb

import (
	"time"

	"github.com/echomq/echomq/internal/clientconn"
)

func unixMilli(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
func unixMicro(us int64) time.Time { return time.UnixMicro(us).UTC() }

func (s *Store) maxSkew() time.Duration {
	skew, _, _ := clientconn.AppendTiming(s.c)
	return time.Duration(skew) * time.Millisecond
}
