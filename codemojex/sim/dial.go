package sim

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"
)

// playerHTTP is the client player i uses. Against a loopback server each
// player dials from an address of its own in 127.0.0.0/8 (Linux routes the
// whole block to lo): the server limits sign-ins per client address, and a
// thousand players signing in from one address would be throttled as the
// abuse it looks like. Any other server gets the shared client.
func playerHTTP(base string, i int, shared *http.Client) (*http.Client, func()) {
	u, err := url.Parse(base)
	if err != nil {
		return shared, func() {}
	}
	ip, err := netip.ParseAddr(u.Hostname())
	if err != nil || !ip.Is4() || !ip.IsLoopback() {
		return shared, func() {}
	}
	src := netip.AddrFrom4([4]byte{127, 1, byte(i / 250), byte(i%250 + 1)})
	d := &net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: src.AsSlice()}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Transport: tr}, tr.CloseIdleConnections
}
