package workflow

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestDirectClientReusesItsConnectionAndDecodesAnswersAndErrors(t *testing.T) {
	var conns int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/echo":
			if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/json" {
				w.WriteHeader(400)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"got":` + string(body) + `}`))
		case "/chunked":
			w.(http.Flusher).Flush() // no Content-Length: a chunked answer
			_, _ = w.Write([]byte(`{"got":"chunks"}`))
		case "/close":
			w.Header().Set("Connection", "close")
			_, _ = w.Write([]byte(`{}`))
		default:
			w.WriteHeader(409)
			_, _ = w.Write([]byte(`{"error":{"code":"LEASE_LOST","message":"stale"}}`))
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			atomic.AddInt32(&conns, 1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Token: "tok", direct: newDirectPool(srv.URL)}
	if c.direct == nil {
		t.Fatal("an http:// URL without a proxy gets the direct client")
	}
	for i := 0; i < 5; i++ {
		var out struct{ Got map[string]int }
		if err := c.post(context.Background(), "/echo", map[string]int{"n": i}, &out); err != nil || out.Got["n"] != i {
			t.Fatalf("post %d: %v %v", i, out, err)
		}
	}
	var chunked struct{ Got string }
	if err := c.post(context.Background(), "/chunked", nil, &chunked); err != nil || chunked.Got != "chunks" {
		t.Fatalf("chunked: %v %v", chunked, err)
	}
	var api *APIError
	if err := c.post(context.Background(), "/other", nil, nil); !errors.As(err, &api) || api.Status != 409 || api.Code != "LEASE_LOST" {
		t.Fatalf("error answer: %v", err)
	}
	if n := atomic.LoadInt32(&conns); n != 1 {
		t.Fatalf("want one keep-alive connection for 7 requests, got %d", n)
	}
	if err := c.post(context.Background(), "/close", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.post(context.Background(), "/echo", 1, nil); err != nil {
		t.Fatal(err)
	}
	if n := atomic.LoadInt32(&conns); n != 2 {
		t.Fatalf("an answer with Connection: close is not reused: want 2 connections, got %d", n)
	}
}

func TestDirectClientCancelEndsALongPollAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // then the server notices the client hanging up
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, direct: newDirectPool(srv.URL)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	err := c.post(ctx, "/api/worker/claim", map[string]any{}, nil)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("want context.Canceled within 2 s, got %v after %v", err, time.Since(start))
	}
	dl, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	if err := c.post(dl, "/x", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline's error, got %v", err)
	}
}

func TestDirectClientIsNotUsedForHTTPSOrAProxy(t *testing.T) {
	if newDirectPool("https://sluice.example") != nil {
		t.Fatal("https goes through net/http")
	}
	t.Setenv("HTTP_PROXY", "http://proxy.example:3128")
	if newDirectPool("http://sluice.example:7777") != nil {
		t.Fatal("a proxied URL goes through net/http")
	}
	if newDirectPool("http://127.0.0.1:7777") == nil {
		t.Fatal("loopback is never proxied")
	}
}
