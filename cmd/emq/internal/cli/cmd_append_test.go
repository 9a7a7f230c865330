package cli

import (
	"testing"
	"time"

	"github.com/echomq/echomq"
)

func TestAppendGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.note("the receipt is the minted EVT id; fields keep the order given")
	b.at(0).step("append", "orders", "customer=ada", "total=42")
	b.at(time.Second).step("--json", "append", "orders", "customer=bo", "note=two words", "expr=a=b", "empty=")
	b.note("--id appends under an id of the caller's, which must lie above the stream's top")
	above := echomq.MustID(echomq.BrandEvent, snowAt(base.Add(time.Hour)))
	b.step("append", "--id", above.String(), "orders", "customer=cy")
	below := echomq.MustID(echomq.BrandEvent, snowAt(base))
	b.step("append", "--id", below.String(), "orders", "customer=dan")
	b.step("read", "orders")
	b.golden("append")
}
