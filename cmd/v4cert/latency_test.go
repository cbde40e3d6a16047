package main

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// latencyProxy forwards TCP connections to an upstream and delays every
// byte by the same time in each direction: a link with that one-way latency
// and no bandwidth limit, so a run against it costs what a run against a
// distant target costs in round trips. A new connection also waits a round
// trip before its first byte moves, as a TCP handshake does.
type latencyProxy struct {
	ln       net.Listener
	upstream string
	delay    time.Duration
	wg       sync.WaitGroup
}

func startLatencyProxy(upstream string, oneWay time.Duration) (*latencyProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &latencyProxy{ln: ln, upstream: upstream, delay: oneWay}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr is where clients connect.
func (p *latencyProxy) Addr() string { return p.ln.Addr().String() }

// Close stops accepting; connections in flight end with their peers.
func (p *latencyProxy) Close() error {
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *latencyProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c.(*net.TCPConn))
	}
}

func (p *latencyProxy) handle(client *net.TCPConn) {
	time.Sleep(2 * p.delay) // the handshake's round trip
	conn, err := net.Dial("tcp", p.upstream)
	if err != nil {
		client.Close()
		return
	}
	upstream := conn.(*net.TCPConn)
	done := make(chan struct{}, 2)
	go func() { delayed(upstream, client, p.delay); done <- struct{}{} }()
	go func() { delayed(client, upstream, p.delay); done <- struct{}{} }()
	<-done
	<-done
	client.Close()
	upstream.Close()
}

// delayed copies src to dst, each chunk delay after it was read; the end of
// src reaches dst (as a half close) delay after it happened too.
func delayed(dst, src *net.TCPConn, delay time.Duration) {
	type chunk struct {
		at   time.Time
		data []byte
	}
	chunks := make(chan chunk, 4096)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{time.Now().Add(delay), buf[:n]}
			}
			if err != nil {
				chunks <- chunk{at: time.Now().Add(delay)}
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.at))
		if c.data == nil {
			dst.CloseWrite()
			break
		}
		if _, err := dst.Write(c.data); err != nil {
			break
		}
	}
	for range chunks { // let the reader finish
	}
}

func TestLatencyProxyDelaysEachWay(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	const oneWay = 40 * time.Millisecond
	p, err := startLatencyProxy(echo.Addr().String(), oneWay)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The handshake's wait starts when the proxy accepts, so the first
	// round trip is timed from the dial.
	start := time.Now()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 5)
	for i := range 3 {
		if i > 0 {
			start = time.Now()
		}
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hello" {
			t.Fatalf("echo: %q %v", buf, err)
		}
		rtt := time.Since(start)
		// The first exchange also pays the handshake's round trip.
		want := 2 * oneWay
		if i == 0 {
			want = 4 * oneWay
		}
		if rtt < want {
			t.Errorf("round trip %d took %v, less than the %v the link adds", i, rtt, want)
		}
	}
	c.(*net.TCPConn).CloseWrite()
	if _, err := c.Read(buf); !errors.Is(err, io.EOF) {
		t.Errorf("the half close did not travel: %v", err)
	}
}
