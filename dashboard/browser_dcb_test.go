package dashboard_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/webkit/browsertest"
)

// TestBrowserTagsPartitions drives a real browser at desktop and phone
// widths through what tags and partitions add to the dashboard: a stream
// page shows each tagged event's queue position and tags (and an untagged
// event's fields alone), and the overview links a partitioned stream to
// its page, which shows the four partitions and a group of two members
// holding two partitions each.
func TestBrowserTagsPartitions(t *testing.T) {
	t.Parallel()
	exe := browsertest.Need(t)
	b := setup(t, nil)
	tags := [][]string{{"game=GAM1", "player=PLR1"}, {"game=GAM1", "player=PLR2"}, {"game=GAM2"}}
	for i, tg := range tags {
		_, err := b.stream("orders").Append(b.ctx, echomq.F("n", strconv.Itoa(i)), &echomq.AppendOpts{Tags: tg})
		require.NoError(t, err)
	}
	_, err := b.stream("orders").Append(b.ctx, echomq.F("n", "plain"), nil)
	require.NoError(t, err)
	members := b.partitioned(t, "orders-p")
	dir := browsertest.Artifacts(t, "echomq-dashboard-")
	t.Logf("screenshots in %s", dir)
	root := browsertest.Start(t, exe)

	for _, vp := range browsertest.Viewports {
		ctx, cancel := context.WithTimeout(root, 60*time.Second)
		shot := shooter(dir, vp.Name)
		q := b.srv.URL + "/q/" + b.queue
		console := newConsole()
		run(t, ctx, vp.Name+": listen", console.Listen(ctx))
		run(t, ctx, vp.Name+": sign in",
			clearCookies,
			vp.Emulate(),
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`#token`, chromedp.ByQuery),
			chromedp.SendKeys(`#token`, token, chromedp.ByQuery),
			clickThrough(`#signin`),
			chromedp.WaitVisible(`#signout`, chromedp.ByQuery),
		)

		// The stream: three tagged events with positions 1..3 and their
		// tags, then the untagged one with its fields only.
		var positions, shown []string
		var rows, dcb int
		run(t, ctx, vp.Name+": stream with tags",
			chromedp.Navigate(q+"/streams/orders"),
			chromedp.WaitVisible(`#events dd.dcb.tags`, chromedp.ByQuery),
			count(`document.querySelectorAll("#events tr.livetail").length`, &rows),
			count(`document.querySelectorAll("#events tr.livetail:has(dd.dcb)").length`, &dcb),
			chromedp.Evaluate(`Array.from(document.querySelectorAll("#events dd.dcb.pos"), e => e.textContent.trim())`, &positions),
			chromedp.Evaluate(`Array.from(document.querySelectorAll("#events dd.dcb.tags"), e => e.innerText.trim())`, &shown),
			checkPage("stream-tags"),
			shot("stream-tags"),
		)
		require.Equal(t, []int{4, 3}, []int{rows, dcb}, "four events, three of them tagged")
		require.Equal(t, []string{"1", "2", "3"}, positions)
		want := make([]string, len(tags))
		for i, tg := range tags {
			want[i] = strings.Join(tg, " ")
		}
		require.Equal(t, want, shown)
		require.Contains(t, text(ctx, t, "#events tr.livetail:last-child"), "plain")

		// The overview links the partitioned stream; its page shows the
		// partitions and the group's two members.
		var parts, held []string
		var linked int
		run(t, ctx, vp.Name+": overview to partitions",
			chromedp.Navigate(b.srv.URL+"/"),
			chromedp.WaitVisible(`tr.partitioned`, chromedp.ByQuery),
			count(`document.querySelectorAll("tr.partitioned").length`, &linked),
			checkPage("overview"),
			shot("overview-partitioned"),
			clickThrough(`a[aria-label="Partitions of orders-p"]`),
			chromedp.WaitVisible(`tr.member`, chromedp.ByQuery),
			chromedp.Evaluate(`Array.from(document.querySelectorAll("tr.partition td:first-of-type"), e => e.textContent.trim())`, &parts),
			chromedp.Evaluate(`Array.from(document.querySelectorAll("tr.member"), r => r.querySelector("th").textContent.trim() + " " + r.querySelector("td").textContent.trim())`, &held),
			checkPage("partitions"),
			shot("partitions"),
		)
		require.Equal(t, 1, linked)
		require.Len(t, parts, 4)
		for i, pq := range parts {
			require.Contains(t, pq, ".emq-p"+strconv.Itoa(i)+"of4-", "partition %d's queue", i)
		}
		require.Len(t, held, 2)
		var all []string
		for _, line := range held {
			id, ps, ok := strings.Cut(line, " ")
			require.True(t, ok, line)
			require.Contains(t, members, id)
			got := strings.Split(ps, ", ")
			require.Len(t, got, 2, "member %s holds two partitions", id)
			all = append(all, got...)
		}
		slices.Sort(all)
		require.Equal(t, []string{"0", "1", "2", "3"}, all, "every partition held once")
		run(t, ctx, vp.Name+": console", console.None("the tags and partitions pages"))
		cancel()
	}
}
