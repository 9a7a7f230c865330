package echomq_test

import (
	"strconv"

	"github.com/echomq/echomq/echomqtest"
)

func itoa(n int) string { return strconv.Itoa(n) }

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer = echomqtest.Buffer
