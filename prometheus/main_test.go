package emqprom_test

import (
	"testing"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }
