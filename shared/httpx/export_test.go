package httpx

import (
	"context"
	"net/netip"
)

// SetLookup replaces p's host name resolver, so a test names hosts
// without DNS.
func SetLookup(p *Proxies, f func(host string) []netip.Addr) {
	p.lookup = func(_ context.Context, host string) ([]netip.Addr, error) { return f(host), nil }
}
