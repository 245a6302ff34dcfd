package httpx

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// Proxies are the peers whose forwarding headers (X-Real-IP, then the last
// address of X-Forwarded-For) are believed: loopback always, and the
// entries of TRUSTED_PROXIES (addresses, CIDR ranges, host names). Any other
// peer's headers are ignored, so a client on the same network as a host
// listening on all interfaces cannot choose the address its rate limits
// count against.
type Proxies struct {
	prefixes []netip.Prefix
	hosts    []string
	lookup   func(ctx context.Context, host string) ([]netip.Addr, error)

	mu       sync.Mutex
	resolved []netip.Addr
	at       time.Time
}

// hostTTL is how long a host name's addresses are kept: compose gives a
// restarted web container a new address, and the api may start before it.
const hostTTL = 30 * time.Second

// ParseProxies reads the comma-separated entries of TRUSTED_PROXIES.
func ParseProxies(list string) (*Proxies, error) {
	p := &Proxies{lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}}
	for entry := range strings.SplitSeq(list, ",") {
		entry = strings.TrimSpace(entry)
		switch {
		case entry == "":
		case strings.Contains(entry, "/"):
			prefix, err := netip.ParsePrefix(entry)
			if err != nil {
				return nil, errors.New("entry " + quote(entry) + " is not a CIDR range")
			}
			p.prefixes = append(p.prefixes, prefix.Masked())
		default:
			if addr, err := netip.ParseAddr(entry); err == nil {
				p.prefixes = append(p.prefixes, netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen()))
			} else if validHost(entry) {
				p.hosts = append(p.hosts, entry)
			} else {
				return nil, errors.New("entry " + quote(entry) + " is not an address, a CIDR range or a host name")
			}
		}
	}
	return p, nil
}

func quote(s string) string { return `"` + s + `"` }

func validHost(s string) bool {
	if len(s) > 253 {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// trusts reports whether peer is loopback or a configured proxy.
func (p *Proxies) trusts(ctx context.Context, peer netip.Addr) bool {
	if peer.IsLoopback() {
		return true
	}
	if p == nil {
		return false
	}
	for _, prefix := range p.prefixes {
		if prefix.Contains(peer) {
			return true
		}
	}
	if len(p.hosts) == 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.at) > hostTTL {
		// Looked up at most once per hostTTL, under the lock, and only for a
		// peer that sent a forwarding header and matched nothing else.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		var addrs []netip.Addr
		for _, h := range p.hosts {
			found, _ := p.lookup(lctx, h)
			addrs = append(addrs, found...)
		}
		cancel()
		p.resolved, p.at = addrs, time.Now()
	}
	for _, a := range p.resolved {
		if a.Unmap() == peer {
			return true
		}
	}
	return false
}

// TrustProxies makes ClientIP believe the forwarding headers of p's peers
// for every request below it (App.Serve puts it under Serve).
func TrustProxies(p *Proxies, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l, ok := r.Context().Value(requestKey).(*requestLog); ok {
			l.proxies = p
		}
		next.ServeHTTP(w, r)
	})
}

// ClientIP is the address rate limits are keyed on: the peer's, or from a
// trusted proxy (loopback, or TRUSTED_PROXIES through TrustProxies) the
// address it forwarded in X-Real-IP, else the last of X-Forwarded-For.
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	peer = peer.Unmap()
	real, forwarded := r.Header.Get("X-Real-IP"), r.Header.Values("X-Forwarded-For")
	if real == "" && len(forwarded) == 0 {
		return peer.String()
	}
	var proxies *Proxies
	if l, ok := r.Context().Value(requestKey).(*requestLog); ok {
		proxies = l.proxies
	}
	if !proxies.trusts(r.Context(), peer) {
		return peer.String()
	}
	if fwd, err := netip.ParseAddr(strings.TrimSpace(real)); err == nil {
		return fwd.Unmap().String()
	}
	if len(forwarded) > 0 {
		list := forwarded[len(forwarded)-1]
		last := list[strings.LastIndexByte(list, ',')+1:]
		if fwd, err := netip.ParseAddr(strings.TrimSpace(last)); err == nil {
			return fwd.Unmap().String()
		}
	}
	return peer.String()
}
