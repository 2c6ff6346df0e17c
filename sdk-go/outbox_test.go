package workflow

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOutboxSendsConcurrentWritesTogetherAndAnswersEachOnItsOwn(t *testing.T) {
	var gate sync.Once
	release := make(chan struct{})
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		// The first write is held, so the others queue up behind its batch.
		gate.Do(func() { <-release })
		if strings.HasPrefix(path, "/api/worker/runs/run-13/") {
			return 409, map[string]any{"error": map[string]any{"code": "LEASE_LOST", "message": "stale"}}
		}
		return 200, map[string]any{"saved": []string{fmt.Sprint(body["token"])}}
	})
	ob := newOutbox(f.client())
	first := make(chan error, 1)
	go func() { first <- ob.send("steps", "run-0", map[string]any{"token": 0}, nil) }()
	for !f.holding() {
		time.Sleep(time.Millisecond)
	}
	const n = 40
	errs := make([]error, n)
	outs := make([]struct{ Saved []string }, n)
	var wg sync.WaitGroup
	for i := 1; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = ob.send("steps", fmt.Sprintf("run-%d", i), map[string]any{"token": i}, &outs[i])
		}(i)
	}
	time.Sleep(50 * time.Millisecond) // let them all queue
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i := 1; i < n; i++ {
		if i == 13 {
			if !errors.Is(errs[i], ErrLeaseLost) {
				t.Fatalf("run-13: want LEASE_LOST, got %v", errs[i])
			}
			continue
		}
		if errs[i] != nil || len(outs[i].Saved) != 1 || outs[i].Saved[0] != fmt.Sprint(i) {
			t.Fatalf("run-%d: err=%v out=%v", i, errs[i], outs[i])
		}
	}
	f.mu.Lock()
	batches := f.batches
	f.mu.Unlock()
	// One batch held the first write; the 39 others queued behind it went in one or two more.
	if batches < 2 || batches > 3 {
		t.Fatalf("want the 40 writes in 2-3 batch requests, got %d", batches)
	}
}

// holding reports whether a write has been received (the held first one).
func (f *fakeServer) holding() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests) > 0
}

func TestOutboxFallsBackToSingleRoutesOnAServerWithoutBatch(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/worker/batch" {
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":{"code":"NOT_FOUND","message":"no route"}}`)
			return
		}
		fmt.Fprint(w, `{"status":"succeeded"}`)
	}))
	defer srv.Close()
	ob := newOutbox(&Client{BaseURL: srv.URL, HTTP: srv.Client()})
	var out struct{ Status string }
	if err := ob.send("finish", "run/1", map[string]any{"token": 3, "outcome": "succeeded"}, &out); err != nil || out.Status != "succeeded" {
		t.Fatalf("err=%v out=%v", err, out)
	}
	if err := ob.send("steps", "run-2", map[string]any{"token": 3}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"/api/worker/batch", "/api/worker/runs/run/1/finish", "/api/worker/runs/run-2/steps"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("paths %v, want %v", paths, want)
	}
}
