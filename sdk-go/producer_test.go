package workflow

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestEnqueueAndSignalFindTheServerInTheEnvironment(t *testing.T) {
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		if path == "/api/signals" {
			return 200, map[string]any{"event": body["event"], "woke": 2}
		}
		return 201, map[string]any{"run": map[string]any{"id": "fulfill:ord_123"}, "deduplicated": false}
	})
	t.Setenv("SLUICE_URL", f.srv.URL+"/")
	t.Setenv("SLUICE_TOKEN", "secret")
	runAt := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	id := "fulfill:ord_123"
	max := uint32(7)
	res, err := Enqueue(context.Background(), "fulfill-order", map[string]string{"orderId": "ord_123"}, EnqueueOpts{RunAt: &runAt, ID: &id, MaxAttempts: &max})
	if err != nil || res.ID != id || res.Deduplicated {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	b := f.last("/api/runs")
	if b["workflow"] != "fulfill-order" || b["id"] != id || b["retries"].(float64) != 6 || b["runAt"] != "2030-01-02T03:04:05Z" || b["payload"].(map[string]any)["orderId"] != "ord_123" {
		t.Fatalf("body %v", b)
	}
	if f.requests[0].Auth != "Bearer secret" {
		t.Fatalf("auth %q", f.requests[0].Auth)
	}
	n, err := Signal(context.Background(), "approval:order-1", map[string]any{"approved": true})
	if err != nil || n != 2 {
		t.Fatalf("n=%d err=%v", n, err)
	}
}

func TestServerErrorsAreAPIErrorsWithTheirCode(t *testing.T) {
	f := newFakeServer(t, func(string, map[string]any) (int, any) {
		return 404, map[string]any{"error": map[string]any{"code": "UNKNOWN_WORKFLOW", "message": "no workflow named \"nope\""}}
	})
	_, err := f.client().Enqueue(context.Background(), "nope", nil, EnqueueOpts{})
	var api *APIError
	if !errors.As(err, &api) || api.Code != "UNKNOWN_WORKFLOW" || api.Status != 404 {
		t.Fatalf("err=%v", err)
	}
	zero := uint32(0)
	if _, err := f.client().Enqueue(context.Background(), "x", nil, EnqueueOpts{MaxAttempts: &zero}); err == nil {
		t.Fatal("MaxAttempts 0 accepted")
	}
}

func TestWithoutSluiceURLCallsSayWhatToSet(t *testing.T) {
	t.Setenv("SLUICE_URL", "")
	if _, err := Enqueue(context.Background(), "x", nil, EnqueueOpts{}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err=%v", err)
	}
	if err := RunWorker(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err=%v", err)
	}
}

func TestEnqueueSendsAConcurrencyLimit(t *testing.T) {
	f := newFakeServer(t, func(string, map[string]any) (int, any) {
		return 201, map[string]any{"run": map[string]any{"id": "r1"}, "deduplicated": false}
	})
	c := f.client()
	if _, err := c.Enqueue(context.Background(), "charge", nil, EnqueueOpts{Concurrency: &Concurrency{Key: "cards", Limit: 2, Window: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	got := f.last("/api/runs")["concurrency"].(map[string]any)
	if got["key"] != "cards" || got["limit"].(float64) != 2 || got["windowMs"].(float64) != 60000 {
		t.Fatalf("concurrency %v", got)
	}
	if _, err := c.Enqueue(context.Background(), "charge", nil, EnqueueOpts{Concurrency: &Concurrency{Key: "cards"}}); err == nil {
		t.Fatal("a limit of 0 should be refused before sending")
	}
}

func TestSignalSendsItsBufferAndRefusesANegativeOne(t *testing.T) {
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		return 200, map[string]any{"event": body["event"], "woke": 0, "buffered": body["buffer"] != nil}
	})
	c := f.client()
	if _, err := c.Signal(context.Background(), "paid:1", map[string]any{"a": 1}, SignalOpts{Buffer: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if got := f.last("/api/signals")["buffer"]; got != float64(3600000) {
		t.Fatalf("buffer %v", got)
	}
	if _, err := c.Signal(context.Background(), "paid:2", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.last("/api/signals")["buffer"]; ok {
		t.Fatal("a signal without SignalOpts sent a buffer")
	}
	n := len(f.requests)
	if _, err := c.Signal(context.Background(), "paid:3", nil, SignalOpts{Buffer: -time.Second}); err == nil {
		t.Fatal("a negative buffer should be refused before sending")
	}
	if len(f.requests) != n {
		t.Fatal("a refused signal was sent")
	}
}
