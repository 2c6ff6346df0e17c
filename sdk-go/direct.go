package workflow

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"
)

// directPool posts JSON to a plain-HTTP Sluice server over keep-alive connections that
// the calling goroutine writes to and reads from itself. net/http's transport hands each
// request to a connection's write goroutine and each answer back from its read goroutine:
// two goroutine wake-ups per request, which on a busy machine cost more than the loopback
// round trip itself. A worker's protocol calls are few and small (a claim, a batch of
// writes), so it speaks the few lines of HTTP/1.1 they need directly. Used for http://
// URLs that no proxy applies to; https and proxied URLs go through net/http.
type directPool struct {
	addr string // host:port to dial
	host string // Host header

	mu   sync.Mutex
	idle []*directConn
}

type directConn struct {
	c    net.Conn
	r    *bufio.Reader
	used time.Time
}

// directIdleMax is how long an idle connection is reused: below the server's keep-alive
// timeout (Node's default is 5 s), so a request never races the server closing it.
const directIdleMax = 3 * time.Second

// newDirectPool returns a pool for base, or nil when base needs net/http (https, a proxy).
func newDirectPool(base string) *directPool {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil
	}
	// With a proxy configured, net/http decides (it knows NO_PROXY); loopback is never proxied.
	if (os.Getenv("HTTP_PROXY") != "" || os.Getenv("http_proxy") != "") && !isLoopback(u.Hostname()) {
		return nil
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &directPool{addr: addr, host: u.Host}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (p *directPool) get(ctx context.Context) (*directConn, error) {
	p.mu.Lock()
	for len(p.idle) > 0 {
		dc := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if time.Since(dc.used) < directIdleMax {
			p.mu.Unlock()
			return dc, nil
		}
		dc.c.Close()
	}
	p.mu.Unlock()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return nil, err
	}
	return &directConn{c: c, r: bufio.NewReaderSize(c, 16<<10)}, nil
}

func (p *directPool) put(dc *directConn) {
	dc.used = time.Now()
	p.mu.Lock()
	p.idle = append(p.idle, dc)
	p.mu.Unlock()
}

// post sends one POST with a JSON body and returns the status and the whole answer body.
// ctx's deadline bounds it; cancelling ctx aborts it (a long-poll ends at once).
func (p *directPool) post(ctx context.Context, path, token string, body []byte) (int, []byte, error) {
	dc, err := p.get(ctx)
	if err != nil {
		return 0, nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = dc.c.SetDeadline(dl)
	} else {
		_ = dc.c.SetDeadline(time.Time{})
	}
	var stop chan struct{}
	if done := ctx.Done(); done != nil {
		stop = make(chan struct{})
		go func() {
			select {
			case <-done:
				_ = dc.c.SetDeadline(time.Unix(1, 0))
			case <-stop:
			}
		}()
	}
	status, raw, keep, err := p.exchange(dc, path, token, body)
	if stop != nil {
		close(stop)
	}
	if err != nil {
		dc.c.Close()
		if ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			return 0, nil, context.DeadlineExceeded
		}
		return 0, nil, err
	}
	if keep && ctx.Err() == nil {
		p.put(dc)
	} else {
		dc.c.Close()
	}
	return status, raw, nil
}

func (p *directPool) exchange(dc *directConn, path, token string, body []byte) (int, []byte, bool, error) {
	var req bytes.Buffer
	req.Grow(256 + len(body))
	req.WriteString("POST ")
	req.WriteString(path)
	req.WriteString(" HTTP/1.1\r\nHost: ")
	req.WriteString(p.host)
	req.WriteString("\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ")
	req.WriteString(strconv.Itoa(len(body)))
	if token != "" {
		req.WriteString("\r\nAuthorization: Bearer ")
		req.WriteString(token)
	}
	req.WriteString("\r\n\r\n")
	req.Write(body)
	if _, err := dc.c.Write(req.Bytes()); err != nil {
		return 0, nil, false, err
	}
	res, err := http.ReadResponse(dc.r, nil)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("sluice: the server closed the connection before answering %s: %w", path, io.ErrUnexpectedEOF)
		}
		return 0, nil, false, err
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return 0, nil, false, err
	}
	return res.StatusCode, raw, !res.Close, nil
}
